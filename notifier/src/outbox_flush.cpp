#include "gpualert/notifier/outbox_flush.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <functional>

#include "gpualert/common/unique_fd.hpp"
#include "gpualert/notifier/admin_notice.hpp"
#include "gpualert/notifier/delivery_log.hpp"

namespace gpualert::notify {
namespace {

// True when M is still a pending message (another pass may have moved it).
bool still_pending(int fd, const StoredMessage& m) {
  struct stat a {};
  struct stat b {};
  return ::fstat(fd, &a) == 0 && ::stat(m.eml.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

std::string hours(std::chrono::seconds s) {
  const long long h = s.count() / 3600;
  return h >= 1 ? std::to_string(h) + " h" : std::to_string(s.count()) + " s";
}

class Pass {
 public:
  Pass(Outbox& box, const SmtpConfig& cfg, const FlushOptions& opt) : box_(box), cfg_(cfg), opt_(opt) {}

  void run() {
    if (opt_.sender) {
      box_.mark_sender_pass();
      for (const StoredMessage& d : assemble_digests(box_, opt_.digests, std::chrono::system_clock::now()))
        log_delivery(d, {"stored", "", "a digest of " + d.record.at("digest"), 0});
      for (const StoredMessage& d : assemble_infra(box_, opt_.infra, std::chrono::system_clock::now()))
        log_delivery(d, {"stored", "", "the admins' message of " + d.record.at("digest"), 0});
    }
    std::vector<std::string> notices;
    bool relay_down = false;
    for (StoredMessage& m : box_.pending()) {
      if (!opt_.only_id.empty() && m.id != opt_.only_id) continue;
      try_one(m, relay_down, notices);
    }
    // The notices this pass wrote go out with it (a cron'd --once may not run again soon).
    for (StoredMessage& m : box_.pending())
      if (std::find(notices.begin(), notices.end(), m.id) != notices.end()) try_one(m, relay_down, notices);
  }

  FlushReport report;

 private:
  void try_one(StoredMessage& m, bool& relay_down, std::vector<std::string>& notices) {
    UniqueFd lock(::open(m.eml.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!lock.valid()) return;  // sent and moved by another pass meanwhile
    if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
      ++report.busy;
      return;
    }
    if (!still_pending(lock.get(), m)) return;
    if (!m.digest_key.empty()) {  // held for its digest: it goes out inside it
      ++report.folded;
      return;
    }
    const auto now = std::chrono::system_clock::now();
    const auto age = now - m.created;
    if (opt_.policy.expire_after.count() > 0 && m.created.time_since_epoch().count() > 0 &&
        age > opt_.policy.expire_after) {
      give_up(m, "expired: not delivered within " + hours(opt_.policy.expire_after) + " (" +
                     std::to_string(m.attempts) + " attempts; last error: " +
                     (m.last_error.empty() ? "none" : m.last_error) + ")",
              m.last_code, "expired", notices);
      return;
    }
    if (opt_.due_only && m.next_attempt > now) {
      ++report.not_due;
      return;
    }
    // A dead relay says nothing of a channel's web server, and a channel's failure nothing of the relay.
    const bool post = !m.channel.empty();
    const std::string via = post ? m.channel : cfg_.url;
    if (relay_down && !post) {
      ++report.deferred;
      return;
    }
    if (opt_.limiter &&
        !opt_.limiter->take(m.envelope.to.empty() ? "" : m.envelope.to.front(), std::chrono::steady_clock::now())) {
      ++report.limited;
      return;
    }
    const SendResult r = send_message(cfg_, m);
    if (r.ok) {
      ++report.sent;
      log_delivery(m, {"sent", via, "", post ? 200 : 250});
      try {
        box_.mark_sent(m);
      } catch (const std::exception& e) {
        report.errors.push_back(m.id + ": sent, but " + e.what());
      }
      return;
    }
    ++report.failed;
    report.last_failure = r;
    report.errors.push_back(m.id + ": " + r.error);
    if (permanent_failure(r)) {
      ++m.attempts;
      give_up(m, "refused by the relay: " + r.error, r.smtp_code, "failed", notices);
      return;
    }
    relay_down = relay_down || (r.relay_unusable && !post);
    try {
      const auto next =
          next_attempt(opt_.policy, m.attempts + 1, now, std::hash<std::string>{}(m.id));
      box_.defer(m, r.error, r.smtp_code, next);
      log_delivery(m, {"deferred", via, r.error, r.smtp_code});
    } catch (const std::exception& e) {
      report.errors.push_back(m.id + ": cannot record the failure: " + e.what());
    }
  }

  void give_up(StoredMessage& m, const std::string& why, long code, const char* outcome,
               std::vector<std::string>& notices) {
    try {
      box_.mark_failed(m, why, code);
    } catch (const std::exception& e) {
      report.errors.push_back(m.id + ": cannot move to failed/: " + e.what());
      return;
    }
    ++report.gave_up;
    log_delivery(m, {outcome, m.channel.empty() ? cfg_.url : m.channel, why, code});
    if (m.notice || opt_.admin_to.empty()) return;  // a notice's own failure makes no other
    try {
      const StoredMessage n = box_.store(admin_notice(m, why, opt_.admin_to, opt_.admin_from));
      notices.push_back(n.id);
      log_delivery(n, {"stored", "", "notice: " + m.id + " " + outcome, 0});
    } catch (const std::exception& e) {
      report.errors.push_back(m.id + ": cannot store the notice to the admins: " + e.what());
    }
  }

  Outbox& box_;
  const SmtpConfig& cfg_;
  const FlushOptions& opt_;
};

}  // namespace

FlushReport flush_outbox(Outbox& outbox, const SmtpConfig& cfg, const FlushOptions& opt) {
  Pass pass(outbox, cfg, opt);
  try {
    outbox.clean_garbage();
    pass.run();
  } catch (const std::exception& e) {
    pass.report.errors.push_back(std::string("outbox: ") + e.what());
  }
  return pass.report;
}

FlushReport flush_outbox(Outbox& outbox, const SmtpConfig& cfg, const std::string& only_id) {
  FlushOptions opt;
  opt.only_id = only_id;
  return flush_outbox(outbox, cfg, opt);
}

}  // namespace gpualert::notify
