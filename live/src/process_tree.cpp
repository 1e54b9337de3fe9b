#include "gpualert/live/process_tree.hpp"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpualert::live {
namespace {

struct Stat {
  char state = '?';
  double cpu = 0, waited = 0;  // seconds
};

// /proc/PID/stat: "pid (comm) S ppid ... utime stime cutime cstime ..."; comm may hold
// spaces and parentheses, so the fields are counted from the last ')'.
std::optional<Stat> read_stat(const std::string& proc, pid_t pid) {
  std::ifstream in(proc + "/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);  // one line
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream f(text.substr(close + 1));
  std::vector<std::string> v;
  for (std::string w; f >> w && v.size() < 16;) v.push_back(w);
  if (v.size() < 15) return std::nullopt;
  static const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  Stat s;
  s.state = v[0].empty() ? '?' : v[0][0];
  // Fields 14-17 of the file (utime stime cutime cstime) are v[11..14].
  s.cpu = (std::stod(v[11]) + std::stod(v[12])) / tick;
  s.waited = (std::stod(v[13]) + std::stod(v[14])) / tick;
  return s;
}

// Every thread may have started children: /proc/PID/task/TID/children for each.
std::vector<pid_t> children(const std::string& proc, pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator(proc + "/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(t.path() / "children");
    for (long c; in >> c;) out.push_back(static_cast<pid_t>(c));
  }
  return out;
}

}  // namespace

TreeUse tree_use(pid_t root, const char* proc_dir) {
  TreeUse u;
  const std::string proc = proc_dir;
  try {
    const auto r = read_stat(proc, root);
    if (!r || r->state == 'Z' || r->state == 'X') return u;
    u.alive = true;
    double cpu = r->cpu + r->waited;
    std::vector<pid_t> todo = children(proc, root);
    for (std::size_t i = 0; i < todo.size() && i < 100000; ++i) {
      if (const auto s = read_stat(proc, todo[i])) cpu += s->cpu;
      const auto more = children(proc, todo[i]);
      todo.insert(todo.end(), more.begin(), more.end());
    }
    u.cpu_s = cpu;
  } catch (const std::exception&) {
    // A process that went away between two reads: what was summed stands.
  }
  return u;
}

std::vector<pid_t> tree_pids(pid_t root, const char* proc_dir) {
  const std::string proc = proc_dir;
  std::vector<pid_t> all;
  try {
    if (!read_stat(proc, root)) return all;
    all.push_back(root);
    for (std::size_t i = 0; i < all.size() && i < 100000; ++i) {
      const auto more = children(proc, all[i]);
      all.insert(all.end(), more.begin(), more.end());
    }
  } catch (const std::exception&) {
    // what was found stands
  }
  return all;
}

int signal_tree(pid_t root, int sig, const char* proc) {
  int n = 0;
  for (const pid_t p : tree_pids(root, proc))
    if (::kill(p, sig) == 0) ++n;
  return n;
}

std::string process_name(pid_t pid, const char* proc) {
  std::ifstream in(std::string(proc) + "/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

}  // namespace gpualert::live
