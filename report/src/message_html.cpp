// The HTML message. Every string from the job (log lines, command, names) is escaped;
// colours are set in pairs (background and text) so dark-mode clients keep them readable.
#include "message_html.hpp"

#include <sstream>

#include "gpualert/common/text.hpp"
#include "message_words.hpp"

namespace gpualert::report {
namespace {

using namespace words;

constexpr const char* kMono = "font-family:Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;";
constexpr const char* kH2 = "font-size:16px;margin:20px 0 6px 0;";
constexpr const char* kCode = "background-color:#f3f4f6;color:#111827;border-radius:4px;padding:8px;margin:6px 0;"
                              "white-space:pre-wrap;word-break:break-all;overflow-wrap:anywhere;";

std::string esc(std::string_view s) { return html_escape(printable_utf8(s)); }

void list(std::ostringstream& o, const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  o << "<h2 style=\"" << kH2 << "\">" << title << "</h2>\n<ul style=\"margin:0;padding-left:20px;\">\n";
  for (const auto& i : items) o << "<li style=\"margin:2px 0;\">" << esc(i) << "</li>\n";
  o << "</ul>\n";
}

void cited_lines(std::ostringstream& o, const std::vector<classify::Citation>& lines) {
  if (lines.empty()) return;
  o << "<div style=\"" << kCode << kMono << "\">";
  for (const auto& c : lines)
    o << "<span style=\"color:#6b7280;\">line " << c.line << ":</span> " << esc(c.text) << "\n";
  o << "</div>\n";
}

void row(std::ostringstream& o, std::string_view key, std::string_view value) {
  o << "<tr><td style=\"padding:2px 10px 2px 0;vertical-align:top;white-space:nowrap;color:#6b7280;\">" << esc(key)
    << "</td><td style=\"padding:2px 0;overflow-wrap:anywhere;\">" << esc(value) << "</td></tr>\n";
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string html_body(const classify::Verdict& v, const RunFacts& f, const notify::AttachmentPlan& plan,
                      const std::vector<TailLine>& tail, const HtmlChart& chart) {
  const Move m = whose_move(v.attribution);
  const std::string where = f.host.empty() ? "" : " on " + f.host;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    << "<meta name=\"color-scheme\" content=\"light dark\"><meta name=\"supported-color-schemes\" content=\"light dark\">"
    << "<title>" << esc(subject(v, f)) << "</title></head>\n"
    << "<body style=\"margin:0;padding:0;\">\n"
    << "<div style=\"max-width:680px;margin:0 auto;padding:12px;font-family:-apple-system,'Segoe UI',Roboto,"
       "Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;\">\n";

  // The first screen: what happened, whose move, what to do.
  o << "<div id=\"verdict\">\n"
    << "<div style=\"border-left:6px solid " << m.colour << ";background-color:" << m.tint
    << ";color:#111827;padding:10px 12px;border-radius:4px;\">\n"
    << "<div style=\"font-size:12px;letter-spacing:0.04em;color:#374151;\">" << esc(status_word(v, f)) << " &middot; "
    << esc(status_detail(f)) << esc(where) << "</div>\n"
    << "<div style=\"font-size:22px;font-weight:bold;margin:2px 0;\">" << esc(v.cls) << "</div>\n";
  // What happened, in a sentence: the verdict's reading, else its first finding.
  if (!v.implies.empty()) o << "<div>" << esc(v.implies.front()) << "</div>\n";
  else if (!v.shows.empty()) o << "<div>" << esc(v.shows.front()) << "</div>\n";
  o << "</div>\n"
    << "<p style=\"margin:10px 0;\"><span style=\"background-color:" << m.colour
    << ";color:#ffffff;border-radius:4px;padding:2px 8px;font-weight:bold;white-space:nowrap;\">" << m.label
    << "</span> " << esc(who_acts(v.attribution)) << "</p>\n";
  if (!v.remedy.empty()) o << "<p style=\"margin:10px 0;\"><b>What to do:</b> " << esc(v.remedy) << "</p>\n";
  o << "<div style=\"font-size:12px;color:#6b7280;\">" << esc(job_label(f.command)) << " &middot; family "
    << esc(v.family) << " &middot; confidence " << confidence_text(v.confidence) << "</div>\n"
    << "</div>\n";

  // The three-part verdict, with its evidence.
  list(o, "What the data shows", v.shows);
  cited_lines(o, v.evidence);
  if (chart.chart) {
    o << "<div style=\"margin:8px 0;\"><img src=\"cid:" << chart.cid << "\" width=\"" << chart.chart->width
      << "\" height=\"" << chart.chart->height << "\" alt=\"" << esc(chart.chart->alt)
      << "\" style=\"display:block;max-width:100%;height:auto;border:1px solid #e5e7eb;\"></div>\n";
  }
  if (!chart.sparkline.empty())
    o << "<div style=\"" << kMono << "margin:4px 0;\">" << esc(chart.sparkline) << "</div>\n";
  list(o, "What it implies", v.implies);
  list(o, "What it cannot decide", v.cannot_decide);
  if (!v.secondary.empty()) {
    o << "<h2 style=\"" << kH2 << "\">Also noticed</h2>\n";
    for (const auto& s : v.secondary) {
      o << "<p style=\"margin:4px 0;\"><b>" << esc(s.cls) << "</b>: " << esc(s.summary) << "</p>\n";
      cited_lines(o, s.evidence);
    }
  }

  // The run.
  o << "<h2 style=\"" << kH2 << "\">Run</h2>\n<table style=\"border-collapse:collapse;font-size:14px;\">\n";
  row(o, "command", command_line(f.command));
  if (!f.cwd.empty()) row(o, "cwd", f.cwd);
  row(o, "host", f.host);
  row(o, "user", f.user);
  row(o, "started", iso8601_utc(f.started));
  row(o, "ended", iso8601_utc(f.ended) + " (" + human_duration(f.duration) + ")");
  row(o, "status", exit_status_text(f));
  for (const auto& [k, val] : f.extra) row(o, k, val);
  if (!f.log.empty()) row(o, "log", f.log.string() + " (" + human_size(f.log_bytes) + ")");
  if (!f.run_dir.empty()) row(o, "run dir", f.run_dir.string());
  o << "</table>\n";
  if (v.partial_scan) o << "<p style=\"margin:6px 0;\">Only part of the log was read (see what it cannot decide).</p>\n";

  o << "<h2 style=\"" << kH2 << "\">Attachments</h2>\n<ul style=\"margin:0;padding-left:20px;\">\n";
  if (plan.attached.empty()) o << "<li>none attached</li>\n";
  for (const auto& a : plan.attached)
    o << "<li>" << esc(a.shown_name()) << " (" << esc(human_size(a.original_size))
      << (a.compressed ? ", gzip-compressed" : "") << ")</li>\n";
  for (const auto& x : plan.omitted)
    o << "<li><b>not attached:</b> " << esc(x.path.string()) << " (" << esc(human_size(x.size)) << "): " << esc(x.reason)
      << "</li>\n";
  o << "</ul>\n";

  if (!f.problems.empty()) list(o, "Problems gpualert met (the job itself was not affected)", f.problems);

  o << "<h2 style=\"" << kH2 << "\">Last " << tail.size() << " lines of the log</h2>\n<div style=\"" << kCode << kMono
    << "\">";
  for (const auto& t : tail) {
    if (t.number > 0) o << "<span style=\"color:#6b7280;\">" << t.number << "|</span> ";
    o << esc(t.text) << "\n";
  }
  if (tail.empty()) o << "(the log is empty)";
  o << "</div>\n"
    << "<p style=\"font-size:12px;color:#6b7280;margin-top:16px;\">gpualert: why a job ended. verdict.json in the run "
       "directory has the machine-readable verdict.</p>\n"
    << "</div>\n</body></html>\n";
  return o.str();
}

}  // namespace gpualert::report
