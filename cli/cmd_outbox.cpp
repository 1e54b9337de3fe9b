// `gpualert outbox list|flush`: what is waiting, and a retry of all of it.
#include <iostream>

#include "commands.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/send_process.hpp"
#include "gpualert/report/delivery.hpp"

namespace gpualert::cli {

int outbox_command(const OutboxOptions& o) {
  config::Loader loader = config::load_layers(o.config_file);
  for (const auto& [key, value, flag] : o.flags) loader.apply_value(key, value, flag);
  for (const auto& p : loader.problems()) std::cerr << "gpualert: config: " << p.text() << "\n";
  const config::Settings& s = loader.settings();
  try {
    notify::Outbox box(s.outbox);
    if (o.action == "list") {
      const auto pending = box.pending();
      for (const auto& m : pending) {
        std::cout << m.id << "  attempts=" << m.attempts;
        if (!m.last_error.empty()) std::cout << "  last error: " << m.last_error;
        std::cout << "\n  " << m.eml.string() << "\n";
      }
      std::cout << pending.size() << " message(s) pending in " << box.dir().string() << "\n";
      return 0;
    }
    if (s.smtp_url.empty()) {
      std::cerr << "gpualert outbox flush: no relay configured (set smtp_url, GPUALERT_SMTP_URL or --smtp)\n";
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
