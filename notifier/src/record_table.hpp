#pragma once
// What the digests read from a stored message's record, and how they lay it out in
// their plain-text tables (digest.cpp, infra_digest.cpp).
#include <string>

#include "gpualert/common/text.hpp"
#include "gpualert/notifier/outbox.hpp"

namespace gpualert::notify::detail {

// A field of M's record ("" when absent).
inline std::string get(const StoredMessage& m, const char* key) {
  const auto it = m.record.find(key);
  return it == m.record.end() ? std::string() : it->second;
}

// S on one line, cut to N bytes and padded to them: one table cell.
inline std::string pad(std::string s, std::size_t n) {
  s = one_line(s, n);
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

}  // namespace gpualert::notify::detail
