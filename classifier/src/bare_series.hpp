#pragma once
// Lines that print a counter and one unnamed number ("178 10.5646", "12: nan ****"): a
// loop that logs print(epoch, loss). The number is not named, so it may be a loss or an
// accuracy and feeds no trend; only its turning non-finite for good is read (no metric of
// a healthy run is NaN).
#include <cstdint>
#include <string_view>

namespace gpualert::classify::detail {

class BareSeries {
 public:
  void feed(std::string_view line, std::uint64_t lineno);

  std::uint64_t finite() const { return finite_; }
  std::uint64_t nonfinite() const { return nonfinite_; }
  // The newest values are non-finite: how many in a row, from which line.
  std::uint64_t streak() const { return streak_; }
  std::uint64_t streak_start() const { return streak_start_; }

 private:
  std::uint64_t last_counter_ = 0;
  bool any_ = false;
  std::uint64_t finite_ = 0, nonfinite_ = 0, streak_ = 0, streak_start_ = 0;
};

}  // namespace gpualert::classify::detail
