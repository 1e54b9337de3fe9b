// Delivers stored messages with libcurl, always within cfg.timeout.
#include "gpualert/notifier/smtp_sender.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "gpualert/common/text.hpp"
#include "gpualert/notifier/address.hpp"
#include "gpualert/notifier/password_file.hpp"
#include "relay_handle.hpp"
#include "sendmail_sender.hpp"
#include "webhook_sender.hpp"
#include "socket_watchdog.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {
namespace {

using detail::CurlHandle;
using detail::Secret;

// Streams the .eml to curl; it is already CRLF and curl dot-stuffs it.
size_t read_eml(char* buf, size_t size, size_t nitems, void* userdata) {
  const int fd = *static_cast<int*>(userdata);
  for (;;) {
    const ssize_t n = ::read(fd, buf, size * nitems);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return CURL_READFUNC_ABORT;
  }
}

// Failures that say nothing about the message itself.
bool relay_level(CURLcode rc, long code) {
  switch (rc) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_USE_SSL_FAILED:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_LOGIN_DENIED:
    case CURLE_GOT_NOTHING:
      return true;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_WEIRD_SERVER_REPLY:
      // A 4xx/5xx reply to MAIL, RCPT or DATA is about this message; anything
      // else (no reply, a broken connection) is about the relay.
      return code < 400;
    default:
      return false;
  }
}

SendResult failure(std::string error, bool relay) {
  SendResult r;
  r.error = std::move(error);
  r.relay_unusable = relay;
  return r;
}

template <typename T>
void set(CURL* h, CURLoption opt, T value) {
  curl_easy_setopt(h, opt, value);
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

SendResult send_impl(const SmtpConfig& cfg, const StoredMessage& m) {
  const auto deadline = std::chrono::steady_clock::now() + cfg.timeout;
  if (cfg.url.empty()) return failure("no SMTP relay configured", true);
  if (!cfg.url.starts_with("smtp://") && !cfg.url.starts_with("smtps://")) {
    return failure("relay URL must start with smtp:// or smtps://: " + one_line(cfg.url), true);
  }
  if (!is_valid_address(m.envelope.from)) return failure("invalid sender address: " + one_line(m.envelope.from), false);
  if (m.envelope.to.empty()) return failure("no recipients", false);
  for (const std::string& to : m.envelope.to) {
    if (!is_valid_address(to)) return failure("invalid recipient address: " + one_line(to), false);
  }
  if (const CURLcode rc = detail::curl_global_once(); rc != CURLE_OK) {
    return failure(std::string("curl initialisation failed: ") + curl_easy_strerror(rc), true);
  }

  UniqueFd eml(::open(m.eml.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!eml.valid() || ::fstat(eml.get(), &st) != 0) {
    return failure("cannot open " + m.eml.string() + ": " + std::strerror(errno), false);
  }
  Secret password;
  if (!cfg.user.empty()) {
    PasswordResult pw = read_password_file(cfg.password_file);
    if (!pw.ok) return failure(pw.error, true);
    password.value = std::move(pw.password);
  }

  std::unique_ptr<curl_slist, SlistDeleter> rcpts;
  for (const std::string& to : m.envelope.to) {
    curl_slist* l = curl_slist_append(rcpts.get(), ("<" + to + ">").c_str());
    if (l == nullptr) return failure("out of memory", false);
    (void)rcpts.release();
    rcpts.reset(l);
  }
  char errbuf[CURL_ERROR_SIZE] = {};
  int fd = eml.get();
  // Everything curl points at (and the watchdog) is declared before the
  // handle, so it outlives curl_easy_cleanup.
  SocketWatchdog watchdog(deadline);
  CurlHandle h(curl_easy_init());
  if (!h) return failure("curl_easy_init failed", true);
  const long total_ms = std::max<long>(1, static_cast<long>(cfg.timeout.count()));
  CURL* c = h.get();
  detail::configure_relay(c, cfg, password, errbuf);
  watchdog.attach(c);
  set(c, CURLOPT_MAIL_FROM, ("<" + m.envelope.from + ">").c_str());
  set(c, CURLOPT_MAIL_RCPT, rcpts.get());
  set(c, CURLOPT_UPLOAD, 1L);
  set(c, CURLOPT_READFUNCTION, read_eml);
  set(c, CURLOPT_READDATA, &fd);
  set(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(st.st_size));

  const CURLcode rc = curl_easy_perform(c);
  SendResult r;
  long code = 0;
  if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK) r.smtp_code = code;
  if (rc == CURLE_OK) {
    r.ok = true;
    return r;
  }
  r.error = detail::describe_failure(rc, errbuf, code, watchdog.expired(), total_ms);
  r.relay_unusable = watchdog.expired() || relay_level(rc, code);
  return r;
}

}  // namespace

SendResult send_message(const SmtpConfig& cfg, const StoredMessage& m) {
  if (!m.channel.empty()) return post_to_channel(cfg, m);
  // "sendmail:PROGRAM": the node's MTA takes it instead of a relay.
  if (cfg.url.rfind("sendmail:", 0) == 0) {
    const std::string program = cfg.url.substr(9);
    return send_with_sendmail(program.empty() ? "/usr/sbin/sendmail" : program, m, cfg.timeout);
  }
  try {
    return send_impl(cfg, m);
  } catch (const std::exception& e) {
    return failure(std::string("internal error: ") + e.what(), false);
  } catch (...) {
    return failure("internal error", false);
  }
}

}  // namespace gpualert::notify
