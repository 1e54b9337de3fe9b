// Netstring fields ("LEN:BYTES,") in a fixed order, led by a version tag.
#include "post_run_wire.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>


namespace gpualert::cli {
namespace {

constexpr char kTag[] = "gpualert-post-run 1";

struct Writer {
  std::string out;
  void str(const std::string& s) { out += std::to_string(s.size()) + ":" + s + ","; }
  void num(long long v) { str(std::to_string(v)); }
  void list(const std::vector<std::string>& v) {
    num(static_cast<long long>(v.size()));
    for (const auto& s : v) str(s);
  }
};

struct Reader {
  const std::string& in;
  std::size_t at = 0;
  std::string str() {
    const auto colon = in.find(':', at);
    if (colon == std::string::npos || colon == at || colon - at > 12) throw std::runtime_error("bad post-run record");
    const auto n = std::stoull(in.substr(at, colon - at));
    if (colon + 1 + n >= in.size() || in[colon + 1 + n] != ',') throw std::runtime_error("bad post-run record");
    std::string s = in.substr(colon + 1, n);
    at = colon + 2 + n;
    return s;
  }
  long long num() { return std::stoll(str()); }
  std::vector<std::string> list() {
    const long long n = num();
    if (n < 0 || n > 1 << 20) throw std::runtime_error("bad post-run record");
    std::vector<std::string> v;
    for (long long i = 0; i < n; ++i) v.push_back(str());
    return v;
  }
};

long long ns(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::chrono::system_clock::time_point from_ns(long long v) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(v)));
}

}  // namespace

std::string encode_post_run(const PostRunInput& in) {
  Writer w;
  w.str(kTag);
  const auto& f = in.facts;
  w.list(f.command);
  w.str(f.cwd);
  w.str(f.host);
  w.str(f.user);
  w.num(ns(f.started));
  w.num(ns(f.ended));
  w.num(f.duration.count());
  w.num(f.wait_status ? 1 : 0);
  w.num(f.wait_status.value_or(0));
  w.num(f.exec_failed ? 1 : 0);
  w.str(f.run_dir.string());
  w.str(f.log.string());
  w.num(static_cast<long long>(f.log_bytes));
  w.list(f.problems);
  std::vector<std::string> extra;
  for (const auto& [k, v] : f.extra) {
    extra.push_back(k);
    extra.push_back(v);
  }
  w.list(extra);
  w.num(in.config_file ? 1 : 0);
  w.str(in.config_file ? in.config_file->string() : "");
  std::vector<std::string> flags;
  for (const auto& [k, v, flag] : in.flags) {
    flags.push_back(k);
    flags.push_back(v);
    flags.push_back(flag);
  }
  w.list(flags);
  w.str(in.run_json.string());
  w.str(in.verdict_json.string());
  w.str(in.streams.string());
  w.num(in.child_pid);
  w.str(in.log_error);
  w.num(in.quiet ? 1 : 0);
  return w.out;
}

PostRunInput decode_post_run(const std::string& bytes) {
  Reader r{bytes};
  if (r.str() != kTag) throw std::runtime_error("not a post-run record of this version");
  PostRunInput in;
  auto& f = in.facts;
  f.command = r.list();
  f.cwd = r.str();
  f.host = r.str();
  f.user = r.str();
  f.started = from_ns(r.num());
  f.ended = from_ns(r.num());
  f.duration = std::chrono::milliseconds(r.num());
  const bool has_status = r.num() != 0;
  const long long status = r.num();
  if (has_status) f.wait_status = static_cast<int>(status);
  f.exec_failed = r.num() != 0;
  f.run_dir = r.str();
  f.log = r.str();
  f.log_bytes = static_cast<std::uint64_t>(r.num());
  f.problems = r.list();
  const auto extra = r.list();
  for (std::size_t i = 0; i + 1 < extra.size(); i += 2) f.extra.emplace_back(extra[i], extra[i + 1]);
  const bool has_config = r.num() != 0;
  const std::string config = r.str();
  if (has_config) in.config_file = config;
  const auto flags = r.list();
  for (std::size_t i = 0; i + 2 < flags.size(); i += 3)
    in.flags.emplace_back(flags[i], flags[i + 1], flags[i + 2]);
  in.run_json = r.str();
  in.verdict_json = r.str();
  in.streams = r.str();
  in.child_pid = static_cast<int>(r.num());
  in.log_error = r.str();
  in.quiet = r.num() != 0;
  return in;
}

std::string read_handed_over(int fd) {
  std::string record;
  char buf[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    record.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  ::close(fd);
  return record;
}

}  // namespace gpualert::cli
