#include "gpualert/notifier/send_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <sstream>

#include "gpualert/common/helper_program.hpp"
#include "gpualert/common/run_program.hpp"

#ifndef GPUALERT_LIBEXECDIR
#define GPUALERT_LIBEXECDIR "/usr/libexec"
#endif

namespace gpualert::notify {
namespace fs = std::filesystem;

fs::path send_program() {
  if (const char* p = std::getenv("GPUALERT_SEND"); p && *p == '/') return p;
  return helper_program("gpualert-send", GPUALERT_LIBEXECDIR);
}

std::vector<std::string> send_arguments(const SmtpConfig& cfg, const Outbox& box) {
  return send_arguments(cfg, box.dir());
}

std::vector<std::string> relay_arguments(const SmtpConfig& cfg) {
  std::vector<std::string> a = {send_program().string(), "--smtp", cfg.url, "--timeout-ms",
                                std::to_string(cfg.timeout.count()), "--tls",
                                cfg.tls == TlsMode::Required ? "required" : cfg.tls == TlsMode::Off ? "off" : "auto"};
  if (!cfg.user.empty()) a.insert(a.end(), {"--user", cfg.user});
  if (!cfg.password_file.empty()) a.insert(a.end(), {"--password-file", cfg.password_file.string()});
  if (!cfg.ca_file.empty()) a.insert(a.end(), {"--ca-file", cfg.ca_file.string()});
  if (!cfg.verify_peer) a.push_back("--no-verify-peer");
  if (!cfg.channels_file.empty()) a.insert(a.end(), {"--channels", cfg.channels_file.string()});
  return a;
}

std::vector<std::string> send_arguments(const SmtpConfig& cfg, const std::filesystem::path& outbox_dir) {
  std::vector<std::string> a = relay_arguments(cfg);
  a.insert(a.end(), {"--outbox", outbox_dir.string()});
  for (const auto& admin : cfg.admin_to) a.insert(a.end(), {"--admin", admin});
  a.insert(a.end(), {"--retry-base", std::to_string(cfg.retry_base.count()), "--retry-max",
                     std::to_string(cfg.retry_max.count()), "--expire-after", std::to_string(cfg.expire_after.count())});
  return a;
}

namespace {

// Slack for starting the program and writing its answer, on top of the SMTP timeout.
constexpr auto kProgramSlack = std::chrono::seconds(5);

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

SendResult send_stored(const SmtpConfig& cfg, const Outbox& box, const StoredMessage& m) {
  SendResult r;
  auto args = send_arguments(cfg, box);
  args.insert(args.end(), {"--id", m.id});
  const auto out = run_program(args, cfg.timeout + kProgramSlack, 64 * 1024);
  if (!out) {
    r.error = "gpualert-send did not finish in time (or could not be started: " + args[0] + ")";
    r.relay_unusable = true;
    return r;
  }
  // Answer: "ok" or "error <code> <message>" on the first line.
  std::istringstream in(first_line(out->out));
  std::string word;
  in >> word;
  if (word == "ok") {
    r.ok = true;
    return r;
  }
  if (word == "error") {
    std::string code;
    in >> code;
    r.http = code.rfind("http:", 0) == 0;  // a channel's HTTP status, not an SMTP reply
    try {
      r.smtp_code = std::stol(r.http ? code.substr(5) : code);
    } catch (const std::exception&) {
      r.smtp_code = 0;
    }
    std::getline(in, r.error);
    if (!r.error.empty() && r.error[0] == ' ') r.error.erase(0, 1);
    r.relay_unusable = r.smtp_code == 0 && !r.http;
    return r;
  }
  r.error = "gpualert-send failed (" + std::to_string(WIFEXITED(out->wait_status) ? WEXITSTATUS(out->wait_status) : -1) +
            "): " + first_line(out->err);
  r.relay_unusable = true;
  return r;
}

FlushReport flush_stored(const SmtpConfig& cfg, const Outbox& box) {
  FlushReport rep;
  auto args = send_arguments(cfg, box);
  args.push_back("--all");
  const auto pending = box.pending().size();
  const auto out = run_program(args, (cfg.timeout + kProgramSlack) * static_cast<int>(pending + 1), 1 << 20);
  if (!out) {
    rep.failed = static_cast<int>(pending);
    rep.errors.push_back("gpualert-send did not finish in time (or could not be started: " + args[0] + ")");
    return rep;
  }
  // "summary <sent> <failed> <deferred> <busy>", then "failed <id>: <reason>" lines.
  std::istringstream in(out->out);
  std::string line;
  bool summary = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string what;
    ls >> what;
    if (what == "summary") {
      ls >> rep.sent >> rep.failed >> rep.deferred >> rep.busy;
      summary = true;
    } else if (what == "failed") {
      std::string rest;
      std::getline(ls, rest);
      rep.errors.push_back(rest.empty() ? rest : rest.substr(1));
    }
  }
  if (!summary) {
    rep.failed = static_cast<int>(pending);
    rep.errors.push_back("gpualert-send gave no summary: " + first_line(out->err));
  }
  return rep;
}

}  // namespace gpualert::notify
