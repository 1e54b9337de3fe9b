#pragma once
// What every libcurl transaction with the relay shares, whether it sends a
// message or only checks that the relay answers: URL, protocols, deadlines,
// TLS and AUTH. One place, so the check sees exactly what a send would.
#include <curl/curl.h>

#include <memory>
#include <string>

#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify::detail {

// curl_global_init exactly once, whichever thread comes first.
CURLcode curl_global_once();

struct CurlDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

// Wipes the password copy when the transaction is over, whichever way it ends.
struct Secret {
  std::string value;
  ~Secret();
};

// curl's own limit, a little before the watchdog's deadline so that curl's
// clearer error normally wins.
long curl_timeout_ms(const SmtpConfig& cfg);

// Sets URL, protocols, no signals, no connection reuse, deadlines, TLS mode,
// CA and verification, and AUTH (PASSWORD must outlive the transaction).
void configure_relay(CURL* c, const SmtpConfig& cfg, const Secret& password, char* errbuf);

// "timed out ..." / curl's message / ", SMTP reply N": one readable line.
std::string describe_failure(CURLcode rc, const char* errbuf, long code, bool timed_out, long total_ms);

}  // namespace gpualert::notify::detail
