#include "gpualert/fleet/accounting_tag.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace gpualert::fleet {
namespace {

bool safe(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' || c == '+' || c == '-';
}

std::string clean(std::string_view v, std::size_t max = 64) {
  std::string out;
  for (char c : v.substr(0, max)) out.push_back(safe(c) ? c : '_');
  return out;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where the token starts in FIELD (at the field's start or after a blank), or npos.
std::size_t token_at(std::string_view field) {
  for (std::size_t p = field.find(kTagPrefix); p != std::string_view::npos; p = field.find(kTagPrefix, p + 1))
    if (p == 0 || blank(field[p - 1])) return p;
  return std::string_view::npos;
}

std::size_t token_end(std::string_view field, std::size_t from) {
  while (from < field.size() && !blank(field[from])) ++from;
  return from;
}

}  // namespace

std::string format_tag(const AccountingVerdict& v) {
  char conf[16];
  std::snprintf(conf, sizeof conf, "%.2f", v.confidence < 0 ? 0.0 : v.confidence > 1 ? 1.0 : v.confidence);
  std::string t = std::string(kTagPrefix) + "class=" + clean(v.cls, 40) + ";attr=" + clean(v.attribution, 16) +
                  ";conf=" + conf + ";node=" + clean(v.node, 64);
  const auto list = [&](const char* key, const std::vector<std::string>& ids, std::size_t room) {
    std::string out;
    for (const auto& g : ids) {
      const std::string one = clean(g, 16);
      if (t.size() + out.size() + one.size() + room > kMaxTokenBytes) break;
      out += (out.empty() ? "" : "+") + one;
    }
    if (!out.empty()) t += std::string(";") + key + "=" + out;
  };
  list("bad", v.bad, 80);  // first: what the fleet view needs most keeps its room
  list("gpus", v.gpus, 40);
  t += ";v=" + clean(v.version, 24);
  return t;
}

std::optional<AccountingVerdict> parse_tag(std::string_view field) {
  const auto at = token_at(field);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view tok = field.substr(at + kTagPrefix.size(), token_end(field, at) - at - kTagPrefix.size());
  if (tok.size() > kMaxTokenBytes) return std::nullopt;
  AccountingVerdict v;
  bool conf_seen = false;
  while (!tok.empty()) {
    const auto semi = tok.find(';');
    const std::string_view kv = tok.substr(0, semi);
    tok.remove_prefix(semi == std::string_view::npos ? tok.size() : semi + 1);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view k = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (k == "class") v.cls = std::string(val);
    else if (k == "attr") v.attribution = std::string(val);
    else if (k == "node") v.node = std::string(val);
    else if (k == "v") v.version = std::string(val);
    else if (k == "conf") {
      const std::string s(val);
      char* end = nullptr;
      v.confidence = std::strtod(s.c_str(), &end);
      conf_seen = end != s.c_str();
    } else if (k == "gpus" || k == "bad") {
      auto& into = k == "gpus" ? v.gpus : v.bad;
      std::string_view g = val;
      while (!g.empty()) {
        const auto plus = g.find('+');
        if (plus != 0) into.emplace_back(g.substr(0, plus));
        g.remove_prefix(plus == std::string_view::npos ? g.size() : plus + 1);
      }
    }
  }
  // A class id is a short identifier (format_tag keeps 40 bytes of one): anything else is not ours.
  if (v.cls.empty() || v.cls.size() > 40 || !conf_seen) return std::nullopt;
  for (char c : v.cls)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  return v;
}

std::string merge_tag(std::string_view existing, std::string_view tag) {
  std::string out;
  const auto at = token_at(existing);
  if (at == std::string_view::npos) {
    std::size_t end = existing.size();
    while (end > 0 && blank(existing[end - 1])) --end;
    out = std::string(existing.substr(0, end));
    if (!out.empty()) out += ' ';
    out += tag;
    return out;
  }
  out = std::string(existing.substr(0, at));
  out += tag;
  out += existing.substr(token_end(existing, at));
  return out;
}

}  // namespace gpualert::fleet
