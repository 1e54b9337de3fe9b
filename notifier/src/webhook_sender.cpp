#include "webhook_sender.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "gpualert/common/text.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "gpualert/notifier/channel_book.hpp"
#include "relay_handle.hpp"
#include "socket_watchdog.hpp"

namespace gpualert::notify {
namespace {

constexpr std::size_t kMaxPayload = 1 << 20;
constexpr std::size_t kMaxAnswer = 2048;  // of the server's reply, for the error text

SendResult failure(std::string error, long http_code = 0) {
  SendResult r;
  r.http = true;
  r.smtp_code = http_code;
  r.error = std::move(error);
  return r;
}

size_t keep_answer(char* data, size_t size, size_t n, void* out) {
  auto* s = static_cast<std::string*>(out);
  const size_t len = size * n;
  if (s->size() < kMaxAnswer) s->append(data, std::min(len, kMaxAnswer - s->size()));
  return len;
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

SendResult post(const SmtpConfig& cfg, const StoredMessage& m) {
  const auto deadline = std::chrono::steady_clock::now() + cfg.timeout;
  std::string why;
  const auto book = read_channel_book(cfg.channels_file, why);
  if (!book) return failure("cannot read the channels: " + why);
  const auto it = book->urls.find(m.channel);
  // Refused for good (404): `gpualert outbox retry` sends it once the admin has defined it.
  if (it == book->urls.end())
    return failure(m.channel + " is not defined in the channels file " + cfg.channels_file.string(), 404);

  UniqueFd fd(::open(m.eml.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return failure("cannot open " + m.eml.string() + ": " + std::strerror(errno));
  std::string payload(kMaxPayload + 1, '\0');
  const long n = read_full(fd.get(), payload.data(), payload.size());
  if (n < 0) return failure("cannot read " + m.eml.string() + ": " + std::strerror(errno));
  if (static_cast<std::size_t>(n) > kMaxPayload) return failure("the stored post is larger than 1 MiB", 413);
  payload.resize(static_cast<std::size_t>(n));

  if (const CURLcode rc = detail::curl_global_once(); rc != CURLE_OK)
    return failure(std::string("curl initialisation failed: ") + curl_easy_strerror(rc));
  std::unique_ptr<curl_slist, SlistDeleter> headers(curl_slist_append(nullptr, "Content-Type: application/json"));
  if (!headers) return failure("out of memory");
  std::string answer;
  char errbuf[CURL_ERROR_SIZE] = {};
  SocketWatchdog watchdog(deadline);  // declared before the handle: it outlives curl_easy_cleanup
  detail::CurlHandle h(curl_easy_init());
  if (!h) return failure("curl_easy_init failed");
  CURL* c = h.get();
  const long ms = detail::curl_timeout_ms(cfg);
  curl_easy_setopt(c, CURLOPT_URL, it->second.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect could carry the post elsewhere
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  if (!cfg.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, cfg.ca_file.c_str());
  watchdog.attach(c);
  const CURLcode rc = curl_easy_perform(c);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  if (rc == CURLE_OK && code >= 200 && code <= 299) {
    SendResult r;
    r.ok = true;
    r.http = true;
    r.smtp_code = code;
    return r;
  }
  // The URL is a secret: errors name the channel, never the URL (curl's text may quote it).
  if (rc != CURLE_OK)
    return failure(m.channel + ": " + (watchdog.expired() ? std::string("timed out") : curl_easy_strerror(rc)));
  return failure(m.channel + ": HTTP " + std::to_string(code) + (answer.empty() ? "" : ": " + one_line(answer, 200)),
                 code);
}

}  // namespace

SendResult post_to_channel(const SmtpConfig& cfg, const StoredMessage& m) {
  try {
    return post(cfg, m);
  } catch (const std::exception& e) {
    return failure(std::string("internal error: ") + e.what());
  }
}

}  // namespace gpualert::notify
