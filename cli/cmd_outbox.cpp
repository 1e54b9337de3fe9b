// `gpualert outbox list|show|retry|purge|flush`: what is waiting or was given up,
// one message in full, putting one back in the queue, clearing old records, and
// sending everything now.
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "gpualert/common/durable_file.hpp"
#include "gpualert/common/fallback_dir.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/send_process.hpp"
#include "gpualert/report/delivery.hpp"

namespace gpualert::cli {
namespace {

std::string when(std::chrono::system_clock::time_point t) {
  if (t.time_since_epoch().count() == 0) return "-";
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(t - std::chrono::system_clock::now()).count();
  return left <= 0 ? "now" : "in " + std::to_string(left) + " s";
}

void list_one(const notify::StoredMessage& m, const char* state) {
  std::string to;
  for (const auto& a : m.envelope.to) to += (to.empty() ? "" : ",") + a;
  std::cout << m.id << "  " << state << "  to=" << to << (m.job.empty() ? "" : "  job=" + m.job)
            << "  attempts=" << m.attempts;
  // A folded message is not sent by itself: it waits for its digest, which the sender
  // assembles once the burst or array has been quiet for a while.
  if (std::string(state) == "pending")
    std::cout << (m.digest_key.empty() ? "  next=" + when(m.next_attempt) : "  held for digest " + m.digest_key);
  if (!m.last_error.empty()) std::cout << "  last error: " << m.last_error;
  std::cout << "\n  " << m.eml.string() << "\n";
}

}  // namespace

int outbox_command(const OutboxOptions& o) {
  config::Loader loader = load_settings(o.config_file, o.flags);
  for (const auto& p : loader.problems()) std::cerr << "gpualert: config: " << p.text() << "\n";
  const config::Settings& s = loader.settings();
  try {
    notify::Outbox box(s.outbox);
    if (o.action == "list") {
      const auto pending = box.pending();
      const auto failed = box.failed();
      for (const auto& m : pending) list_one(m, "pending");
      for (const auto& m : failed) list_one(m, "failed");
      std::cout << pending.size() << " message(s) pending, " << failed.size() << " failed, in "
                << box.dir().string() << "\n";
      // What could not be stored in the configured outbox went to the private fallback.
      std::error_code ec;
      const auto fallback = fallback_dir_path() / "outbox";
      if (fallback != box.dir() && std::filesystem::is_directory(fallback / "pending", ec)) {
        const notify::Outbox fb(fallback);
        const auto fp = fb.pending();
        for (const auto& m : fp) list_one(m, "pending");
        std::cout << fp.size() << " more pending in the fallback outbox " << fallback.string()
                  << " (the sender serves it too)\n";
      }
      return 0;
    }
    if (o.action == "show" || o.action == "retry") {
      if (o.id.empty()) {
        std::cerr << "gpualert outbox " << o.action << ": give a message id (see `gpualert outbox list`)\n";
        return 2;
      }
      if (o.action == "retry") {
        if (!box.retry(o.id)) {
          std::cerr << "gpualert outbox retry: no pending or failed message " << o.id << "\n";
          return 1;
        }
        std::cout << o.id << " is pending again, due now\n";
        return 0;
      }
      for (const char* sub : {"pending", "failed", "sent"}) {
        const auto meta = box.dir() / sub / (o.id + ".json");
        if (o.id.find('/') != std::string::npos || !std::filesystem::exists(meta)) continue;
        std::cout << "state: " << sub << "\n" << read_file(meta);
        std::ifstream eml(box.dir() / sub / (o.id + ".eml"));
        std::string line;
        std::cout << "headers:\n";
        while (std::getline(eml, line) && line != "\r" && !line.empty()) std::cout << "  " << one_line(line, 300) << "\n";
        return 0;
      }
      std::cerr << "gpualert outbox show: no message " << o.id << "\n";
      return 1;
    }
    if (o.action == "purge") {
      const auto n = box.purge(std::chrono::hours(24) * o.older_than_days);
      std::cout << n << " sent or failed message(s) older than " << o.older_than_days << " days removed\n";
      return 0;
    }
    // Without a relay the channels' posts can still go (the mails wait).
    if (report::delivery_url(s).empty() && !std::filesystem::exists(s.channels_file)) {
      std::cerr << "gpualert outbox flush: no relay configured (set smtp_url, GPUALERT_SMTP_URL or --smtp, or transport = sendmail)\n";
      return 2;
    }
    const notify::FlushReport r = notify::flush_stored(report::smtp_config(s), box);
    for (const auto& e : r.errors) std::cerr << "gpualert: not sent: " << e << "\n";
    std::cout << r.sent << " sent, " << (r.failed + r.deferred + r.busy) << " still pending\n";
    return r.failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gpualert outbox: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace gpualert::cli
