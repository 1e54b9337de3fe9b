// Hyperscan behind a small interface, with a content-keyed database cache.
#include "fast_matcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <hs/hs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>

#include "gpualert/common/fnv1a.hpp"

namespace gpualert::classify::detail {
namespace {

constexpr std::size_t kMaxCacheFile = 64u << 20;
constexpr char kMagic[] = "gpualert-hsdb 1\n";

std::string cache_key(const std::vector<PatternSpec>& patterns, const std::string& salt) {
  std::uint64_t h = kFnv1aBasis;
  h = fnv1a(h, hs_version());
  h = fnv1a(h, salt);
  for (const auto& p : patterns) {
    h = fnv1a(h, std::to_string(p.id));
    h = fnv1a(h, std::string_view("\0", 1));
    h = fnv1a(h, p.expr);
    h = fnv1a(h, std::string_view("\n\0", 2));
    h = fnv1a(h, p.origin);
    h = fnv1a(h, std::string_view("\n\0", 2));
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A directory we may trust with a database: ours and writable by no one else (a
// database is code for Hyperscan's engine; one planted by another user must not load).
bool trusted_dir(int dfd) {
  struct stat st {};
  return ::fstat(dfd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0;
}

int open_cache_dir(const std::string& dir, bool create) {
  if (dir.empty() || dir[0] != '/') return -1;
  if (create) {
    // Each missing component, private; an existing one is left as it is.
    for (std::size_t i = 1; i <= dir.size(); ++i)
      if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0700);
  }
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return -1;
  if (!trusted_dir(dfd)) {
    ::close(dfd);
    return -1;
  }
  return dfd;
}

std::string file_name(const std::string& key) { return "rules-" + key + ".hsdb"; }

// Each rule set's database stays until kKeepDatabases newer ones exist (a site that
// edits its rules, or a user with many --rules files, would otherwise fill the cache);
// temporary files of a writer killed more than ten minutes ago go too.
constexpr std::size_t kKeepDatabases = 8;
void prune_cache(int dfd, const std::string& keep) {
  const int dup = ::fcntl(dfd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (!d) {
    if (dup >= 0) ::close(dup);
    return;
  }
  std::vector<std::pair<std::time_t, std::string>> dbs;
  const std::time_t now = std::time(nullptr);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (name.rfind(".tmp-", 0) == 0 && now - st.st_mtime > 600) ::unlinkat(dfd, name.c_str(), 0);
    if (name.rfind("rules-", 0) == 0 && name.size() > 11 && name.ends_with(".hsdb") && name != keep)
      dbs.emplace_back(st.st_mtime, name);
  }
  ::closedir(d);
  if (dbs.size() + 1 <= kKeepDatabases) return;
  std::sort(dbs.begin(), dbs.end(), std::greater<>());
  for (std::size_t i = kKeepDatabases - 1; i < dbs.size(); ++i) ::unlinkat(dfd, dbs[i].second.c_str(), 0);
}

bool read_all(int fd, std::string& out) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxCacheFile) return false;
  }
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Header lines: "p <id> <reason>" / "r <id> <reason>", then "data <n>\n" and the bytes.
std::string encode(const std::string& key, const std::vector<PatternProblem>& pre, const std::vector<PatternProblem>& rej,
                   std::string_view bytes) {
  std::string s = kMagic;
  s += "key " + key + "\n";
  for (const auto& p : pre) s += "p " + std::to_string(p.id) + " " + p.reason + "\n";
  for (const auto& p : rej) s += "r " + std::to_string(p.id) + " " + p.reason + "\n";
  s += "data " + std::to_string(bytes.size()) + "\n";
  s.append(bytes);
  return s;
}

bool decode(const std::string& key, std::string_view s, std::vector<PatternProblem>& pre, std::vector<PatternProblem>& rej,
            std::string_view& bytes) {
  if (s.substr(0, std::strlen(kMagic)) != kMagic) return false;
  s.remove_prefix(std::strlen(kMagic));
  auto next_line = [&](std::string_view& line) {
    const auto nl = s.find('\n');
    if (nl == std::string_view::npos) return false;
    line = s.substr(0, nl);
    s.remove_prefix(nl + 1);
    return true;
  };
  std::string_view line;
  if (!next_line(line) || line != "key " + key) return false;
  while (next_line(line)) {
    if (line.substr(0, 5) == "data ") {
      const auto n = std::strtoull(std::string(line.substr(5)).c_str(), nullptr, 10);
      if (n != s.size()) return false;
      bytes = s;
      return true;
    }
    if (line.size() < 3 || (line[0] != 'p' && line[0] != 'r') || line[1] != ' ') return false;
    const std::string rest(line.substr(2));
    char* end = nullptr;
    const auto id = std::strtoul(rest.c_str(), &end, 10);
    PatternProblem p{static_cast<unsigned>(id), *end == ' ' ? std::string(end + 1) : std::string()};
    (line[0] == 'p' ? pre : rej).push_back(std::move(p));
  }
  return false;
}

}  // namespace

std::string default_matcher_cache_dir() {
  if (const char* d = std::getenv("GPUALERT_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/gpualert";
  if (const char* h = std::getenv("HOME"); h && *h == '/' && std::strcmp(h, "/") != 0) return std::string(h) + "/.cache/gpualert";
  if (::geteuid() == 0) return "/var/cache/gpualert";
  return "";
}

std::string translate_for_prefilter(std::string_view p) {
  std::string out;
  out.reserve(p.size() + 16);
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out.push_back(c);
      out.push_back(p[++i]);
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.push_back(c);
      // "[]...]" and "[^]...]": a leading ']' is a literal.
      if (i + 1 < p.size() && p[i + 1] == '^') out.push_back(p[++i]);
      if (i + 1 < p.size() && p[i + 1] == ']') out.push_back(p[++i]);
      continue;
    }
    if (c == '(' && p.substr(i, 4) == "(?P<") {
      const auto close = p.find('>', i);
      if (close != std::string_view::npos) {
        out.push_back('(');
        i = close;
        continue;
      }
    }
    if (c == '^') {
      out += "(?:^|\\r)";
      continue;
    }
    if (c == '$') {
      out += "(?:\\r|$)";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::unique_ptr<FastMatcher> FastMatcher::load_cached(const std::vector<PatternSpec>& patterns, const std::string& salt,
                                                      const std::string& cache_dir) {
  std::unique_ptr<FastMatcher> m(new FastMatcher());
  const std::string key = cache_key(patterns, salt);
  if (const int dfd = open_cache_dir(cache_dir, false); dfd >= 0) {
    const int fd = ::openat(dfd, file_name(key).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ::close(dfd);
    if (fd >= 0) {
      struct stat st {};
      std::string data;
      const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
                      (st.st_mode & 022) == 0 && static_cast<std::size_t>(st.st_size) <= kMaxCacheFile && read_all(fd, data);
      ::close(fd);
      std::string_view bytes;
      std::vector<PatternProblem> pre, rej;
      hs_database_t* db = nullptr;
      if (ok && decode(key, data, pre, rej, bytes) &&
          hs_deserialize_database(bytes.data(), bytes.size(), &db) == HS_SUCCESS) {
        m->db_ = db;
        m->prefiltered_ = std::move(pre);
        m->rejected_ = std::move(rej);
        m->from_cache_ = true;
        return m;
      }
    }
  }
  return nullptr;
}

std::unique_ptr<FastMatcher> FastMatcher::build(const std::vector<PatternSpec>& patterns, const std::string& salt,
                                                const std::string& cache_dir) {
  std::unique_ptr<FastMatcher> m(new FastMatcher());
  if (patterns.empty()) return m;
  const std::string key = cache_key(patterns, salt);
  std::vector<PatternSpec> todo = patterns;
  std::vector<unsigned> flags(todo.size(), HS_FLAG_MULTILINE);
  for (;;) {
    if (todo.empty()) return m;
    std::vector<const char*> exprs;
    std::vector<unsigned> ids;
    for (const auto& p : todo) {
      exprs.push_back(p.expr.c_str());
      ids.push_back(p.id);
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(todo.size()), HS_MODE_BLOCK,
                         nullptr, &db, &err) == HS_SUCCESS) {
      m->db_ = db;
      break;
    }
    const int bad = err ? err->expression : -1;
    const std::string why = err && err->message ? err->message : "compile error";
    hs_free_compile_error(err);
    if (bad < 0 || static_cast<std::size_t>(bad) >= todo.size()) {
      // Not one pattern's fault (e.g. the set is too large): everything goes to RE2.
      for (const auto& p : todo) m->rejected_.push_back({p.id, why});
      return m;
    }
    const auto b = static_cast<std::size_t>(bad);
    if (!(flags[b] & HS_FLAG_PREFILTER)) {
      flags[b] |= HS_FLAG_PREFILTER;
      m->prefiltered_.push_back({todo[b].id, why});
      continue;
    }
    // Not even as a prefilter: drop it (it is checked by RE2 on every line instead).
    auto& pre = m->prefiltered_;
    for (auto it = pre.begin(); it != pre.end(); ++it)
      if (it->id == todo[b].id) {
        m->rejected_.push_back({todo[b].id, it->reason + "; as a prefilter: " + why});
        pre.erase(it);
        break;
      }
    todo.erase(todo.begin() + static_cast<std::ptrdiff_t>(b));
    flags.erase(flags.begin() + static_cast<std::ptrdiff_t>(b));
  }

  // Keep it for the next run; a cache that cannot be written only costs time.
  if (const int dfd = open_cache_dir(cache_dir, true); dfd >= 0) {
    char* bytes = nullptr;
    std::size_t n = 0;
    if (hs_serialize_database(m->db_, &bytes, &n) == HS_SUCCESS) {
      const std::string tmp = ".tmp-" + std::to_string(::getpid()) + "-" + key;
      const int fd = ::openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd >= 0) {
        const bool ok = write_all(fd, encode(key, m->prefiltered_, m->rejected_, std::string_view(bytes, n)));
        ::close(fd);
        if (!ok || ::renameat(dfd, tmp.c_str(), dfd, file_name(key).c_str()) != 0) ::unlinkat(dfd, tmp.c_str(), 0);
      }
      std::free(bytes);
    }
    prune_cache(dfd, file_name(key));
    ::close(dfd);
  }
  return m;
}

FastMatcher::~FastMatcher() {
  if (db_) hs_free_database(db_);
}

FastMatcher::Scratch::Scratch(const FastMatcher& m) {
  if (m.db_ && hs_alloc_scratch(m.db_, &s_) != HS_SUCCESS) s_ = nullptr;
}

FastMatcher::Scratch::~Scratch() {
  if (s_) hs_free_scratch(s_);
}

bool FastMatcher::scan(std::string_view block, Scratch& scratch, std::vector<MatchEnd>& out) const {
  if (!db_ || !scratch.get()) return false;
  if (block.empty()) return true;
  // Hyperscan takes an unsigned int length: scan a larger block in pieces (callers
  // pass blocks of whole lines of about a MiB, so this never splits a line in practice).
  constexpr std::size_t kMax = 1u << 30;
  for (std::size_t at = 0; at < block.size(); at += kMax) {
    const std::size_t n = std::min(kMax, block.size() - at);
    struct Ctx {
      std::vector<MatchEnd>* out;
      std::uint64_t base;
    } ctx{&out, at};
    const hs_error_t rc = hs_scan(db_, block.data() + at, static_cast<unsigned>(n), 0, scratch.get(),
                                  [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* c) -> int {
                                    auto* x = static_cast<Ctx*>(c);
                                    x->out->push_back(MatchEnd{x->base + to, id});
                                    return 0;
                                  },
                                  &ctx);
    if (rc != HS_SUCCESS) return false;
  }
  return true;
}

}  // namespace gpualert::classify::detail
