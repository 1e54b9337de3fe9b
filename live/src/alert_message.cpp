#include "alert_message.hpp"

#include <sstream>

#include "gpualert/common/text.hpp"

namespace gpualert::live {

notify::Message alert_message(const Alert& a, const report::RunFacts& f, const std::string& from,
                              const std::vector<std::string>& to, Clock::time_point now) {
  notify::Message m;
  m.envelope.from = from;
  m.envelope.to = to;
  const auto running = std::chrono::duration_cast<std::chrono::milliseconds>(now - f.started);
  const std::string label = report::job_label(f.command);
  m.subject = one_line("[gpualert] LIVE " + a.condition + ": " + label + (f.host.empty() ? "" : " on " + f.host) +
                           " (running " + human_minutes(running) + ")",
                       180);
  std::ostringstream b;
  b << label << (f.host.empty() ? "" : " on " + f.host) << ": " << a.headline << ".\n";
  for (const auto& x : a.facts) b << "  - " << printable_utf8(x) << "\n";
  b << "\nThe run is still going: this is a warning, not its verdict. The verdict follows when it ends";
  if (!f.log.empty()) b << ";\nthe log so far: " << f.log.string();
  b << ".\n";
  b << "\n-- \ngpualert: live alerts while a job runs (live = no turns them off).\n";
  m.body_text = b.str();
  m.extra_headers = {{"X-Gpualert-Live", a.condition}};
  if (!f.user.empty()) m.extra_headers.emplace_back("X-Gpualert-User", f.user);
  m.record = {{"class", "live:" + a.condition}, {"status", "LIVE"}, {"node", f.host}, {"label", label},
              {"evidence", a.headline}};
  return m;
}

}  // namespace gpualert::live
