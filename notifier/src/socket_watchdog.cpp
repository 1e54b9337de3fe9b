// See socket_watchdog.hpp for why libcurl's timeouts alone are not enough.
#include "socket_watchdog.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gpualert::notify {

SocketWatchdog::SocketWatchdog(std::chrono::steady_clock::time_point deadline) : deadline_(deadline) {
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // the new thread inherits this mask
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

SocketWatchdog::~SocketWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void SocketWatchdog::attach(CURL* h) {
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, &SocketWatchdog::open_socket);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, this);
  curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, &SocketWatchdog::close_socket);
  curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, this);
}

bool SocketWatchdog::expired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return expired_;
}

curl_socket_t SocketWatchdog::open_socket(void* self, curlsocktype /*purpose*/, curl_sockaddr* addr) {
  auto* w = static_cast<SocketWatchdog*>(self);
  std::lock_guard<std::mutex> lock(w->mu_);
  if (w->expired_) return CURL_SOCKET_BAD;
  const int fd = ::socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
  if (fd >= 0) w->open_.insert(fd);
  return fd >= 0 ? fd : CURL_SOCKET_BAD;
}

int SocketWatchdog::close_socket(void* self, curl_socket_t fd) {
  auto* w = static_cast<SocketWatchdog*>(self);
  std::lock_guard<std::mutex> lock(w->mu_);
  w->open_.erase(fd);
  return ::close(fd);
}

void SocketWatchdog::run() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, deadline_, [this] { return stop_; })) {
    expired_ = true;
    // shutdown, not close: curl still owns the descriptors and closes them.
    for (const curl_socket_t fd : open_) ::shutdown(fd, SHUT_RDWR);
  }
}

}  // namespace gpualert::notify
