#include "gpualert/classifier/live_scan.hpp"

#include "gpualert/common/text.hpp"
#include "line_reader.hpp"
#include "log_scanner.hpp"
#include "rule_set_handle.hpp"

namespace gpualert::classify {

struct LiveScan::Impl {
  explicit Impl(std::shared_ptr<const detail::RuleSet> r)
      : rules(std::move(r)),
        scanner(*rules, detail::ScanOptions{false, false}),
        splitter([this](std::string_view l, std::uint64_t n) { return scanner.block(l, n); }) {}
  std::shared_ptr<const detail::RuleSet> rules;  // outlives the scanner that points into it
  detail::LogScanner scanner;
  detail::LineSplitter splitter;
  std::uint64_t bytes = 0;
};

LiveScan::LiveScan(const Classifier& c) : impl_(std::make_unique<Impl>(c.rules()->impl)) {}
LiveScan::~LiveScan() = default;

void LiveScan::feed(std::string_view bytes) {
  impl_->bytes += bytes.size();
  impl_->splitter.feed(bytes);
}

LiveSnapshot LiveScan::snapshot() const {
  impl_->scanner.flush_progress();
  const detail::ScanResult& r = impl_->scanner.peek();
  const detail::LossTracker& L = r.loss;
  const detail::ProgressTracker& P = r.progress;
  LiveSnapshot s;
  s.lines = impl_->splitter.lines();
  s.bytes = impl_->bytes;
  s.losses = L.count();
  s.nonfinite = L.nonfinite();
  s.first_nonfinite_line = L.first_nonfinite_line();
  const auto head = L.head();
  if (!head.empty()) s.first_loss = head.front().value;
  if (const auto last = L.last()) {
    s.last_loss = last->value;
    s.last_loss_line = last->line;
  }
  s.step = P.max_step;
  s.total_steps = P.total_steps;
  s.epoch = P.max_epoch;
  s.total_epochs = P.total_epochs;
  s.progress_lines = P.progress_lines;
  s.last_progress_line = r.last_progress_line;
  for (const auto& t : {P.last_counted_step, P.last_epoch})
    if (t && t.line == s.last_progress_line) s.last_progress_text = one_line(t.text, 200);
  if (const auto rise = L.late_rise()) {
    s.rising = true;
    s.low = rise->low;
    s.now = rise->end;
  }
  return s;
}

}  // namespace gpualert::classify
