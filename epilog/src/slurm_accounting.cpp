#include "slurm_accounting.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <random>
#include <thread>

#include "gpualert/common/run_program.hpp"

namespace gpualert::epilog {
namespace {

// JobIDRaw: an array task is found by its own id (JobID would print "123_4").
const char* kFormat = "JobIDRaw,JobName,State,ExitCode,DerivedExitCode,Elapsed,Timelimit,NodeList,Partition,User,Start,End,WorkDir";
constexpr std::size_t kFields = 13;

std::vector<std::string> split(const std::string& text, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto at = text.find(sep, start);
    if (at == std::string::npos) break;
    out.push_back(text.substr(start, at - start));
    start = at + sep.size();
  }
  out.push_back(text.substr(start));
  return out;
}

// `sacct -P` output as records of kFields fields. With a delimiter no field holds,
// the token between two records is "<WorkDir>\n<next JobID>", and a JobID has no
// newline: the record boundary is that token's LAST newline, whatever WorkDir holds.
std::optional<std::vector<std::vector<std::string>>> records(const std::string& text, const std::string& delim) {
  const auto t = split(text, delim);
  constexpr std::size_t step = kFields - 1;
  if ((t.size() - 1) % step != 0) return std::nullopt;
  std::vector<std::vector<std::string>> out;
  std::string id = t[0];
  for (std::size_t k = 0; k + 1 < t.size(); k += step) {
    std::vector<std::string> r{id};
    r.insert(r.end(), t.begin() + static_cast<std::ptrdiff_t>(k + 1), t.begin() + static_cast<std::ptrdiff_t>(k + step));
    const std::string& tail = t[k + step];
    const auto nl = tail.rfind('\n');
    const bool last = k + step + 1 == t.size();
    if (nl == std::string::npos) {
      if (!last) return std::nullopt;
      r.push_back(tail);
    } else {
      r.push_back(tail.substr(0, nl));
      id = tail.substr(nl + 1);
      if (last && !id.empty()) return std::nullopt;  // text after the final record
    }
    out.push_back(std::move(r));
  }
  return out;
}

bool digits(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "COMPLETED", "CANCELLED by 1001".
bool valid_state(const std::string& s) {
  const auto sp = s.find(' ');
  const std::string word = s.substr(0, sp);
  if (word.empty() || !std::all_of(word.begin(), word.end(), [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; }))
    return false;
  return sp == std::string::npos || (s.compare(sp, 4, " by ") == 0 && digits(s.substr(sp + 4)));
}

// "0:15".
bool valid_exit(const std::string& s) {
  const auto c = s.find(':');
  return c != std::string::npos && digits(s.substr(0, c)) && digits(s.substr(c + 1));
}

bool no_controls(const std::string& s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); });
}

// Fields Slurm itself writes (not the owner's name or directory) are checked, so
// output that was split wrongly is refused rather than misread.
bool job_record_ok(const std::vector<std::string>& f) {
  if (!valid_state(f[2]) || !valid_exit(f[3]) || !valid_exit(f[4])) return false;
  for (std::size_t i = 5; i <= 11; ++i)
    if (!no_controls(f[i])) return false;
  return true;
}

bool step_id_ok(const std::string& id, const std::string& job) {
  if (id.size() <= job.size() + 1 || id.compare(0, job.size() + 1, job + ".") != 0) return false;
  return std::all_of(id.begin() + static_cast<std::ptrdiff_t>(job.size() + 1), id.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-'; });
}

std::optional<ProgramOutput> run_sacct(const std::string& id, std::string& delim) {
  delim = sacct_delimiter();
  return run_program({"sacct", "-j", id, "-n", "-P", "--delimiter=" + delim, "-o", kFormat}, std::chrono::seconds(15));
}

bool succeeded(const std::optional<ProgramOutput>& r) {
  return r && WIFEXITED(r->wait_status) && WEXITSTATUS(r->wait_status) == 0;
}

}  // namespace

bool is_final_state(const std::string& state) {
  static const char* transient[] = {"", "PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "RESIZING",
                                    "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "STAGE_OUT", "SIGNALING"};
  for (const char* t : transient)
    if (state == t) return false;
  return true;
}

std::string sacct_delimiter() {
  std::random_device rd;
  std::string d = "#ga";
  char hex[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(rd()));
    d += hex;
  }
  return d + "#";
}

JobAccounting parse_sacct(const std::string& text, const std::string& job, const std::string& delimiter,
                          bool heterogeneous) {
  JobAccounting a;
  const auto recs = records(text, delimiter);
  if (!recs) {
    a.error = "sacct's output for job " + job + " does not split into whole records";
    return a;
  }
  for (const auto& f : *recs) {
    if (f[0] == job) {
      if (a.available) continue;  // sacct lists a job once; a second record is not believed
      if (!job_record_ok(f)) {
        JobAccounting bad;
        bad.error = "sacct's record of job " + job + " is malformed";
        return bad;
      }
      a.available = true;
      a.job_id = f[0];
      a.name = f[1];
      a.state_detail = f[2];  // e.g. "CANCELLED by 1001"
      a.state = a.state_detail.substr(0, a.state_detail.find(' '));
      a.exit_code = f[3];
      a.derived_exit_code = f[4];
      a.elapsed = f[5];
      a.timelimit = f[6];
      a.nodelist = f[7];
      a.partition = f[8];
      a.user = f[9];
      a.start = f[10];
      a.end = f[11];
      a.workdir = f[12];
    } else if (heterogeneous && !f[0].empty() && f[0].size() < 11 && std::all_of(f[0].begin(), f[0].end(), ::isdigit) &&
               job_record_ok(f) && a.components.size() < 1024) {
      // Another whole job in the answer: a component of this heterogeneous job.
      a.components.push_back(static_cast<std::uint32_t>(std::stoul(f[0])));
    }
  }
  for (const auto& f : *recs) {
    bool ours = step_id_ok(f[0], job);
    for (const auto c : a.components) ours = ours || step_id_ok(f[0], std::to_string(c));
    if (ours && valid_state(f[2]) && valid_exit(f[3])) a.steps.push_back({f[0], f[1], f[2].substr(0, f[2].find(' ')), f[3]});
  }
  if (!a.available) a.error = "sacct has no record of job " + job;
  a.final = a.available && is_final_state(a.state);
  return a;
}

namespace {
// Every field slurmdbd fills in after the state: present once the record has settled.
bool settled(const JobAccounting& a) {
  return !a.name.empty() && !a.timelimit.empty() && !a.elapsed.empty() && !a.end.empty() && a.end != "Unknown";
}
}  // namespace

JobAccounting query_job(std::uint32_t job, std::chrono::seconds max_wait,
                        const std::function<bool()>& requeued_since, bool heterogeneous) {
  const std::string id = std::to_string(job);
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + max_wait;
  JobAccounting last;
  last.error = "sacct was not run";
  for (;;) {
    std::string delim;
    const auto r = run_sacct(id, delim);
    if (!r) {
      last.error = "sacct did not answer within 15 s";
    } else if (!succeeded(r)) {
      last.error = "sacct failed: " + r->err.substr(0, 300);
      // Accounting disabled or unreachable: waiting will not help.
      if (r->err.find("disabled") != std::string::npos) return last;
    } else {
      last = parse_sacct(r->out, id, delim, heterogeneous);
      // Accounting lags the job by a moment (it may still say RUNNING here), so
      // only Slurm's own word counts as a requeue.
      if (last.state == "REQUEUED" || (requeued_since && requeued_since())) {
        last.requeued = true;
        return last;
      }
      if (last.final) {
        // slurmdbd fills in the rest of the record (name, limit, end) a moment
        // after the state turns final: read again, briefly, until it has them.
        for (int i = 0; i < 10 && !settled(last); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          const auto again = run_sacct(id, delim);
          if (!succeeded(again)) break;
          JobAccounting next = parse_sacct(again->out, id, delim, heterogeneous);
          if (!next.final) break;
          last = std::move(next);
        }
        return last;
      }
      if (last.available) last.error = "job still " + last.state + " after waiting";
    }
    if (std::chrono::steady_clock::now() >= deadline) return last;
    // Most jobs turn final within a second or two of their epilog: look often at first.
    const bool early = std::chrono::steady_clock::now() < started + std::chrono::seconds(5);
    std::this_thread::sleep_for(early ? std::chrono::milliseconds(250) : std::chrono::milliseconds(1000));
  }
}

}  // namespace gpualert::epilog
