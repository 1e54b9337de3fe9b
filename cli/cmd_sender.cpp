// `gpualert sender [--once]`: the delivery service. It becomes gpualert-send (the
// program that links libcurl) serving the outbox and every configured spool, so
// that a service manager's stop signal reaches the process that sends.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "gpualert/common/fallback_dir.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/send_process.hpp"
#include "gpualert/report/delivery.hpp"

namespace gpualert::cli {
namespace {

std::string secs(std::chrono::milliseconds d) { return std::to_string(std::max<long long>(1, d.count() / 1000)); }

}  // namespace

int sender_command(const SenderOptions& o) {
  config::Loader loader = load_settings(o.config_file, o.flags);
  for (const auto& p : loader.problems()) std::cerr << "gpualert: config: " << p.text() << "\n";
  const config::Settings& s = loader.settings();
  if (report::delivery_url(s).empty() && !std::filesystem::exists(s.channels_file)) {
    std::cerr << "gpualert sender: no relay configured (set smtp_url, GPUALERT_SMTP_URL or --smtp, or transport = sendmail)\n";
    return 2;
  }
  try {
    // Not made here: an outbox that cannot be used (read-only, removed) is reported by
    // gpualert-send at each pass while the others are served.
    std::vector<std::string> args = notify::send_arguments(report::smtp_config(s), s.outbox);
    // What jobs of this user could not store in the configured outbox waits in the fallback.
    std::error_code ec;
    const auto fallback = fallback_dir_path() / "outbox";
    if (std::filesystem::is_directory(fallback / "pending", ec) && fallback != s.outbox)
      args.insert(args.end(), {"--outbox", private_fallback_dir().string() + "/outbox"});
    for (const auto& spool : s.spools) args.insert(args.end(), {"--outbox", spool.string()});
    args.insert(args.end(), {"--rate-global", std::to_string(s.rate_global),
                             "--rate-recipient", std::to_string(s.rate_recipient), "--interval",
                             secs(s.sender_interval), "--digest-quiet", secs(s.digest_quiet), "--digest-window",
                             secs(s.digest_window), "--infra-gather", secs(s.infra_gather), "--infra-window",
                             secs(s.infra_window)});
    if (!s.from.empty()) args.insert(args.end(), {"--admin-from", s.from});
    args.push_back(o.once ? "--once" : "--serve");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(argv[0], argv.data());
    std::cerr << "gpualert sender: cannot start " << args[0] << ": " << std::strerror(errno) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gpualert sender: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace gpualert::cli
