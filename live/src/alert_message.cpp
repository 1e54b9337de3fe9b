#include "gpualert/live/alert_message.hpp"

#include <sstream>

#include "gpualert/common/text.hpp"
#include "gpualert/report/channel_posts.hpp"

namespace gpualert::live {

notify::Message alert_message(const Alert& a, const AlertContext& c) {
  notify::Message m;
  m.envelope.from = c.from;
  m.envelope.to = c.to;
  const auto running = std::chrono::duration_cast<std::chrono::milliseconds>(c.now - c.started);
  const std::string label = one_line(c.label, 120);
  m.subject = one_line("[gpualert] LIVE " + a.condition + ": " + label + (c.host.empty() ? "" : " on " + c.host) +
                           " (running " + human_minutes(running) + ")",
                       180);
  std::ostringstream b;
  b << label << (c.host.empty() ? "" : " on " + c.host) << ": " << a.headline << ".\n";
  for (const auto& x : a.facts) b << "  - " << printable_utf8(x) << "\n";
  for (const auto& x : c.more_facts) b << "  - " << printable_utf8(x) << "\n";
  b << "\nThe run is still going: this is a warning, not its verdict. The verdict follows when it ends";
  if (!c.log_hint.empty()) b << ";\nthe log so far: " << c.log_hint;
  b << ".\n";
  b << "\n-- \ngpualert: live alerts while a job runs (live = no turns them off).\n";
  m.body_text = b.str();
  m.extra_headers = {{"X-Gpualert-Live", a.condition}};
  if (!c.user.empty()) m.extra_headers.emplace_back("X-Gpualert-User", c.user);
  for (const auto& h : c.headers) m.extra_headers.push_back(h);
  m.record = {{"class", "live:" + a.condition}, {"status", "LIVE"}, {"node", c.host}, {"label", label},
              {"evidence", a.headline}};
  if (!c.user.empty()) m.record["user"] = c.user;
  for (const auto& [k, v] : c.record) m.record[k] = v;
  return m;
}

std::vector<notify::Message> alert_posts(const Alert& a, const AlertContext& c, const std::vector<std::string>& channels,
                                         const notify::Message& mail) {
  report::Notice n;
  n.title = mail.subject;
  n.kind = "live:" + a.condition;
  n.headline = one_line(c.label, 120) + (c.host.empty() ? "" : " on " + c.host) + ": " + a.headline;
  n.lines = a.facts;
  n.lines.insert(n.lines.end(), c.more_facts.begin(), c.more_facts.end());
  n.lines.push_back("still running: a warning, not its verdict");
  return report::build_notice_posts(n, channels, mail);
}

}  // namespace gpualert::live
