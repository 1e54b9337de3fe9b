#pragma once
// Files that survive a crash: written to a temporary name, fsynced, renamed.
#include <filesystem>
#include <string>
#include <string_view>

namespace gpualert {

// Creates DIR and missing parents with MODE (existing ones are left as they are).
// Throws std::system_error naming the path on failure.
void make_dirs(const std::filesystem::path& dir, unsigned mode = 0700);

// fsync() the directory so that a rename or create inside it is durable.
void sync_dir(const std::filesystem::path& dir);

// Writes CONTENT to PATH atomically: PATH.tmp.<pid>, fsync, rename, fsync dir.
// Readers see either the old file or the complete new one, never a torn one.
void write_file_atomic(const std::filesystem::path& path, std::string_view content, unsigned mode = 0600);

// Reads a whole (small) file; throws std::system_error on failure.
std::string read_file(const std::filesystem::path& path);

}  // namespace gpualert
