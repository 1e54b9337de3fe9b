// Layered settings. Every problem is recorded with where it came from and the
// layer below stays in force: a bad config never stops the job.
#include "gpualert/config/loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpualert/config/addresses.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/config/defaults.hpp"

namespace gpualert::config {
namespace {

// The keys a file, the environment (GPUALERT_<KEY>) and flags may set.
const char* const kKeys[] = {
    "smtp_url", "smtp_user", "smtp_password_file", "smtp_tls", "smtp_ca_file", "smtp_verify_peer",
    "from",     "to",        "send_timeout",       "state_dir", "outbox",      "rules",
    "attach_budget", "tail_lines", "artifact", "kernel_events", "accounting", "hang_after", "outbox_reserve", "log_max", "retry_base", "retry_max", "expire_after", "admin_to",
    "rate_global", "rate_recipient", "spool", "sender_interval", "transport", "sendmail_path", "digest",
    "digest_burst", "digest_window", "digest_quiet", "array_mail", "infra_to", "infra_gather", "infra_window", "html", "channels_file", "notify", "notify_floor", "user_config", "live", "stall_after", "live_interval", "time_limit", "cancel_after_stall", "allow_cancel"};

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string env_name(const std::string& key) {
  std::string n = "GPUALERT_";
  for (char c : key) n += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return n;
}

// "~/x" means the user's home, as in a shell; nothing else is expanded.
std::filesystem::path expand_home(const std::string& v) {
  if (v == "~") return home_dir();
  if (v.rfind("~/", 0) == 0) return home_dir() / v.substr(2);
  return v;
}

std::optional<bool> parse_bool(const std::string& v) {
  if (v == "yes" || v == "true" || v == "on" || v == "1") return true;
  if (v == "no" || v == "false" || v == "off" || v == "0") return false;
  return std::nullopt;
}

}  // namespace

std::filesystem::path system_config_path() {
  if (const char* p = std::getenv("GPUALERT_SYSTEM_CONFIG"); p && *p) return p;
  return "/etc/gpualert/gpualert.conf";
}

std::filesystem::path user_config_path() {
  if (const char* p = std::getenv("GPUALERT_CONFIG"); p && *p) return p;
  return xdg_dir("XDG_CONFIG_HOME", ".config") / "gpualert" / "gpualert.conf";
}

Loader::Loader() {
  const std::string host = host_name();
  s_.from = "gpualert@" + host;
  s_.to = {current_user() + "@" + host};
  s_.state_dir = xdg_dir("XDG_STATE_HOME", ".local/state") / "gpualert";
  s_.outbox = s_.state_dir / "outbox";
}

void Loader::apply_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return;  // an absent file is the normal case
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) problems_.push_back({file.string(), "read error"});
  apply_text(text.str(), file.string());
}

void Loader::apply_text(std::string_view text, const std::string& name) {
  int lineno = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string line(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++lineno;
    const std::string where = name + ":" + std::to_string(lineno);
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    // A comment may follow a value after white space ("tail_lines = 40   # lines"), as in
    // the shipped file; a '#' inside a value (no space before it) stays part of it.
    for (std::size_t i = 1; i < t.size(); ++i)
      if (t[i] == '#' && (t[i - 1] == ' ' || t[i - 1] == '\t')) {
        t = trim(t.substr(0, i));
        break;
      }
    const auto eq = t.find('=');
    if (eq == std::string::npos) {
      problems_.push_back({where, "expected 'key = value', got '" + t.substr(0, 80) + "'"});
      continue;
    }
    set(trim(t.substr(0, eq)), trim(t.substr(eq + 1)), where);
  }
}

void Loader::apply_environment() {
  for (const char* key : kKeys) {
    const std::string name = env_name(key);
    if (const char* v = std::getenv(name.c_str()); v && *v) set(key, v, name);
  }
}

void Loader::apply_value(const std::string& key, const std::string& value, const std::string& where) {
  set(key, value, where);
}

void Loader::set(const std::string& key, const std::string& value, const std::string& where) {
  auto bad = [&](const std::string& why) { problems_.push_back({where, key + ": " + why}); };
  auto set_bool = [&](bool& field) {
    const auto b = parse_bool(value);
    if (!b) return bad("must be yes or no");
    field = *b;
  };
  if (key == "smtp_url") {
    if (!value.empty() && value.rfind("smtp://", 0) != 0 && value.rfind("smtps://", 0) != 0)
      return bad("must start with smtp:// or smtps://, got '" + value + "'");
    s_.smtp_url = value;
  } else if (key == "smtp_user") {
    s_.smtp_user = value;
  } else if (key == "smtp_password_file") {
    s_.smtp_password_file = expand_home(value);
  } else if (key == "smtp_tls") {
    if (value != "auto" && value != "required" && value != "off") return bad("must be auto, required or off");
    s_.smtp_tls = value;
  } else if (key == "smtp_ca_file") {
    s_.smtp_ca_file = expand_home(value);
  } else if (key == "smtp_verify_peer") {
    const auto b = parse_bool(value);
    if (!b) return bad("must be yes or no");
    s_.smtp_verify_peer = *b;
  } else if (key == "from") {
    if (!valid_address(value)) return bad("not a mail address: '" + value + "'");
    s_.from = value;
  } else if (key == "to") {
    std::vector<std::string> list;
    std::string why;
    if (!parse_destination_list(value, list, why)) return bad(why);
    s_.to = list;
  } else if (key == "send_timeout") {
    const auto d = parse_duration(value);
    if (!d || d->count() <= 0) return bad("expected seconds, e.g. 15 or 2.5s, got '" + value + "'");
    s_.send_timeout = *d;
  } else if (key == "state_dir") {
    s_.state_dir = expand_home(value);
    if (!outbox_explicit_) s_.outbox = s_.state_dir / "outbox";
  } else if (key == "outbox") {
    s_.outbox = expand_home(value);
    outbox_explicit_ = true;
  } else if (key == "rules") {
    s_.rule_files.emplace_back(expand_home(value));
  } else if (key == "attach_budget") {
    const auto n = parse_size(value);
    if (!n) return bad("expected a size such as 20MiB, got '" + value + "'");
    s_.attach_budget = *n;
  } else if (key == "retry_base" || key == "retry_max" || key == "expire_after" || key == "sender_interval") {
    const auto d = parse_duration(value);
    if (!d || d->count() < 1000) return bad("expected seconds (at least 1), e.g. 60 or 90s, got '" + value + "'");
    // The bounds gpualert-send takes (a larger value would keep the sender from starting).
    const long long most_s = key == "retry_base" ? 86400 : key == "retry_max" ? 604800
                           : key == "expire_after" ? 31LL * 86400 : 3600;
    if (d->count() > most_s * 1000)
      return bad("at most " + std::to_string(most_s) + " seconds, got '" + value + "'");
    (key == "retry_base" ? s_.retry_base : key == "retry_max" ? s_.retry_max
     : key == "expire_after" ? s_.expire_after : s_.sender_interval) = *d;
  } else if (key == "admin_to" || key == "infra_to") {
    std::vector<std::string> list;
    std::string why;
    if (!parse_address_list(value, list, why)) return bad(why);
    (key == "admin_to" ? s_.admin_to : s_.infra_to) = list;
  } else if (key == "infra_gather" || key == "infra_window") {
    const auto d = parse_duration(value);
    if (!d || d->count() > (key == "infra_gather" ? 86400000LL : 30LL * 86400000))
      return bad("expected seconds (infra_gather up to 86400, infra_window up to 30 days), got '" + value + "'");
    (key == "infra_gather" ? s_.infra_gather : s_.infra_window) = *d;
  } else if (key == "rate_global" || key == "rate_recipient") {
    const auto n = parse_size(value);
    if (!n || *n > 100000) return bad("expected messages per minute (0-100000), got '" + value + "'");
    (key == "rate_global" ? s_.rate_global : s_.rate_recipient) = static_cast<int>(*n);
  } else if (key == "digest") {
    set_bool(s_.digest);
  } else if (key == "digest_burst") {
    const auto n = parse_size(value);
    if (!n || *n > 10000) return bad("expected a number of messages (0-10000), got '" + value + "'");
    s_.digest_burst = static_cast<int>(*n);
  } else if (key == "digest_window" || key == "digest_quiet") {
    const auto d = parse_duration(value);
    if (!d || d->count() < 1000 || d->count() > 86400000) return bad("expected seconds (1-86400), got '" + value + "'");
    (key == "digest_window" ? s_.digest_window : s_.digest_quiet) = *d;
  } else if (key == "notify") {
    if (value != "none" && value != "failures" && value != "bad" && value != "all")
      return bad("must be none, failures, bad or all");
    s_.notify = value;
  } else if (key == "notify_floor") {
    if (value != "none" && value != "infra" && value != "failures") return bad("must be none, infra or failures");
    s_.notify_floor = value;
  } else if (key == "user_config") {
    set_bool(s_.user_config);
  } else if (key == "array_mail") {
    if (value != "digest" && value != "task") return bad("must be digest or task");
    s_.array_mail = value;
  } else if (key == "transport") {
    if (value != "smtp" && value != "sendmail" && value != "spool") return bad("must be smtp, sendmail or spool");
    s_.transport = value;
  } else if (key == "sendmail_path") {
    if (value.empty() || value[0] != '/') return bad("must be an absolute path, got '" + value + "'");
    s_.sendmail_path = value;
  } else if (key == "spool") {
    s_.spools.emplace_back(expand_home(value));
  } else if (key == "log_max") {
    const auto n = parse_size(value);
    if (!n || (*n != 0 && *n < (1ULL << 20))) return bad("expected 0 (no limit) or a size of at least 1MiB such as 2GiB, got '" + value + "'");
    s_.log_max = *n;
  } else if (key == "outbox_reserve") {
    const auto n = parse_size(value);
    if (!n || *n > (1ULL << 30)) return bad("expected a size up to 1GiB such as 32MiB, got '" + value + "'");
    s_.outbox_reserve = *n;
  } else if (key == "tail_lines") {
    const auto n = parse_size(value);
    if (!n || *n > 10000) return bad("expected a number of lines (0-10000)");
    s_.tail_lines = static_cast<int>(*n);
  } else if (key == "kernel_events") {
    set_bool(s_.kernel_events);
  } else if (key == "accounting") {
    set_bool(s_.accounting);
  } else if (key == "html") {
    set_bool(s_.html);
  } else if (key == "channels_file") {
    s_.channels_file = expand_home(value);
  } else if (key == "live") {
    set_bool(s_.live);
  } else if (key == "allow_cancel") {
    set_bool(s_.allow_cancel);
  } else if (key == "stall_after" || key == "live_interval" || key == "time_limit" || key == "cancel_after_stall") {
    const auto d = parse_duration(value);
    const bool zero_ok = key == "time_limit" || key == "cancel_after_stall";
    if (!d || d->count() < 0 || (!zero_ok && d->count() == 0))
      return bad("expected seconds, e.g. 1800 or 90s, got '" + value + "'");
    (key == "stall_after"     ? s_.stall_after
     : key == "live_interval" ? s_.live_interval
     : key == "time_limit"    ? s_.time_limit
                              : s_.cancel_after_stall) = *d;
  } else if (key == "hang_after") {
    const auto d = parse_duration(value);
    if (!d || d->count() <= 0) return bad("expected seconds, e.g. 300 or 120s, got '" + value + "'");
    s_.hang_after = *d;
  } else if (key == "artifact") {
    s_.artifacts.push_back(value);
  } else {
    problems_.push_back({where, "unknown setting '" + key + "'"});
  }
}

void Loader::apply_site_file(const std::filesystem::path& file) {
  apply_file(file);
  std::error_code ec;
  std::vector<std::filesystem::path> rules;
  for (const auto& e : std::filesystem::directory_iterator(file.parent_path() / "rules.d", ec))
    if (e.path().extension() == ".json" && e.is_regular_file(ec)) rules.push_back(e.path());
  std::sort(rules.begin(), rules.end());
  for (auto& r : rules) s_.rule_files.push_back(std::move(r));
}

Loader load_layers(const std::optional<std::filesystem::path>& config_file) {
  Loader l;
  l.apply_site_file(system_config_path());
  l.apply_file(config_file ? *config_file : user_config_path());
  l.apply_environment();
  return l;
}

}  // namespace gpualert::config
