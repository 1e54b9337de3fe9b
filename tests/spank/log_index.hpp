#pragma once
// Test helper: splits a task log back into its streams using the .streams
// index, and checks the index covers the log exactly, in order, with no gaps.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

namespace gpualert::spank::test {

// Map from tag ('o', 'e', 'g') to that stream's bytes, in log order.
inline std::map<char, std::string> split_by_index(const std::string& log, const std::string& index) {
  std::map<char, std::string> out;
  std::istringstream in(index);
  char tag = 0;
  unsigned long long off = 0, len = 0, ms = 0;
  unsigned long long next = 0;
  while (in >> tag >> off >> len >> ms) {
    EXPECT_EQ(off, next) << "index has a gap or overlap at " << off;
    EXPECT_LE(off + len, log.size()) << "index points past the end of the log";
    if (off + len > log.size()) break;
    out[tag] += log.substr(off, len);
    next = off + len;
  }
  EXPECT_EQ(next, log.size()) << "index does not cover the whole log";
  return out;
}

}  // namespace gpualert::spank::test
