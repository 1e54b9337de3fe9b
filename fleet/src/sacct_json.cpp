#include "gpualert/fleet/sacct_json.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <simdjson.h>

namespace gpualert::fleet {
namespace {

namespace od = simdjson::ondemand;

// A number, or 23.02's {"set": true, "infinite": false, "number": N}; 0 for anything else.
std::int64_t number_of(od::value v) {
  switch (v.type()) {
    case od::json_type::number: {
      const double d = v.get_double();
      // A value past what a count or a time can be (1e300, a NaN) is no value: 0.
      return d > -9.0e18 && d < 9.0e18 ? static_cast<std::int64_t>(d) : 0;
    }
    case od::json_type::object:
      for (auto f : v.get_object())
        if (f.unescaped_key().value() == "number") return number_of(f.value());
      return 0;
    default:
      return 0;
  }
}

std::string string_of(od::value v) {
  if (v.type() != od::json_type::string) return {};
  return std::string(std::string_view(v.get_string()));
}

void read_job(od::object job, JobRecord& j) {
  for (auto field : job) {
    const std::string_view k = field.unescaped_key();
    od::value v = field.value();
    if (k == "job_id") {
      j.job_id = static_cast<std::uint64_t>(number_of(v));
    } else if (k == "user") {
      j.user = string_of(v);
    } else if (k == "partition") {
      j.partition = string_of(v);
    } else if (k == "nodes") {
      j.nodes = string_of(v);
    } else if (k == "name") {
      j.name = string_of(v);
    } else if (k == "state" && v.type() == od::json_type::object) {
      for (auto s : v.get_object()) {
        if (s.unescaped_key().value() != "current") continue;
        od::value cur = s.value();
        if (cur.type() == od::json_type::array) {
          for (auto e : cur.get_array()) {  // 23.02+: a list, the first is the state
            if (j.state.empty()) j.state = string_of(e.value());
          }
        } else {
          j.state = string_of(cur);
        }
      }
    } else if (k == "comment" && v.type() == od::json_type::object) {
      for (auto c : v.get_object()) {
        const std::string_view ck = c.unescaped_key();
        if (ck == "system") j.system_comment = string_of(c.value());
        else if (ck == "administrator") j.admin_comment = string_of(c.value());
      }
    } else if (k == "time" && v.type() == od::json_type::object) {
      for (auto t : v.get_object()) {
        const std::string_view tk = t.unescaped_key();
        if (tk == "elapsed") j.elapsed = number_of(t.value());
        else if (tk == "start") j.start = number_of(t.value());
        else if (tk == "end") j.end = number_of(t.value());
      }
    } else if (k == "array" && v.type() == od::json_type::object) {
      for (auto a : v.get_object()) {
        const std::string_view ak = a.unescaped_key();
        od::value av = a.value();
        if (ak == "job_id") j.array_job = static_cast<std::uint64_t>(number_of(av));
        else if (ak == "task_id" && av.type() != od::json_type::null) j.array_task = static_cast<std::uint64_t>(number_of(av));
      }
    } else if (k == "tres" && v.type() == od::json_type::object) {
      for (auto t : v.get_object()) {
        if (t.unescaped_key().value() != "allocated") continue;
        od::value list = t.value();
        if (list.type() != od::json_type::array) continue;
        for (auto e : list.get_array()) {
          std::string type, name;
          std::int64_t count = 0;
          for (auto f : e.get_object()) {
            const std::string_view fk = f.unescaped_key();
            if (fk == "type") type = string_of(f.value());
            else if (fk == "name") name = string_of(f.value());
            else if (fk == "count") count = number_of(f.value());
          }
          if (type == "gres" && (name == "gpu" || name.rfind("gpu:", 0) == 0) && count > 0)
            j.gpus += static_cast<std::uint64_t>(count);
        }
      }
    }
    // Any other field (steps, association, ...) is skipped unread.
  }
}

void read_padded(simdjson::padded_string_view text, const std::function<void(JobRecord&&)>& each) {
  try {
    od::parser parser;
    od::document doc = parser.iterate(text);
    od::object root = doc.get_object();
    bool jobs_seen = false;
    for (auto field : root) {
      if (field.unescaped_key().value() != "jobs") continue;
      jobs_seen = true;
      for (auto job : field.value().get_array()) {
        JobRecord j;
        read_job(job.get_object(), j);
        j.verdict = parse_tag(j.system_comment);
        each(std::move(j));
      }
    }
    if (!jobs_seen) throw std::runtime_error("it has no \"jobs\" list: not sacct --json output");
  } catch (const simdjson::simdjson_error& e) {
    throw std::runtime_error(std::string("sacct's JSON cannot be read: ") + e.what());
  }
}

}  // namespace

void read_sacct_json(std::string_view text, const std::function<void(JobRecord&&)>& each) {
  const simdjson::padded_string padded(text);
  read_padded(padded, each);
}

void read_sacct_json_fd(int fd, const std::function<void(JobRecord&&)>& each) {
  // One buffer, read into in place, with simdjson's padding kept free after the text:
  // no second copy of what may be hundreds of megabytes.
  std::string buf;
  std::size_t len = 0;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    buf.resize(static_cast<std::size_t>(st.st_size) + (1 << 16) + simdjson::SIMDJSON_PADDING);  // a file: its size at once
  while (true) {
    if (buf.size() < len + (1 << 16) + simdjson::SIMDJSON_PADDING) buf.resize(std::max<std::size_t>(buf.size() * 2, 1 << 20));
    const ssize_t n = ::read(fd, buf.data() + len, buf.size() - len - simdjson::SIMDJSON_PADDING);
    if (n > 0) len += static_cast<std::size_t>(n);
    else if (n == 0) break;
    else if (errno != EINTR) throw std::runtime_error(std::string("read: ") + std::strerror(errno));
  }
  read_padded(simdjson::padded_string_view(buf.data(), len, buf.size()), each);
}

}  // namespace gpualert::fleet
