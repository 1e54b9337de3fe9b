#pragma once
// The HTML rendering of the message: on a phone's first screen, what happened, whose
// move it is and what to do; then the evidence, the loss curve, the run, the
// attachments and the log's tail. Inline styles only, no remote content.
#include <optional>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/notifier/message.hpp"
#include "gpualert/report/loss_chart.hpp"
#include "gpualert/report/message_builder.hpp"

namespace gpualert::report {

struct HtmlChart {
  const Chart* chart = nullptr;  // null: no picture (the sparkline is shown instead)
  std::string cid;               // the image's Content-ID
  std::string sparkline;         // empty: no loss curve at all
};

std::string html_body(const classify::Verdict& v, const RunFacts& f, const notify::AttachmentPlan& plan,
                      const std::vector<TailLine>& tail, const HtmlChart& chart);

// Text made safe inside HTML elements and attribute values.
std::string html_escape(std::string_view s);

}  // namespace gpualert::report
