#include "relay_handle.hpp"

#include <string.h>

#include <algorithm>

namespace gpualert::notify::detail {

CURLcode curl_global_once() {
  // curl_global_init is not thread-safe on every build; a function-local static
  // runs it exactly once.
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  return rc;
}

Secret::~Secret() {
  if (!value.empty()) ::explicit_bzero(value.data(), value.size());
}

long curl_timeout_ms(const SmtpConfig& cfg) {
  const long total_ms = std::max<long>(1, static_cast<long>(cfg.timeout.count()));
  return std::max<long>(1, total_ms - std::min<long>(200, total_ms / 10));
}

namespace {
template <typename T>
void set(CURL* h, CURLoption opt, T value) {
  curl_easy_setopt(h, opt, value);
}
}  // namespace

void configure_relay(CURL* c, const SmtpConfig& cfg, const Secret& password, char* errbuf) {
  const long timeout_ms = curl_timeout_ms(cfg);
  set(c, CURLOPT_ERRORBUFFER, errbuf);
  set(c, CURLOPT_URL, cfg.url.c_str());
  set(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  // No SIGALRM: the caller forwards signals to its child and must keep them.
  set(c, CURLOPT_NOSIGNAL, 1L);
  // Close (and QUIT) inside curl_easy_perform, under the watchdog, instead of
  // in a connection cache that would QUIT later with no deadline at all.
  set(c, CURLOPT_FORBID_REUSE, 1L);
  set(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  set(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  // A relay that accepts and then goes silent is abandoned, also by this rule.
  set(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  set(c, CURLOPT_LOW_SPEED_TIME, std::max<long>(1, timeout_ms / 1000));
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
}

std::string describe_failure(CURLcode rc, const char* errbuf, long code, bool timed_out, long total_ms) {
  std::string error = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
  if (timed_out) error = "timed out after " + std::to_string(total_ms) + " ms: " + error;
  if (error != curl_easy_strerror(rc)) error += " (" + std::string(curl_easy_strerror(rc)) + ")";
  if (code >= 400) error += ", SMTP reply " + std::to_string(code);
  return error;
}

}  // namespace gpualert::notify::detail
