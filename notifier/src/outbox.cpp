// The durable outbox. A message exists once pending/<id>.eml exists: the .json
// is written first and the .eml is renamed into place last (the commit point).
#include "gpualert/notifier/outbox.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>
#include <system_error>
#include <type_traits>

#include "fd_streambuf.hpp"
#include "gpualert/common/durable_file.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/notifier/mime_writer.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void fail(int err, const std::string& what) { throw std::system_error(err, std::generic_category(), what); }

std::string short_hostname() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "localhost";
  std::string out;
  for (const char* p = host; *p != '\0' && *p != '.'; ++p) {
    const bool ok = std::isalnum(static_cast<unsigned char>(*p)) || *p == '-';
    out += ok ? *p : '_';
  }
  return out.empty() ? std::string("localhost") : out;
}

// "YYYYMMDDTHHMMSS.uuuuuuZ" of T: how every id starts.
std::string id_time(std::chrono::system_clock::time_point t);

// UTC time first (microseconds) so ids sort by creation; host and pid make
// them unique across processes, the counter within one.
std::string make_id() {
  static std::atomic<unsigned> counter{0};
  char tail[32];
  std::snprintf(tail, sizeof tail, "%06u", counter++ % 1000000);
  return id_time(std::chrono::system_clock::now()) + "-" + short_hostname() + "-" + std::to_string(::getpid()) + "-" +
         tail;
}

std::string id_time(std::chrono::system_clock::time_point now) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(us % 1000000));
  return buf;
}

bool ends_with(const std::string& s, std::string_view suffix) { return s.size() >= suffix.size() && s.ends_with(suffix); }

// Streams the MIME message into a temporary file, fsyncs it and renames it to
// EML. On any failure the temporary file is removed and std::system_error
// says which file and why (ENOSPC for a full disk).
void write_eml(const fs::path& eml, const Message& msg) {
  const fs::path tmp = eml.string() + ".tmp." + std::to_string(::getpid());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) fail(errno, "cannot create " + tmp.string());
  int err = 0;
  try {
    FdStreambuf sb(fd.get());
    std::ostream os(&sb);
    if (msg.channel.empty()) write_mime(msg, os);
    else os << msg.payload;
    os.flush();
    if (!os) err = sb.error() != 0 ? sb.error() : EIO;
  } catch (...) {
    fd.reset();
    ::unlink(tmp.c_str());
    throw;
  }
  if (err == 0 && ::fsync(fd.get()) != 0) err = errno;
  if (err == 0 && fd.close_checked() != 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), eml.c_str()) != 0) err = errno;
  if (err != 0) {
    fd.reset();
    ::unlink(tmp.c_str());
    fail(err, "cannot write message " + tmp.string());
  }
  sync_dir(eml.parent_path());
}

json read_meta(const fs::path& meta) { return json::parse(read_file(meta)); }

// A field of a record, or FALLBACK when it is missing or of another type: a record
// someone edited by hand (or a crash cut short) must not hide its message.
template <typename T>
T field(const json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  // A number too large for 64 bits parses as a double; converting that to an integer is
  // undefined, so an integer field takes only integers.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    if (!it->is_number_integer()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

// A record's "..._unix" seconds as a time. The clock counts nanoseconds, which end in
// the year 2262: a value past that (or before 1970) is no time a record of ours holds,
// and converting it would overflow. It reads as 0, "not known".
std::chrono::system_clock::time_point from_unix(long long s) {
  using std::chrono::seconds;
  const long long last = std::chrono::duration_cast<seconds>(std::chrono::system_clock::duration::max()).count() - 1;
  return std::chrono::system_clock::time_point(seconds(s >= 0 && s <= last ? s : 0));
}

void fill_from_meta(StoredMessage& m, const json& j) {
  m.envelope.from = field<std::string>(j, "from", "");
  m.envelope.to = field<std::vector<std::string>>(j, "to", {});
  m.attempts = field<int>(j, "attempts", 0);
  m.last_error = field<std::string>(j, "last_error", "");
  m.last_code = field<long>(j, "last_code", 0);
  m.job = field<std::string>(j, "job", "");
  m.user = field<std::string>(j, "user", "");
  m.cls = field<std::string>(j, "class", "");
  m.notice = field<bool>(j, "notice", false);
  m.created = from_unix(field<long long>(j, "created_unix", 0));
  m.next_attempt = from_unix(field<long long>(j, "next_attempt_unix", 0));
  m.digest_key = field<std::string>(j, "digest_key", "");
  m.channel = field<std::string>(j, "channel", "");
  m.record.clear();
  if (j.is_object() && j.contains("record") && j["record"].is_object())
    for (const auto& [k, v] : j["record"].items())
      if (v.is_string()) m.record[k] = v.get<std::string>();
}

// M's record, or what is known of it when the file is unreadable.
json meta_or_minimal(const StoredMessage& m) {
  try {
    json j = read_meta(m.meta);
    if (j.is_object()) return j;
  } catch (const std::exception&) {
  }
  return {{"id", m.id}, {"from", m.envelope.from}, {"to", m.envelope.to}};
}

long long unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

Outbox::Outbox(fs::path dir) : dir_(std::move(dir)) {
  make_dirs(dir_ / "pending", 0700);
  make_dirs(dir_ / "sent", 0700);
  make_dirs(dir_ / "failed", 0700);
}

StoredMessage Outbox::store(const Message& msg, const std::string& held_for) {
  StoredMessage m;
  m.id = make_id();
  m.eml = dir_ / "pending" / (m.id + ".eml");
  m.meta = dir_ / "pending" / (m.id + ".json");
  m.envelope = msg.envelope;
  m.channel = msg.channel;
  for (const auto& [name, value] : msg.extra_headers) {
    if (name == "X-Gpualert-Job") m.job = one_line(value, 100);
    else if (name == "X-Gpualert-User") m.user = one_line(value, 100);
    else if (name == "X-Gpualert-Class") m.cls = one_line(value, 100);
    else if (name == "X-Gpualert-Notice") m.notice = true;
  }
  m.created = std::chrono::system_clock::now();
  m.record = msg.record;
  json rec = json::object();
  for (const auto& [k, v] : msg.record) {
    // Lines kept (a digest quotes them), every other control character dropped.
    std::string clean;
    std::size_t start = 0;
    while (start <= v.size() && clean.size() < 2000) {
      const auto nl = v.find('\n', start);
      clean += one_line(std::string_view(v).substr(start, nl == std::string::npos ? std::string::npos : nl - start), 500);
      if (nl == std::string::npos) break;
      clean += '\n';
      start = nl + 1;
    }
    rec[k] = clean;
  }
  const json j = {{"id", m.id},
                  {"record", rec},
                  {"job", m.job},
                  {"user", m.user},
                  {"class", m.cls},
                  {"notice", m.notice},
                  {"created_unix", std::chrono::duration_cast<std::chrono::seconds>(m.created.time_since_epoch()).count()},
                  {"from", msg.envelope.from},
                  {"to", msg.envelope.to},
                  {"subject", one_line(msg.subject, 400)},
                  {"created", iso8601_utc(std::chrono::system_clock::now())},
                  {"attempts", 0},
                  {"last_error", ""},
                  {"channel", msg.channel}};
  json held = j;
  if (!held_for.empty()) {
    held["digest_key"] = held_for;
    m.digest_key = held_for;
  }
  // dump() with "replace": an invalid UTF-8 address must not make store() throw
  // a non-system error after the caller relied on the outbox.
  for (int attempt = 0;; ++attempt) {
    try {
      write_file_atomic(m.meta, held.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
      try {
        write_eml(m.eml, msg);
      } catch (...) {
        ::unlink(m.meta.c_str());  // a .json without its .eml would only be garbage
        throw;
      }
      return m;
    } catch (const std::system_error& e) {
      // The disk is full (someone else's output, perhaps): spend the reserve on this message.
      const fs::path reserve = dir_ / "reserve";
      if (attempt > 0 || (e.code().value() != ENOSPC && e.code().value() != EDQUOT) || ::unlink(reserve.c_str()) != 0)
        throw;
    }
  }
}

void Outbox::replace(const StoredMessage& m, const Message& msg) { write_eml(m.eml, msg); }

void Outbox::keep_reserve(std::uint64_t bytes) {
  const fs::path reserve = dir_ / "reserve";
  if (bytes == 0) return;
  const int fd = ::open(reserve.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_blocks) * 512 < bytes &&
      ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    ::unlink(reserve.c_str());  // not enough room now: no half reserve that looks whole
    return;
  }
  ::close(fd);
}

namespace {

// The committed messages of DIR (pending/ or failed/), oldest first; with FROM, only
// those whose id (it starts with the time it was made) sorts at or after it.
std::vector<StoredMessage> list_messages(const fs::path& dir, const std::string& from = "") {
  std::vector<StoredMessage> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    // Only a committed .eml counts; "<id>.eml.tmp.<pid>" is a write in progress.
    if (!ends_with(name, ".eml") || name.size() <= 4) continue;
    if (!from.empty() && name < from) continue;
    StoredMessage m;
    m.id = name.substr(0, name.size() - 4);
    m.eml = e.path();
    m.meta = dir / (m.id + ".json");
    try {
      fill_from_meta(m, read_meta(m.meta));
    } catch (const std::exception& ex) {
      // Listed anyway: dropping a committed message would lose it silently.
      m.last_error = std::string("metadata unreadable: ") + ex.what();
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const StoredMessage& a, const StoredMessage& b) { return a.id < b.id; });
  return out;
}

}  // namespace

std::vector<StoredMessage> Outbox::pending() const { return list_messages(dir_ / "pending"); }
std::vector<StoredMessage> Outbox::failed() const { return list_messages(dir_ / "failed"); }

void Outbox::mark_sent(const StoredMessage& m) {
  const fs::path sent = dir_ / "sent";
  // The .eml moves first: a crash after it leaves only a stale .json behind,
  // never a second copy of a message that was already delivered.
  if (::rename(m.eml.c_str(), (sent / (m.id + ".eml")).c_str()) != 0) {
    fail(errno, "cannot move " + m.eml.string() + " to " + sent.string());
  }
  try {
    json j = read_meta(m.meta);
    j["sent"] = iso8601_utc(std::chrono::system_clock::now());
    write_file_atomic(sent / (m.id + ".json"), j.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
    ::unlink(m.meta.c_str());
  } catch (const std::exception&) {
    // The metadata is only a record once the message is sent; move what exists.
    ::rename(m.meta.c_str(), (sent / (m.id + ".json")).c_str());
  }
  sync_dir(sent);
  sync_dir(dir_ / "pending");
}

void Outbox::record_failure(StoredMessage& m, const std::string& error) {
  defer(m, error, 0, std::chrono::system_clock::time_point{});
}

void Outbox::defer(StoredMessage& m, const std::string& error, long code, std::chrono::system_clock::time_point next) {
  m.attempts += 1;
  m.last_error = one_line(error, 1000);
  m.last_code = code;
  m.next_attempt = next;
  json j = meta_or_minimal(m);
  j["attempts"] = m.attempts;
  j["last_error"] = m.last_error;
  j["last_code"] = m.last_code;
  j["last_attempt"] = iso8601_utc(std::chrono::system_clock::now());
  j["next_attempt_unix"] = unix_seconds(next);
  write_file_atomic(m.meta, j.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
}

void Outbox::mark_failed(StoredMessage& m, const std::string& reason, long code) {
  const fs::path failed = dir_ / "failed";
  m.last_error = one_line(reason, 1000);
  m.last_code = code;
  json j = meta_or_minimal(m);
  j["attempts"] = m.attempts;
  j["failed"] = iso8601_utc(std::chrono::system_clock::now());
  j["reason"] = m.last_error;
  j["last_code"] = code;
  // The record first, then the message: a crash in between leaves the message
  // pending (tried again), never a failed/ message without its reason.
  write_file_atomic(failed / (m.id + ".json"), j.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
  if (::rename(m.eml.c_str(), (failed / (m.id + ".eml")).c_str()) != 0)
    fail(errno, "cannot move " + m.eml.string() + " to " + failed.string());
  ::unlink(m.meta.c_str());
  sync_dir(failed);
  sync_dir(dir_ / "pending");
  m.eml = failed / (m.id + ".eml");
  m.meta = failed / (m.id + ".json");
}

void Outbox::fold(StoredMessage& m, const std::string& key) {
  m.digest_key = key;
  json j = meta_or_minimal(m);
  j["digest_key"] = key;
  write_file_atomic(m.meta, j.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
}

void Outbox::mark_folded_into(const StoredMessage& m, const std::string& digest_id) {
  const fs::path sent = dir_ / "sent";
  json j = meta_or_minimal(m);
  j["folded_into"] = digest_id;
  j["sent"] = iso8601_utc(std::chrono::system_clock::now());
  write_file_atomic(sent / (m.id + ".json"), j.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
  if (::rename(m.eml.c_str(), (sent / (m.id + ".eml")).c_str()) != 0)
    fail(errno, "cannot move " + m.eml.string() + " to " + sent.string());
  ::unlink(m.meta.c_str());
}

void Outbox::mark_sender_pass() {
  const fs::path mark = dir_ / "sender.pass";
  const int fd = ::open(mark.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ::futimens(fd, nullptr);  // now
  ::close(fd);
}

bool Outbox::sender_seen(std::chrono::seconds max_age) const {
  struct stat st {};
  if (::lstat((dir_ / "sender.pass").c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  return std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime) < max_age;
}

std::vector<StoredMessage> Outbox::recent(std::chrono::system_clock::time_point since) const {
  std::vector<StoredMessage> out;
  for (const char* sub : {"pending", "sent"}) {
    std::error_code ec;
    if (!fs::exists(dir_ / sub, ec)) continue;
    for (auto& m : list_messages(dir_ / sub, id_time(since))) out.push_back(std::move(m));
  }
  return out;
}

bool Outbox::retry(const std::string& id) {
  // An id is a file name we made: nothing else may reach a path.
  if (id.empty() || id.find('/') != std::string::npos || id[0] == '.') return false;
  const fs::path pending = dir_ / "pending", failed = dir_ / "failed";
  const bool was_failed = fs::exists(failed / (id + ".eml"));
  const fs::path from = was_failed ? failed : pending;
  if (!fs::exists(from / (id + ".eml"))) return false;
  json j = {{"id", id}};
  try {
    if (json r = read_meta(from / (id + ".json")); r.is_object()) j = std::move(r);
  } catch (const std::exception&) {
    // An unreadable record: the message still goes back, with what is known.
  }
  j["next_attempt_unix"] = 0;
  j.erase("failed");
  write_file_atomic(pending / (id + ".json"), j.dump(2, ' ', false, json::error_handler_t::replace) + "\n", 0600);
  if (was_failed) {
    if (::rename((failed / (id + ".eml")).c_str(), (pending / (id + ".eml")).c_str()) != 0)
      fail(errno, "cannot move " + id + " back to " + pending.string());
    ::unlink((failed / (id + ".json")).c_str());
    sync_dir(failed);
    sync_dir(pending);
  }
  return true;
}

std::size_t Outbox::purge(std::chrono::seconds age) {
  const auto cutoff = std::chrono::system_clock::now() - age;
  std::size_t removed = 0;
  for (const char* sub : {"sent", "failed"}) {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_ / sub, ec)) {
      struct stat st {};
      if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (std::chrono::system_clock::from_time_t(st.st_mtime) > cutoff) continue;
      if (::unlink(e.path().c_str()) == 0 && ends_with(e.path().filename().string(), ".eml")) ++removed;
    }
  }
  return removed;
}

std::size_t Outbox::clean_garbage(std::chrono::seconds min_age) {
  const fs::path dir = dir_ / "pending";
  const auto cutoff = std::chrono::system_clock::now() - min_age;
  std::size_t removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool temp = name.find(".tmp.") != std::string::npos;
    const bool orphan = ends_with(name, ".json") && !fs::exists(dir / (name.substr(0, name.size() - 5) + ".eml"));
    if (!temp && !orphan) continue;
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0) continue;
    if (std::chrono::system_clock::from_time_t(st.st_mtime) > cutoff) continue;
    if (::unlink(e.path().c_str()) == 0) ++removed;
  }
  // An array's first-place claim (digest.cpp) outlives its day only as litter.
  const auto claim_cutoff = std::chrono::system_clock::now() - std::max<std::chrono::seconds>(min_age, std::chrono::hours(48));
  for (const fs::directory_entry& e : fs::directory_iterator(dir_ / "firsts", ec)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (std::chrono::system_clock::from_time_t(st.st_mtime) > claim_cutoff) continue;
    if (::unlink(e.path().c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace gpualert::notify
