#pragma once
// Enforces an absolute deadline on libcurl's sockets. libcurl's own timeouts
// do not cover every wait: after a failed SMTP transaction it sends QUIT and
// waits up to 120 s for the reply (pingpong RESP_TIMEOUT, ignoring
// CURLOPT_TIMEOUT_MS), so a relay that hangs mid-transaction would hold us far
// past cfg.timeout. At the deadline the watchdog shuts down every socket curl
// opened through it; any blocked wait then returns at once.
#include <curl/curl.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace gpualert::notify {

class SocketWatchdog {
 public:
  // Starts the watchdog thread (with all signals blocked: signals meant for
  // the process must keep reaching the thread that waits for them).
  explicit SocketWatchdog(std::chrono::steady_clock::time_point deadline);
  ~SocketWatchdog();  // stops the thread
  SocketWatchdog(const SocketWatchdog&) = delete;
  SocketWatchdog& operator=(const SocketWatchdog&) = delete;

  // Installs CURLOPT_OPENSOCKETFUNCTION / CURLOPT_CLOSESOCKETFUNCTION on H.
  void attach(CURL* h);

  bool expired() const;

 private:
  static curl_socket_t open_socket(void* self, curlsocktype purpose, curl_sockaddr* addr);
  static int close_socket(void* self, curl_socket_t fd);
  void run();

  std::chrono::steady_clock::time_point deadline_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<curl_socket_t> open_;  // guarded by mu_: a closed fd is never shut down
  bool expired_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gpualert::notify
