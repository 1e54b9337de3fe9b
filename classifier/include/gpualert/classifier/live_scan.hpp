#pragma once
// The classifier's progress reading while a job still runs: output is fed as it is
// written, in any chunks, and a snapshot says at any time how far training got and how
// its loss goes. The same rules and trackers as the final verdict, so the two agree.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gpualert/classifier/classifier.hpp"

namespace gpualert::classify {

struct LiveSnapshot {
  std::uint64_t lines = 0, bytes = 0;
  std::uint64_t losses = 0, nonfinite = 0, first_nonfinite_line = 0;
  std::optional<double> first_loss, last_loss;  // finite values, as printed
  std::uint64_t last_loss_line = 0;
  std::uint64_t step = 0, total_steps = 0;      // the highest "step N/M" (0: none printed)
  std::uint64_t epoch = 0, total_epochs = 0;    // from "Epoch N/M"
  std::uint64_t progress_lines = 0, last_progress_line = 0;
  std::string last_progress_text;               // that line, printable and cut
  // The loss fell to a low and then rose steadily (the final verdict's divergence test).
  bool rising = false;
  double low = 0, now = 0;
};

class LiveScan {
 public:
  explicit LiveScan(const Classifier& c);
  ~LiveScan();
  LiveScan(const LiveScan&) = delete;
  LiveScan& operator=(const LiveScan&) = delete;

  void feed(std::string_view bytes);
  LiveSnapshot snapshot() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpualert::classify
