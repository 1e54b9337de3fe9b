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
#include "sendmail_sender.hpp"
#include "socket_watchdog.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {
namespace {

// curl_global_init is not thread-safe on every build; a function-local static
// runs it exactly once, whichever thread comes first.
CURLcode global_init() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  return rc;
}

struct CurlDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// Wipes the password copy when the send is over, whichever way it ends.
struct Secret {
  std::string value;
  ~Secret() {
    if (!value.empty()) ::explicit_bzero(value.data(), value.size());
  }
};

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
  if (const CURLcode rc = global_init(); rc != CURLE_OK) {
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
  std::unique_ptr<CURL, CurlDeleter> h(curl_easy_init());
  if (!h) return failure("curl_easy_init failed", true);
  // curl's own limits end slightly before the watchdog's deadline so that its
  // clearer error message normally wins; the watchdog only catches the waits
  // curl leaves unbounded.
  const long total_ms = std::max<long>(1, static_cast<long>(cfg.timeout.count()));
  const long timeout_ms = std::max<long>(1, total_ms - std::min<long>(200, total_ms / 10));

  CURL* c = h.get();
  set(c, CURLOPT_ERRORBUFFER, errbuf);
  set(c, CURLOPT_URL, cfg.url.c_str());
  set(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  // No SIGALRM: the caller forwards signals to its child and must keep them.
  set(c, CURLOPT_NOSIGNAL, 1L);
  // Close (and QUIT) inside curl_easy_perform, under the watchdog, instead of
  // in a connection cache that would QUIT later with no deadline at all.
  set(c, CURLOPT_FORBID_REUSE, 1L);
  watchdog.attach(c);
  set(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  set(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  // A relay that accepts and then goes silent is abandoned, also by this rule.
  set(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  set(c, CURLOPT_LOW_SPEED_TIME, std::max<long>(1, timeout_ms / 1000));
  set(c, CURLOPT_MAIL_FROM, ("<" + m.envelope.from + ">").c_str());
  set(c, CURLOPT_MAIL_RCPT, rcpts.get());
  set(c, CURLOPT_UPLOAD, 1L);
  set(c, CURLOPT_READFUNCTION, read_eml);
  set(c, CURLOPT_READDATA, &fd);
  set(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(st.st_size));
  switch (cfg.tls) {
    case TlsMode::Auto: set(c, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_TRY)); break;
    case TlsMode::Required: set(c, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL)); break;
    case TlsMode::Off: set(c, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_NONE)); break;
  }
  if (!cfg.ca_file.empty()) set(c, CURLOPT_CAINFO, cfg.ca_file.c_str());
  set(c, CURLOPT_SSL_VERIFYPEER, cfg.verify_peer ? 1L : 0L);
  set(c, CURLOPT_SSL_VERIFYHOST, cfg.verify_peer ? 2L : 0L);
  if (!cfg.user.empty()) {
    set(c, CURLOPT_USERNAME, cfg.user.c_str());
    set(c, CURLOPT_PASSWORD, password.value.c_str());  // curl copies it; it is never logged
  }

  const CURLcode rc = curl_easy_perform(c);
  SendResult r;
  long code = 0;
  if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK) r.smtp_code = code;
  if (rc == CURLE_OK) {
    r.ok = true;
    return r;
  }
  r.error = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
  if (watchdog.expired()) r.error = "timed out after " + std::to_string(total_ms) + " ms: " + r.error;
  if (r.error != curl_easy_strerror(rc)) r.error += " (" + std::string(curl_easy_strerror(rc)) + ")";
  if (code >= 400) r.error += ", SMTP reply " + std::to_string(code);
  r.relay_unusable = watchdog.expired() || relay_level(rc, code);
  return r;
}

}  // namespace

SendResult send_message(const SmtpConfig& cfg, const StoredMessage& m) {
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
