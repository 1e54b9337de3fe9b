#include "gpualert/report/channel_posts.hpp"

#include <nlohmann/json.hpp>

#include "gpualert/classifier/verdict_format.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/report/message_builder.hpp"
#include "message_words.hpp"

namespace gpualert::report {
namespace {

using nlohmann::json;
using namespace words;

std::string record(const notify::Message& m, const std::string& key) {
  const auto it = m.record.find(key);
  return it == m.record.end() ? "" : it->second;
}

// What every format says, in the same words as the mail.
struct Post {
  std::string title, cause, move, todo, job, where, log;
  std::vector<std::string> evidence;  // "line N: text"
};

Post post_of(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail) {
  Post p;
  p.title = subject(v, f);
  p.cause = printable_utf8(!v.implies.empty() ? v.implies.front() : !v.shows.empty() ? v.shows.front() : "");
  p.move = who_acts(v.attribution);
  p.todo = printable_utf8(v.remedy);
  p.job = record(mail, "job");
  p.where = f.host + (f.user.empty() ? "" : ", user " + f.user) + ", " + status_detail(f);
  p.log = f.log.empty() ? "" : f.log.string();
  for (std::size_t i = 0; i < v.evidence.size() && i < 3; ++i)
    p.evidence.push_back("line " + std::to_string(v.evidence[i].line) + ": " + one_line(v.evidence[i].text, 200));
  return p;
}

// Slack's mrkdwn: only these three are markup and must be escaped.
std::string slack_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else o += c;
  }
  return o;
}

// Cut at a character boundary (UTF-8), saying so.
std::string cut(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "\n(cut: the mail and `gpualert show` have the whole verdict)";
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string slack_payload(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail) {
  const Post p = post_of(v, f, mail);
  std::string text = slack_escape(p.cause) + "\n*What to do:* " + slack_escape(p.todo);
  if (!p.evidence.empty()) {
    text += "\n```";
    for (const auto& e : p.evidence) text += "\n" + slack_escape(e);
    text += "\n```";
  }
  if (!p.log.empty()) text += "\nlog: `" + slack_escape(p.log) + "`";
  json fields = json::array({{{"title", "Whose move"}, {"value", slack_escape(p.move)}, {"short", false}},
                             {{"title", "Where"}, {"value", slack_escape(p.where)}, {"short", true}}});
  if (!p.job.empty()) fields.push_back({{"title", "Slurm job"}, {"value", p.job}, {"short", true}});
  const json j = {{"text", slack_escape(p.title)},
                  {"attachments", json::array({{{"color", whose_move(v.attribution).colour},
                                                 {"fallback", slack_escape(p.title)},
                                                 {"title", slack_escape(v.cls)},
                                                 {"text", cut(text, kPostTextMax)},
                                                 {"fields", fields},
                                                 {"mrkdwn_in", json::array({"text"})}}})}};
  return dump(j);
}

std::string teams_payload(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail) {
  const Post p = post_of(v, f, mail);
  json facts = json::array({{{"title", "Whose move"}, {"value", p.move}}, {{"title", "Where"}, {"value", p.where}}});
  if (!p.job.empty()) facts.push_back({{"title", "Slurm job"}, {"value", p.job}});
  if (!p.log.empty()) facts.push_back({{"title", "Log"}, {"value", p.log}});
  const bool bad = v.attribution != "none";
  json body = json::array({{{"type", "TextBlock"}, {"text", p.title}, {"weight", "Bolder"}, {"size", "Medium"},
                            {"wrap", true}, {"color", bad ? "Attention" : "Good"}},
                           {{"type", "TextBlock"}, {"text", cut(p.cause, 1000)}, {"wrap", true}},
                           {{"type", "FactSet"}, {"facts", facts}},
                           {{"type", "TextBlock"}, {"text", "What to do: " + cut(p.todo, 1500)}, {"wrap", true}}});
  if (!p.evidence.empty()) {
    std::string ev;
    for (const auto& e : p.evidence) ev += (ev.empty() ? "" : "\n\n") + e;
    body.push_back({{"type", "TextBlock"}, {"text", cut(ev, 1000)}, {"wrap", true}, {"fontType", "Monospace"}});
  }
  const json card = {{"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
                     {"type", "AdaptiveCard"},
                     {"version", "1.4"},
                     {"body", body}};
  const json j = {{"type", "message"},
                  {"attachments", json::array({{{"contentType", "application/vnd.microsoft.card.adaptive"},
                                                 {"contentUrl", nullptr},
                                                 {"content", card}}})}};
  return dump(j);
}

std::string json_payload(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail) {
  json verdict = classify::to_json(v);
  verdict.erase("tail");  // the log's lines stay on the cluster
  const json j = {{"gpualert", 1},
                  {"subject", subject(v, f)},
                  {"status", status_word(v, f)},
                  {"exit", status_only(f)},
                  {"job", record(mail, "job")},
                  {"user", f.user},
                  {"host", f.host},
                  {"ended", f.ended.time_since_epoch().count() ? iso8601_utc(f.ended) : ""},
                  {"elapsed_s", std::chrono::duration<double>(f.duration).count()},
                  {"log", f.log.string()},
                  {"verdict", verdict}};
  return dump(j);
}

namespace {

// One post per channel, its payload made by PAYLOAD(kind); the mail's headers and record.
template <typename F>
std::vector<notify::Message> posts_for(const std::vector<std::string>& channels, const notify::Message& mail,
                                       F&& payload) {
  std::vector<notify::Message> out;
  for (const auto& ch : channels) {
    const std::string kind = config::channel_kind(ch);
    if (kind.empty()) continue;
    notify::Message m;
    m.envelope.from = mail.envelope.from;
    m.envelope.to = {ch};
    m.subject = mail.subject;
    m.extra_headers = mail.extra_headers;
    m.record = mail.record;
    m.channel = ch;
    m.payload = payload(kind);
    out.push_back(std::move(m));
  }
  return out;
}

std::string notice_payload(const Notice& n, const std::string& kind, const notify::Message& mail) {
  const std::string job = record(mail, "job");
  std::string lines;
  for (const auto& l : n.lines) lines += (lines.empty() ? "" : "\n") + ("- " + printable_utf8(l));
  if (kind == "webhook")
    return dump({{"gpualert", 1}, {"subject", n.title}, {"status", "LIVE"}, {"kind", n.kind}, {"job", job},
                 {"user", record(mail, "user")}, {"host", record(mail, "node")}, {"headline", n.headline},
                 {"facts", n.lines}});
  if (kind == "teams") {
    json facts = json::array({{{"title", "Whose move"}, {"value", who_acts(n.attribution)}}});
    if (!job.empty()) facts.push_back({{"title", "Slurm job"}, {"value", job}});
    const json card = {{"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
                       {"type", "AdaptiveCard"},
                       {"version", "1.4"},
                       {"body", json::array({{{"type", "TextBlock"}, {"text", n.title}, {"weight", "Bolder"},
                                              {"wrap", true}, {"color", "Warning"}},
                                             {{"type", "TextBlock"}, {"text", cut(n.headline, 500)}, {"wrap", true}},
                                             {{"type", "TextBlock"}, {"text", cut(lines, 1500)}, {"wrap", true}},
                                             {{"type", "FactSet"}, {"facts", facts}}})}};
    return dump({{"type", "message"},
                 {"attachments", json::array({{{"contentType", "application/vnd.microsoft.card.adaptive"},
                                               {"contentUrl", nullptr},
                                               {"content", card}}})}});
  }
  json fields = json::array({{{"title", "Whose move"}, {"value", slack_escape(who_acts(n.attribution))}, {"short", false}}});
  if (!job.empty()) fields.push_back({{"title", "Slurm job"}, {"value", job}, {"short", true}});
  return dump({{"text", slack_escape(n.title)},
               {"attachments", json::array({{{"color", whose_move(n.attribution).colour},
                                             {"fallback", slack_escape(n.title)},
                                             {"title", slack_escape(n.headline)},
                                             {"text", cut(slack_escape(lines), kPostTextMax)},
                                             {"fields", fields}}})}});
}

}  // namespace

std::vector<notify::Message> build_posts(const classify::Verdict& v, const RunFacts& f,
                                         const std::vector<std::string>& channels, const notify::Message& mail) {
  return posts_for(channels, mail, [&](const std::string& kind) {
    return kind == "teams" ? teams_payload(v, f, mail) : kind == "webhook" ? json_payload(v, f, mail)
                                                                           : slack_payload(v, f, mail);
  });
}

std::vector<notify::Message> build_notice_posts(const Notice& n, const std::vector<std::string>& channels,
                                                const notify::Message& mail) {
  return posts_for(channels, mail, [&](const std::string& kind) { return notice_payload(n, kind, mail); });
}

}  // namespace gpualert::report
