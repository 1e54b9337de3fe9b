#include "gpualert/notifier/relay_probe.hpp"

#include <curl/curl.h>

#include <algorithm>

#include "gpualert/common/text.hpp"
#include "gpualert/notifier/password_file.hpp"
#include "relay_handle.hpp"
#include "socket_watchdog.hpp"

namespace gpualert::notify {
namespace {

struct Transcript {
  std::vector<std::string> in;   // the relay's reply lines
  std::vector<std::string> out;  // our command verbs only (never AUTH's arguments)
  bool after_auth = false;       // the next lines we send are credentials
};

std::string trim_crlf(const char* data, size_t size) {
  std::string s(data, size);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

int on_debug(CURL*, curl_infotype type, char* data, size_t size, void* user) {
  auto* t = static_cast<Transcript*>(user);
  if (type == CURLINFO_HEADER_IN) {
    std::string line = trim_crlf(data, size);
    for (std::size_t start = 0; start <= line.size();) {  // one reply may carry several lines
      const auto nl = line.find('\n', start);
      std::string one = line.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      if (!one.empty() && one.back() == '\r') one.pop_back();
      if (!one.empty()) t->in.push_back(one_line(one));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  } else if (type == CURLINFO_HEADER_OUT) {
    const std::string line = trim_crlf(data, size);
    const std::string verb = line.substr(0, line.find(' '));
    // What follows AUTH (and AUTH's own argument) may be a credential: keep the verb only.
    t->out.push_back(verb.size() <= 10 ? verb : std::string("(data)"));
  }
  return 0;
}

size_t discard(char*, size_t size, size_t nitems, void*) { return size * nitems; }

bool starts_with_code(const std::string& line, const char* code) { return line.rfind(code, 0) == 0; }

}  // namespace

RelayProbe probe_relay(const SmtpConfig& cfg) {
  RelayProbe p;
  try {
    if (cfg.url.empty()) {
      p.error = "no SMTP relay configured";
      return p;
    }
    if (!cfg.url.starts_with("smtp://") && !cfg.url.starts_with("smtps://")) {
      p.error = "relay URL must start with smtp:// or smtps://";
      return p;
    }
    if (const CURLcode rc = detail::curl_global_once(); rc != CURLE_OK) {
      p.error = std::string("curl initialisation failed: ") + curl_easy_strerror(rc);
      return p;
    }
    detail::Secret password;
    if (!cfg.user.empty()) {
      PasswordResult pw = read_password_file(cfg.password_file);
      if (!pw.ok) {
        p.error = pw.error;
        return p;
      }
      password.value = std::move(pw.password);
    }
    char errbuf[CURL_ERROR_SIZE] = {};
    Transcript t;
    SocketWatchdog watchdog(std::chrono::steady_clock::now() + cfg.timeout);
    detail::CurlHandle h(curl_easy_init());
    if (!h) {
      p.error = "curl_easy_init failed";
      return p;
    }
    CURL* c = h.get();
    detail::configure_relay(c, cfg, password, errbuf);
    watchdog.attach(c);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "NOOP");  // no MAIL, no RCPT: nothing is sent
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
    curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, on_debug);
    curl_easy_setopt(c, CURLOPT_DEBUGDATA, &t);
    const CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &p.code);

    bool in_ehlo = false;
    for (const auto& line : t.in) {
      if (p.greeting.empty() && starts_with_code(line, "220")) p.greeting = line.substr(std::min<size_t>(4, line.size()));
      if (starts_with_code(line, "250-") || (in_ehlo && starts_with_code(line, "250 "))) {
        if (in_ehlo) p.capabilities.push_back(line.substr(4));
        in_ehlo = starts_with_code(line, "250-");  // the first 250- line is the relay's name
      }
      if (starts_with_code(line, "235")) p.auth = true;
    }
    const bool starttls = std::find(t.out.begin(), t.out.end(), "STARTTLS") != t.out.end();
    p.tls = cfg.url.starts_with("smtps://") || (starttls && rc != CURLE_USE_SSL_FAILED && rc != CURLE_SSL_CONNECT_ERROR);
    if (rc == CURLE_OK) {
      p.ok = true;
    } else {
      p.error = detail::describe_failure(rc, errbuf, p.code, watchdog.expired(),
                                         static_cast<long>(cfg.timeout.count()));
    }
  } catch (const std::exception& e) {
    p.error = std::string("internal error: ") + e.what();
  }
  return p;
}

}  // namespace gpualert::notify
