// The words a user reads: subject, body and terminal summary. The verdict
// comes first (what failed, whose problem, what to do); facts and the log tail follow.
#include "gpualert/report/message_builder.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <sstream>

#include "gpualert/common/text.hpp"
#include "gpualert/common/wait_status.hpp"
#include "gpualert/notifier/attachment_budget.hpp"
#include "gpualert/report/loss_chart.hpp"
#include "message_html.hpp"
#include "message_words.hpp"

namespace gpualert::report {
namespace {

using namespace words;

void bullet_list(std::ostringstream& o, const std::vector<std::string>& items) {
  for (const auto& i : items) o << "  - " << printable_utf8(i) << "\n";
}

}  // namespace

std::string status_word(const classify::Verdict& v, const RunFacts& f) {
  if (f.exec_failed) return "FAILED";
  if (f.wait_status && WIFSIGNALED(*f.wait_status)) return "KILLED";
  const bool exited_zero = f.wait_status && WIFEXITED(*f.wait_status) && WEXITSTATUS(*f.wait_status) == 0;
  if (exited_zero) return v.family == "healthy" ? "OK" : "SUSPECT";
  return "FAILED";
}

std::string subject(const classify::Verdict& v, const RunFacts& f) {
  std::string s = "[gpualert] " + status_word(v, f) + " " + v.cls + ": " + job_label(f.command);
  if (!f.host.empty()) s += " on " + f.host;
  s += " (" + status_detail(f) + ")";
  return one_line(s, 180);
}

std::string body(const classify::Verdict& v, const RunFacts& f, const notify::AttachmentPlan& plan,
                 const std::vector<TailLine>& tail, const std::string& sparkline) {
  std::ostringstream o;
  o << status_word(v, f) << ": " << v.cls << "  (family " << v.family << ", confidence "
    << confidence_text(v.confidence) << ")\n";
  o << "Who must act: " << who_acts(v.attribution) << "\n\n";

  o << "What the data shows\n";
  bullet_list(o, v.shows);
  if (!v.evidence.empty()) {
    o << "  Cited lines of the log:\n";
    for (const auto& c : v.evidence) o << "    line " << c.line << ": " << printable_utf8(c.text) << "\n";
  }
  if (!sparkline.empty()) o << "  " << sparkline << "\n";
  o << "\nWhat it implies\n";
  bullet_list(o, v.implies);
  o << "\nWhat it cannot decide\n";
  bullet_list(o, v.cannot_decide);
  if (!v.remedy.empty()) o << "\nWhat to do\n  " << printable_utf8(v.remedy) << "\n";
  if (!v.secondary.empty()) {
    o << "\nAlso noticed\n";
    for (const auto& s : v.secondary) {
      o << "  - " << s.cls << ": " << printable_utf8(s.summary) << "\n";
      for (const auto& c : s.evidence) o << "      line " << c.line << ": " << printable_utf8(c.text) << "\n";
    }
  }

  o << "\nRun\n";
  o << "  command:  " << command_line(f.command) << "\n";
  if (!f.cwd.empty()) o << "  cwd:      " << printable_utf8(f.cwd) << "\n";
  o << "  host:     " << f.host << "   user: " << f.user << "\n";
  o << "  started:  " << iso8601_utc(f.started) << "   ended: " << iso8601_utc(f.ended) << "   ("
    << human_duration(f.duration) << ")\n";
  o << "  status:   " << exit_status_text(f) << "\n";
  for (const auto& [k, val] : f.extra) o << "  " << k << ": " << printable_utf8(val) << "\n";
  if (!f.log.empty()) o << "  log:      " << f.log.string() << " (" << human_size(f.log_bytes) << ")\n";
  if (!f.run_dir.empty()) o << "  run dir:  " << f.run_dir.string() << "\n";
  if (v.partial_scan) o << "  note:     only part of the log was read (see what it cannot decide)\n";

  o << "\nAttachments (budget " << human_size(plan.budget) << ", used " << human_size(plan.used) << ")\n";
  if (plan.attached.empty()) o << "  (none attached)\n";
  for (const auto& a : plan.attached)
    o << "  attached: " << a.file.attach_name << (a.compressed ? ".gz" : "") << " (" << human_size(a.original_size)
      << (a.compressed ? ", gzip-compressed" : "") << ")\n";
  for (const auto& m : plan.omitted)
    o << "  NOT attached: " << m.path.string() << " (" << human_size(m.size) << "): " << m.reason << "\n";

  if (!f.problems.empty()) {
    o << "\nProblems gpualert met (the job itself was not affected)\n";
    bullet_list(o, f.problems);
  }

  o << "\nLast " << tail.size() << " lines of the log\n";
  for (const auto& t : tail) {
    if (t.number > 0) o << "  " << t.number << "| " << t.text << "\n";
    else o << "  | " << t.text << "\n";
  }
  if (tail.empty()) o << "  (the log is empty)\n";
  o << "\n-- \ngpualert: diagnosis of why a job ended. verdict.json in the run directory has the machine-readable verdict.\n";
  return o.str();
}

notify::Message build_message(const classify::Verdict& v, const RunFacts& f, const MessageInputs& in) {
  notify::Message m;
  m.envelope.from = in.from;
  m.envelope.to = in.to;
  m.subject = subject(v, f);
  std::vector<notify::FileCandidate> files;
  if (!f.log.empty()) files.push_back({f.log, "output.log", "text/plain; charset=utf-8"});
  files.insert(files.end(), in.artifacts.begin(), in.artifacts.end());
  if (in.without_attachments) {
    m.attachments.budget = in.budget;
    for (const auto& c : files) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(c.path, ec);
      m.attachments.omitted.push_back({c.path, ec ? 0 : size, "not attached: no time was left to add it"});
    }
  } else {
    m.attachments = notify::plan_attachments(files, in.budget, in.attach_give_up);
  }
  m.attachments.omitted.insert(m.attachments.omitted.end(), in.refused.begin(), in.refused.end());
  const auto tail = log_tail(f.log, in.tail_lines, v.lines_read);
  const auto series = loss_series(v);
  const std::string spark = series ? sparkline(*series) : "";
  m.body_text = body(v, f, m.attachments, tail, spark);
  if (in.html) {
    HtmlChart hc{nullptr, "", spark};
    std::optional<Chart> chart;
    if (series) chart = draw_loss_chart(*series);
    if (chart) {
      hc.chart = &*chart;
      hc.cid = "loss-curve@gpualert";
      m.inline_parts.push_back({hc.cid, "image/png", "loss-curve.png", chart->png});
    }
    m.body_html = html_body(v, f, m.attachments, tail, hc);
  }
  m.extra_headers = {{"X-Gpualert-Class", v.cls},
                     {"X-Gpualert-Attribution", v.attribution},
                     {"X-Gpualert-Status", status_word(v, f)}};
  if (!f.user.empty()) m.extra_headers.emplace_back("X-Gpualert-User", f.user);
  // What a digest lists of this run, should it be folded into one.
  std::string evidence;
  for (std::size_t i = 0; i < v.shows.size() && i < 3; ++i) evidence += "- " + one_line(v.shows[i], 300) + "\n";
  if (!v.evidence.empty())
    evidence += "line " + std::to_string(v.evidence.front().line) + ": " + one_line(v.evidence.front().text, 300) + "\n";
  if (!v.remedy.empty()) evidence += "What to do: " + one_line(v.remedy, 400) + "\n";
  m.record = {{"class", v.cls},          {"attribution", v.attribution}, {"status", status_word(v, f)},
              {"exit", status_only(f)}, {"elapsed", human_duration(f.duration)}, {"node", f.host},
              {"ended", f.ended.time_since_epoch().count() ? iso8601_utc(f.ended) : ""},
              {"label", job_label(f.command)}, {"evidence", evidence}};
  return m;
}

std::string summary(const classify::Verdict& v, const RunFacts& f, const std::string& delivery_line) {
  std::ostringstream o;
  o << "\n== gpualert: " << status_word(v, f) << " " << v.cls << " (" << status_detail(f) << ")  who: "
    << v.attribution << "  confidence " << confidence_text(v.confidence) << "\n";
  std::size_t shown = 0;
  for (const auto& s : v.shows) {
    if (++shown > 3) break;
    o << "   shows:    " << printable_utf8(s) << "\n";
  }
  for (std::size_t i = 0; i < v.evidence.size() && i < 3; ++i)
    o << "   line " << v.evidence[i].line << ": " << one_line(v.evidence[i].text, 160) << "\n";
  if (!v.implies.empty()) o << "   implies:  " << printable_utf8(v.implies.front()) << "\n";
  if (!v.remedy.empty()) o << "   do:       " << printable_utf8(v.remedy) << "\n";
  if (!v.cannot_decide.empty()) o << "   unsure:   " << printable_utf8(v.cannot_decide.front()) << "\n";
  if (!f.log.empty()) o << "   log:      " << f.log.string() << "\n";
  if (!delivery_line.empty()) o << "   mail:     " << delivery_line << "\n";
  for (const auto& p : f.problems) o << "   problem:  " << printable_utf8(p) << "\n";
  return o.str();
}

}  // namespace gpualert::report
