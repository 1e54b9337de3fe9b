#pragma once
// FNV-1a, 64-bit: a cheap, stable hash of bytes (a cache key, a file name from any text).
// Not for anything an attacker must not collide.
#include <cstdint>
#include <string_view>

namespace gpualert {

inline constexpr std::uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;

inline std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
  for (const unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace gpualert
