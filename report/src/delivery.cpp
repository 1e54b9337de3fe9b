#include "gpualert/report/delivery.hpp"

#include "gpualert/common/fallback_dir.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/notifier/delivery_log.hpp"
#include "gpualert/notifier/digest.hpp"
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/retry_policy.hpp"
#include "gpualert/notifier/send_process.hpp"

namespace gpualert::report {

std::string delivery_url(const config::Settings& s) {
  return s.transport == "sendmail" ? "sendmail:" + s.sendmail_path.string() : s.smtp_url;
}

notify::SmtpConfig smtp_config(const config::Settings& s) {
  notify::SmtpConfig c;
  c.url = delivery_url(s);
  c.tls = s.smtp_tls == "required" ? notify::TlsMode::Required
          : s.smtp_tls == "off"    ? notify::TlsMode::Off
                                   : notify::TlsMode::Auto;
  c.user = s.smtp_user;
  c.password_file = s.smtp_password_file;
  c.ca_file = s.smtp_ca_file;
  c.verify_peer = s.smtp_verify_peer;
  c.timeout = s.send_timeout;
  c.admin_to = s.admin_to;
  c.channels_file = s.channels_file;
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  c.retry_base = std::max(seconds(1), duration_cast<seconds>(s.retry_base));
  c.retry_max = std::max(seconds(1), duration_cast<seconds>(s.retry_max));
  c.expire_after = std::max(seconds(1), duration_cast<seconds>(s.expire_after));
  return c;
}

namespace {

// A channel's post once it is safe in the outbox (the configured one, else the private fallback).
struct StoredPost {
  std::string channel;
  std::optional<notify::Outbox> box;
  notify::StoredMessage m;
  std::string failed;  // why it could not be stored
};

// All posts are stored before anything is sent: a deadline met while the mail is sent
// must not cost a channel its post.
std::vector<StoredPost> store_posts(const std::vector<notify::Message>& posts, const config::Settings& s) {
  std::vector<StoredPost> out;
  for (const notify::Message& p : posts) {
    StoredPost sp;
    sp.channel = p.channel;
    try {
      try {
        sp.box.emplace(s.outbox);
        sp.m = sp.box->store(p);
      } catch (const std::exception&) {
        sp.box.emplace(private_fallback_dir() / "outbox");
        sp.m = sp.box->store(p);
      }
    } catch (const std::exception& e) {
      sp.box.reset();
      sp.failed = e.what();
    }
    out.push_back(std::move(sp));
  }
  return out;
}

// Then each is posted, unless the site's sender does it (transport = spool). A post needs no relay.
void send_posts(std::vector<StoredPost>& posts, const config::Settings& s, Delivery& d) {
  for (StoredPost& p : posts) {
    std::string line = p.channel + ": ";
    if (!p.box) {
      line += "NOT stored: " + p.failed;
    } else if (s.transport == "spool") {
      line += "queued for the site's sender: " + p.m.eml.string();
    } else if (const notify::SendResult r = notify::send_stored(smtp_config(s), *p.box, p.m); r.ok) {
      line += "posted";
    } else if (notify::permanent_failure(r)) {
      line += "NOT posted, refused (" + r.error + "); kept in " + (p.box->dir() / "failed").string() +
              "; after fixing the cause: `gpualert outbox retry " + p.m.id + "`";
    } else {
      line += "NOT posted yet (" + r.error + "); kept in the outbox, the sender retries it";
    }
    if (p.box && d.no_mail) d.stored = true;
    d.posts.push_back(line);
  }
}

}  // namespace

Delivery deliver(const notify::Message& msg, const config::Settings& s,
                 const std::function<std::optional<notify::Message>()>& fuller,
                 const std::vector<notify::Message>& posts) {
  Delivery d;
  if (msg.envelope.to.empty() && !posts.empty()) {
    d.no_mail = true;
    auto stored_posts = store_posts(posts, s);
    send_posts(stored_posts, s, d);
    return d;
  }
  std::vector<StoredPost> stored_posts;
  try {
    std::optional<notify::Outbox> where;
    notify::StoredMessage stored;
    try {
      where.emplace(s.outbox);
      where->keep_reserve(s.outbox_reserve);
      stored = where->store(msg);
      where->keep_reserve(s.outbox_reserve);  // restored after use, when there is room again
    } catch (const std::exception& e) {
      // The configured outbox cannot take it (read-only, removed, full past its reserve):
      // the user's private fallback can; the sender and `gpualert outbox` look there too.
      where.emplace(private_fallback_dir() / "outbox");
      stored = where->store(msg);
      d.fallback_reason = e.what();
    }
    notify::Outbox& box = *where;
    d.stored = true;
    d.eml = stored.eml;
    d.id = stored.id;
    if (fuller) {
      try {
        if (const auto more = fuller()) box.replace(stored, *more);
      } catch (const std::exception&) {
        // The quick message is stored and complete: it is the one sent.
      }
    }
    // One of a burst, or a later task of an array: held for the digest the sender sends.
    notify::DigestPolicy dp;
    dp.enabled = s.digest;
    dp.burst = s.digest_burst;
    dp.window = std::chrono::duration_cast<std::chrono::seconds>(s.digest_window);
    dp.array_per_task = s.array_mail == "task";
    if (const auto key = notify::fold_key(box, stored, dp, std::chrono::system_clock::now())) {
      box.fold(stored, *key);
      notify::log_delivery(stored, {"folded", "", "into the digest " + *key, 0});
      d.folded = true;
      // One of a burst: the digest mail lists it; the channels are not flooded either.
      for (const auto& p : posts) d.posts.push_back(p.channel + ": not posted: one of a burst, listed in the digest mail");
      return d;
    }
    stored_posts = store_posts(posts, s);
    if (s.transport != "spool" && !delivery_url(s).empty()) {
      d.attempted = true;
      const notify::SendResult r = notify::send_stored(smtp_config(s), box, stored);
      // gpualert-send has already moved the message to sent/ or recorded the failure.
      if (r.ok) {
        d.sent = true;
        d.eml = box.dir() / "sent" / stored.eml.filename();
      } else {
        d.error = r.error;
        d.refused = notify::permanent_failure(r);
        if (d.refused) d.eml = box.dir() / "failed" / stored.eml.filename();
      }
    }
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  // The mail first; the posts after it (even when the mail could not be stored).
  if (!d.folded) {
    if (stored_posts.empty()) stored_posts = store_posts(posts, s);
    send_posts(stored_posts, s, d);
  }
  return d;
}

std::string Delivery::describe(const config::Settings& s) const {
  std::string channels;
  for (const auto& p : posts) channels += (channels.empty() ? "" : "; ") + p;
  if (no_mail) return channels.empty() ? "nothing to send" : channels;
  const std::string mail = describe_mail(s);
  return channels.empty() ? mail : mail + "; " + channels;
}

std::string Delivery::describe_mail(const config::Settings& s) const {
  if (!stored) return "NOT stored: " + error + " (the log and verdict are still in the run directory)";
  if (folded) return "held for a digest of failures (the sender sends it once the burst is over): " + eml.string();
  const std::string fb =
      fallback_reason.empty() ? "" : " (in the fallback outbox: the configured one could not take it: " +
                                         fallback_reason + ")";
  if (!fb.empty() && !attempted) return "stored" + fb + ": " + eml.string();
  if (!attempted && s.transport == "spool")
    return "queued in the spool for the site's sender (gpualert sender): " + eml.string();
  if (!attempted) return "no relay configured; the message is in the local outbox: " + eml.string();
  if (sent) return "sent to " + [&] {
    std::string t;
    for (const auto& a : config::mail_addresses(s.to)) t += (t.empty() ? "" : ", ") + a;
    return t;
  }() + " via " + (s.transport == "sendmail" ? "the node's MTA (" + s.sendmail_path.string() + ")" : s.smtp_url);
  if (refused)
    return "NOT sent: refused by the relay (" + error + "); kept in " + eml.string() + "; after fixing the cause: " +
           "`gpualert outbox retry " + id + "`";
  return "NOT sent (" + error + "); kept in the outbox" + fb + ": " + eml.string() +
         "; the sender retries it, or `gpualert outbox flush` now";
}

}  // namespace gpualert::report
