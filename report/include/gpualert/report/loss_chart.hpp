#pragma once
// The loss curve as a small PNG for the HTML message (drawn with cairo).
#include <optional>
#include <string>

#include "gpualert/report/loss_series.hpp"

namespace gpualert::report {

struct Chart {
  std::string png;  // the image's bytes
  int width = 0, height = 0;
  std::string alt;  // what it shows, for readers with images off
};

// Nothing when cairo fails (the message goes out without the picture).
std::optional<Chart> draw_loss_chart(const LossSeries& s, int width = 600, int height = 200);

}  // namespace gpualert::report
