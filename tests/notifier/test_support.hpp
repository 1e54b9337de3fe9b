#pragma once
// Helpers for the notifier tests: temporary directories, files, running the
// Python checkers, and the loopback SMTP server as a child process.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpualert::notify::testing {

namespace fs = std::filesystem;

// A fresh directory removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "notifier-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& s) const { return path_ / s; }

 private:
  fs::path path_;
};

inline void write_bytes(const fs::path& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

inline std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Deterministic pseudo-random bytes (incompressible) of length N.
inline std::string random_bytes(std::size_t n, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xFF);
  return s;
}

// Log-like text that compresses well (about 10x or better).
inline std::string log_text(std::size_t n) {
  std::string s;
  s.reserve(n + 100);
  for (unsigned i = 0; s.size() < n; ++i) {
    s += "step " + std::to_string(i) + " loss=0." + std::to_string(1000 + (i * 7919) % 9000) +
         " lr=3e-4 gpu0 mem=71.2GiB\n";
  }
  s.resize(n);
  return s;
}

inline std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

// Runs a shell command and returns its stdout (throws on a non-zero exit).
inline std::string run(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  if (rc != 0) throw std::runtime_error("command failed (" + std::to_string(rc) + "): " + cmd);
  return out;
}

// Parses EML with Python's email package (see parse_mime.py).
inline nlohmann::json parse_mime(const fs::path& eml, const fs::path& outdir) {
  return nlohmann::json::parse(run(std::string(GPUALERT_TEST_PYTHON) + " " + shell_quote(GPUALERT_PARSE_MIME) + " " +
                                   shell_quote(eml.string()) + " " + shell_quote(outdir.string())));
}

// tests/support/smtp_server.py as a child; killed (SIGTERM) on destruction,
// and by the kernel if this test process dies first (PR_SET_PDEATHSIG).
class SmtpServer {
 public:
  explicit SmtpServer(std::vector<std::string> args) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> argv = {GPUALERT_TEST_PYTHON, GPUALERT_SMTP_SERVER, "--port", "0", "--lifetime", "120"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      ::dup2(fds[1], 1);
      std::vector<char*> cargv;
      for (auto& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      ::execv(cargv[0], cargv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = fds[0];
    // The first line is "PORT <n>"; wait for it up to 20 s (Python start + cert).
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd pfd{out_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) {
        stop();
        throw std::runtime_error("smtp_server.py did not print its port");
      }
      char c;
      if (::read(out_, &c, 1) != 1) {
        stop();
        throw std::runtime_error("smtp_server.py exited before printing its port");
      }
      line += c;
    }
    if (line.rfind("PORT ", 0) != 0) throw std::runtime_error("unexpected first line: " + line);
    port_ = std::stoi(line.substr(5));
  }
  ~SmtpServer() { stop(); }
  SmtpServer(const SmtpServer&) = delete;
  SmtpServer& operator=(const SmtpServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& scheme = "smtp") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_);
  }

 private:
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      ::waitpid(pid_, &st, 0);
      pid_ = -1;
    }
    if (out_ >= 0) ::close(out_);
    out_ = -1;
  }
  pid_t pid_ = -1;
  int out_ = -1;
  int port_ = 0;
};

}  // namespace gpualert::notify::testing
