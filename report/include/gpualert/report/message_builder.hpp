#pragma once
// Turns a verdict and the run's facts into the subject, the body and the
// attachment plan of one message, and a one-screen summary for the terminal.
#include <chrono>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/notifier/message.hpp"
#include "gpualert/report/run_facts.hpp"

namespace gpualert::report {

struct TailLine {
  std::uint64_t number = 0;  // 1-based, 0 when unknown
  std::string text;
};

// The last N lines of a log, read from its end (fast on any size).
// TOTAL_LINES numbers them when known (0 = unknown).
std::vector<TailLine> log_tail(const std::filesystem::path& log, int n, std::uint64_t total_lines);

// "FAILED", "OK", "SUSPECT" (exit 0 but not healthy), "KILLED" (signal).
std::string status_word(const classify::Verdict& v, const RunFacts& f);

// e.g. "[gpualert] FAILED cuda_oom: train.py on gpu041 (exit 1, 2h13m)".
std::string subject(const classify::Verdict& v, const RunFacts& f);

// SPARKLINE: the loss curve on one line (loss_series.hpp), empty when none was printed.
std::string body(const classify::Verdict& v, const RunFacts& f, const notify::AttachmentPlan& plan,
                 const std::vector<TailLine>& tail, const std::string& sparkline = "");

struct MessageInputs {
  std::string from;
  std::vector<std::string> to;
  std::uint64_t budget = 0;
  int tail_lines = 40;
  std::vector<notify::FileCandidate> artifacts;  // after the log, in order
  std::vector<notify::OmittedFile> refused;      // artifacts refused before planning (named in the body)
  // Compression of an attachment still running then is abandoned (named as not attached).
  std::chrono::steady_clock::time_point attach_give_up = std::chrono::steady_clock::time_point::max();
  // The quick first version, stored before anything optional: no attachments.
  bool without_attachments = false;
  bool html = true;  // add the HTML alternative (and the loss chart)
};

notify::Message build_message(const classify::Verdict& v, const RunFacts& f, const MessageInputs& in);

// The terminal summary (stderr) printed when the run ends.
std::string summary(const classify::Verdict& v, const RunFacts& f, const std::string& delivery_line);

}  // namespace gpualert::report
