// gpualert.so: the SPANK hooks. Each hook is a thin C entry point that catches
// every exception and always returns success: a monitoring plugin must never
// fail a job, a step or a node. No network I/O and no waiting happen here; the
// diagnosis runs later in the detached gpualert-epilog helper.
extern "C" {
#include <slurm/spank.h>
// SPANK_PLUGIN defines these as const objects; in C++ they need external linkage.
extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
SPANK_PLUGIN(gpualert, 1)
}

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gpualert/common/text.hpp"
#include "gpualert/spool/spool_dir.hpp"
#include "slurm_compat.hpp"
#include "gpualert/spool/step_record.hpp"
#include "helper_launch.hpp"
#include "gpualert/spool/job_start_capture.hpp"
#include "option_value.hpp"
#include "gpualert/config/plugstack_args.hpp"
#include "task_tee.hpp"

namespace {

using gpualert::spank::OptionValue;
using gpualert::config::PluginArgs;

// Per-process state. slurmstepd, each task child and srun each have their own copy.
PluginArgs g_args;
OptionValue g_option;      // what --gpualert said in this process's context
int g_log_fd = -1;         // task child: opened as root, used by task_init
std::uint64_t g_head = 0, g_tail = 0;  // this task's share of the job's log budget
int g_streams_fd = -1;
int g_live_fd = -1;        // task child: the live sample the tee keeps for the live watcher
std::string g_started;
std::vector<gpualert::spool::TaskRecord> g_tasks;  // slurmstepd: filled by task_exit
uid_t g_job_uid = 0;   // slurmstepd: the job's user, for the recipient rule
int g_restart = -1;  // SLURM_RESTART_COUNT as slurmstepd saw it at init (tasks inherit it)
std::string g_partition;  // the partition the job runs in (slurmstepd and job_epilog)
bool g_other_release = false;  // running under a Slurm release the plugin was not built for

int option_callback(int, const char* optarg, int remote);

// A problem the admin should see. Slurm forwards slurmstepd's and a task's
// error lines into the job's own output (or a shared output file), so in those
// contexts it goes to the spool's admin log instead; srun/sbatch/salloc show it
// to the user who typed the command.
void problem(const std::string& text) {
  const auto ctx = spank_context();
  if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR) {
    slurm_error("gpualert: %s", text.c_str());
    return;
  }
  slurm_debug("gpualert: %s", text.c_str());
  std::string why;
  if (auto spool = gpualert::spool::open_spool_root(g_args.spool, why)) gpualert::spool::admin_log(*spool, text);
}

std::string user_name(uid_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || !found) return {};
  return found->pw_name;
}

struct spank_option g_spank_option = {
    const_cast<char*>("gpualert"), const_cast<char*>("[on|off|addr,...]"),
    const_cast<char*>("gpualert: when the job ends, mail why it ended (verdict, evidence, log). "
                      "Optional recipients; default: --mail-user or your configured address."),
    2, 0, option_callback};

// Checks one --gpualert value. Refused on the submit side, before the job is
// queued; in slurmstepd only reported (failing there would fail the job) and
// the recipients dropped, so the message goes to the job's default address.
int check_option(const char* optarg, int remote) {
  std::string why;
  auto v = gpualert::spank::parse_option_value(optarg, why);
  if (v) {
    uid_t uid = ::getuid();
    if (remote) uid = g_job_uid;
    if (auto refused = gpualert::config::refuse_recipients(v->to, g_args.recipients, user_name(uid))) {
      why = *refused;
      if (remote) v->to.clear();
      else v.reset();
    }
  }
  if (!why.empty()) {
    if (remote) problem(why);
    else slurm_error("%s", why.c_str());
  }
  if (!v) return remote ? 0 : -1;
  // The remote callback may run twice (NULL, then ""): keep explicit recipients.
  if (!g_option.given || !v->to.empty() || v->off) g_option = *v;
  return 0;
}

int option_callback(int, const char* optarg, int remote) {
  // Off (the plugstack says `off`, or another Slurm release): accept, do nothing.
  if (g_other_release || g_args.off) return 0;
  try {
    return check_option(optarg, remote);
  } catch (...) {
    return 0;  // never fail a job over its option
  }
}

// default=on, narrowed by partitions= to the partitions being rolled out.
bool on_by_default() { return gpualert::config::on_by_default(g_args, g_partition); }

bool enabled() {
  if (g_args.off || g_other_release) return false;
  if (g_option.given) return !g_option.off;
  return on_by_default();
}

std::string now_iso() { return gpualert::iso8601_utc(std::chrono::system_clock::now()); }

std::string node_name(spank_t sp) {
  char buf[256] = {};
  if (spank_getenv(sp, "SLURMD_NODENAME", buf, sizeof buf) == ESPANK_SUCCESS && buf[0]) return buf;
  if (const char* e = getenv("SLURMD_NODENAME"); e && *e) return e;
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

// SLURM_RESTART_COUNT from the job's environment (0 for a job's first run).
int restart_count(spank_t sp) {
  char buf[32] = {};
  if (spank_getenv(sp, "SLURM_RESTART_COUNT", buf, sizeof buf) != ESPANK_SUCCESS) return 0;
  return std::atoi(buf);
}

int run_index(spank_t sp) { return g_restart >= 0 ? g_restart : restart_count(sp); }

template <typename T>
bool item(spank_t sp, spank_item_t what, T* out) {
  return spank_get_item(sp, what, out) == ESPANK_SUCCESS;
}

// What this task's log may keep: the job's budget on this node (log_job=) less
// what its earlier steps already hold, shared by the step's tasks here; never
// more than log_head= / log_tail=, never less than 64 KiB each.
void set_task_share(spank_t sp, const gpualert::spool::DirFd& dir) {
  std::uint64_t used = 0;
  for (const auto& n : gpualert::spool::list_names(dir.get())) {
    struct stat st {};
    if (::fstatat(dir.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      used += static_cast<std::uint64_t>(st.st_blocks) * 512;
  }
  uint32_t tasks = 1;
  if (!item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) || tasks == 0) tasks = 1;
  const std::uint64_t left = g_args.log_job > used ? g_args.log_job - used : 0;
  const std::uint64_t half = left / tasks / 2, floor = 64 << 10;
  g_head = std::max(floor, std::min(g_args.log_head, half));
  g_tail = std::max(floor, std::min(g_args.log_tail, half));
}

// The job's directory, made and bound to its user when missing; what went wrong, or a
// reused id's directory moved aside, goes to the admin log.
std::optional<gpualert::spool::DirFd> bind_job_dir(const gpualert::spool::DirFd& spool, uint32_t job, uid_t uid) {
  std::string why, note;
  auto dir = gpualert::spool::open_job_dir(spool, job, uid, true, why, &note);
  if (!note.empty()) gpualert::spool::admin_log(spool, "job " + std::to_string(job) + ": " + note);
  if (!dir) gpualert::spool::admin_log(spool, "job directory for " + std::to_string(job) + " unusable: " + why);
  return dir;
}

// task_init_privileged: as root, in the task's own process, before the user's
// program exists. Creates the task's log so that even an exec failure is kept.
void open_task_log(spank_t sp) {
  uint32_t job = 0, step = 0, task = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  if (!item(sp, S_JOB_ID, &job) || !item(sp, S_JOB_STEPID, &step) || !item(sp, S_TASK_GLOBAL_ID, &task) ||
      !item(sp, S_JOB_UID, &uid) || !item(sp, S_JOB_GID, &gid)) {
    problem("job items unavailable in task_init_privileged; this task is not captured");
    return;
  }
  std::string why;
  auto spool = gpualert::spool::open_spool_root(g_args.spool, why);
  if (!spool) {
    problem("spool " + g_args.spool + " unusable (" + why + "); job " + std::to_string(job) + " is not captured");
    return;
  }
  auto dir = bind_job_dir(*spool, job, uid);
  if (!dir) return;
  set_task_share(sp, *dir);
  const std::string name =
      gpualert::spool::task_log_name(gpualert::spool::step_name(step), task, ::getppid());
  std::string used;
  g_log_fd = gpualert::spool::create_owned_file(*dir, name, uid, gid, used, why);
  if (g_log_fd < 0) {
    gpualert::spool::admin_log(*spool, "job " + std::to_string(job) + ": cannot create " + name + ": " + why);
    return;
  }
  // "x.log" -> "x.streams"; "x.log.1" (the name was taken) -> "x.streams.1".
  std::string streams = used;
  streams.replace(streams.rfind(".log"), 4, ".streams");
  // (the task's parent is this step's slurmstepd: the same run tag exit() uses)
  std::string streams_used;
  g_streams_fd = gpualert::spool::create_owned_file(*dir, streams, uid, gid, streams_used, why);
  // "x.log" -> "x.NODE.live": the node names it, for a spool that several nodes share.
  std::string live = used;
  live.replace(live.rfind(".log"), 4, "." + gpualert::spool::safe_component(node_name(sp)) + ".live");
  std::string live_used;
  g_live_fd = gpualert::spool::create_owned_file(*dir, live, uid, gid, live_used, why);
  ::fsync(g_log_fd);
  ::fsync(dir->get());
}

void write_step_record(spank_t sp) {
  uint32_t job = 0, step = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  if (!item(sp, S_JOB_ID, &job) || !item(sp, S_JOB_STEPID, &step)) return;
  item(sp, S_JOB_UID, &uid);
  item(sp, S_JOB_GID, &gid);
  gpualert::spool::StepRecord r;
  r.job = job;
  r.step = gpualert::spool::step_name(step);
  r.node = node_name(sp);
  r.restart = run_index(sp);
  r.uid = uid;
  r.gid = gid;
  r.started = g_started;
  r.ended = now_iso();
  r.to = g_option.to;
  r.tasks = g_tasks;
  for (auto& t : r.tasks) {
    t.log = gpualert::spool::task_log_name(r.step, t.task, ::getpid());
    t.streams = t.log.substr(0, t.log.size() - 4) + ".streams";
  }
  std::string why;
  auto spool = gpualert::spool::open_spool_root(g_args.spool, why);
  auto dir = spool ? gpualert::spool::open_job_dir(*spool, job, uid, true, why) : std::nullopt;
  if (!dir || !gpualert::spool::write_atomic_at(*dir, gpualert::spool::step_file_name(r.step, r.node, ::getpid()),
                                                gpualert::spool::to_json(r).dump(1) + "\n", 0, 0, why))
    problem("step record for " + std::to_string(job) + "." + r.step + " not written: " + why);
}

// Whether any step of JOB on this node asked for a message: only such steps
// leave a step record. A directory listing on the node's own disk, no waiting.
bool steps_asked(uint32_t job, uid_t uid) {
  std::string why;
  auto spool = gpualert::spool::open_spool_root(g_args.spool, why);
  auto dir = spool ? gpualert::spool::open_job_dir(*spool, job, uid, false, why) : std::nullopt;
  return dir && gpualert::spool::has_step_records(*dir);
}

std::optional<std::string> env_value(const char* name) {
  if (const char* v = getenv(name)) return std::string(v);
  return std::nullopt;
}

// job_prolog: as root on each node, before any of the job's programs: binds the job's
// spool directory to this job and leaves the job-start record (GPUs, kernel-log
// positions, the GPU faults of the hours before) for the epilog helper.
void write_job_start(spank_t sp) {
  uint32_t job = 0;
  uid_t uid = 0;
  if (!item(sp, S_JOB_ID, &job) || !item(sp, S_JOB_UID, &uid)) {
    problem("job_prolog: job id or user unavailable; no job-start record");
    return;
  }
  gpualert::spool::JobStartInputs in;
  in.job = job;
  in.uid = uid;
  in.node = node_name(sp);
  in.slurm_job_gpus = env_value("SLURM_JOB_GPUS");
  in.cuda_visible_devices = env_value("CUDA_VISIBLE_DEVICES");
  in.gpus_dir = g_args.gpus_dir;
  std::string why;
  if (!gpualert::spool::leave_job_start(g_args.spool, in, why))
    problem("no job-start record for job " + std::to_string(job) + ": " + why);
}

// The name of the marker that ends this node's live watcher of the job.
std::string live_end_name(spank_t sp) { return "live-end." + gpualert::spool::safe_component(node_name(sp)); }

// job_prolog: the job's live watcher on this node (it reads the tasks' samples and
// stays only on the job's first node). The end marker of an earlier run of the same
// job (a requeue) is taken away first, here, before any of this run's steps.
void start_live_watcher(spank_t sp) {
  uint32_t job = 0;
  uid_t uid = 0;
  if (!item(sp, S_JOB_ID, &job) || !item(sp, S_JOB_UID, &uid)) return;
  std::string why;
  auto spool = gpualert::spool::open_spool_root(g_args.spool, why);
  auto dir = spool ? bind_job_dir(*spool, job, uid) : std::nullopt;
  if (!dir) return;
  if (::unlinkat(dir->get(), live_end_name(sp).c_str(), 0) != 0 && errno != ENOENT)
    gpualert::spool::admin_log(*spool, "job " + std::to_string(job) + ": stale live end marker: " + std::strerror(errno));
  gpualert::spank::launch_live_watcher(g_args, g_option, job, uid, node_name(sp));
}

// job_epilog: the job is over on this node; its live watcher sees the marker and ends.
void end_live_watch(spank_t sp) {
  uint32_t job = 0;
  uid_t uid = 0;
  if (!item(sp, S_JOB_ID, &job) || !item(sp, S_JOB_UID, &uid)) return;
  std::string why;
  auto spool = gpualert::spool::open_spool_root(g_args.spool, why);
  auto dir = spool ? gpualert::spool::open_job_dir(*spool, job, uid, false, why) : std::nullopt;
  if (!dir) return;
  const int fd = ::openat(dir->get(), live_end_name(sp).c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
}

// The plugin is built against one Slurm release (the SPANK ABI and the spool
// records assume its behaviour). Under another release it stays out of the way:
// one clear line, and no hook does anything.
bool release_matches(spank_t sp) {
  static int verdict = -1;  // per process: -1 unknown, 0 different, 1 the same
  if (verdict >= 0) return verdict == 1;
  char* major = nullptr;
  char* minor = nullptr;
  if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) != ESPANK_SUCCESS || !major ||
      spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) != ESPANK_SUCCESS || !minor)
    return true;  // cannot tell: behave as built (the package pins the release)
#ifdef GPUALERT_TEST_BUILT_FOR  // a test build that pretends to be for another release
  constexpr unsigned built_for = GPUALERT_TEST_BUILT_FOR;
#else
  constexpr unsigned built_for = SLURM_VERSION_NUMBER;
#endif
  const int built_major = SLURM_VERSION_MAJOR(built_for), built_minor = SLURM_VERSION_MINOR(built_for);
  verdict = std::atoi(major) == built_major && std::atoi(minor) == built_minor ? 1 : 0;
  if (verdict == 0) {
    g_other_release = true;
    char built[16];
    std::snprintf(built, sizeof built, "%d.%02d", built_major, built_minor);
    problem(std::string("built for Slurm ") + built + ", running under Slurm " + major + "." + minor +
            ": gpualert is off on this node until a package built for this release is installed");
  }
  return verdict == 1;
}

// Every hook body runs inside this: whatever happens, Slurm sees success.
template <typename F>
int guarded(spank_t sp, const char* hook, F&& body) {
  try {
    if (!release_matches(sp)) return ESPANK_SUCCESS;
    body();
  } catch (const std::exception& e) {
    problem(std::string(hook) + ": " + e.what());
  } catch (...) {
    problem(std::string(hook) + ": unknown exception");
  }
  return ESPANK_SUCCESS;
}

// The hooks that get the plugstack arguments read them first, so that even the
// release check's line goes to the configured spool's admin log.
template <typename F>
int guarded(spank_t sp, const char* hook, int ac, char** av, F&& body) {
  try {
    g_args = gpualert::config::parse_plugin_args(ac, av);
  } catch (...) {
    // the defaults stand
  }
  if (g_args.off) return ESPANK_SUCCESS;  // the admin turned it off: the option stays, nothing runs
  return guarded(sp, hook, std::forward<F>(body));
}

}  // namespace

extern "C" {

int slurm_spank_init(spank_t sp, int ac, char** av) {
  // Registered whatever else happens, even under another Slurm release: a job that
  // says --gpualert must never be refused for it (it then gets no message, and the
  // admin log says why).
  if (spank_option_register(sp, &g_spank_option) != ESPANK_SUCCESS)
    slurm_debug("gpualert: option not registered in this context");
  return guarded(sp, "init", ac, av, [&] {
    if (spank_context() == S_CTX_REMOTE || spank_context() == S_CTX_SLURMD)
      for (const auto& e : g_args.errors) problem("plugstack.conf: " + e);
    if (spank_context() == S_CTX_REMOTE) item(sp, S_JOB_UID, &g_job_uid);
    // Read once in slurmstepd, before tasks fork, so the task's log name and the
    // step record written at exit agree on which run of a requeued job this is.
    if (spank_context() == S_CTX_REMOTE) g_restart = restart_count(sp);
    if (spank_context() == S_CTX_REMOTE) {
      char part[256] = {};
      if (spank_getenv(sp, "SLURM_JOB_PARTITION", part, sizeof part) == ESPANK_SUCCESS) g_partition = part;
    }
    g_started = now_iso();
  });
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char** av) {
  return guarded(sp, "task_init_privileged", ac, av, [&] {
    if (enabled()) open_task_log(sp);
  });
}

int slurm_spank_task_init(spank_t sp, int, char**) {
  return guarded(sp, "task_init", [&] {
    if (g_log_fd < 0) return;
    const int log = g_log_fd, streams = g_streams_fd, live = g_live_fd;
    g_log_fd = g_streams_fd = g_live_fd = -1;
    if (!gpualert::spank::start_task_tee(log, streams, live, g_head, g_tail, g_args.spool_floor))
      problem(std::string("could not start the output tee (") + std::strerror(errno) + "); output is not captured");
  });
}

int slurm_spank_task_exit(spank_t sp, int, char**) {
  return guarded(sp, "task_exit", [&] {
    if (!enabled()) return;
    gpualert::spool::TaskRecord t;
    int status = 0;
    pid_t pid = 0;
    item(sp, S_TASK_GLOBAL_ID, &t.task);
    if (item(sp, S_TASK_EXIT_STATUS, &status)) t.wait_status = status;
    if (item(sp, S_TASK_PID, &pid)) t.pid = pid;
    g_tasks.push_back(t);
  });
}

int slurm_spank_exit(spank_t sp, int ac, char** av) {
  return guarded(sp, "exit", ac, av, [&] {
    if (spank_context() == S_CTX_REMOTE && enabled() && !g_tasks.empty()) write_step_record(sp);
  });
}

int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
  return guarded(sp, "job_prolog", ac, av, [&] {
    // Taken for every job the plugin may watch: a step can still ask with
    // srun --gpualert, which the prolog cannot know yet. Not for --gpualert=off.
    char* arg = nullptr;
    if (spank_option_getopt(sp, &g_spank_option, &arg) == ESPANK_SUCCESS) option_callback(0, arg, 1);
    if (g_option.given && g_option.off) return;
    if (g_args.prolog) write_job_start(sp);
    start_live_watcher(sp);
  });
}

int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
  return guarded(sp, "job_epilog", ac, av, [&] {
    // job_epilog runs in a process where slurm_spank_init may not have run: the
    // arguments were read again just before (guarded).
    uid_t uid = 0;
    if (item(sp, S_JOB_UID, &uid)) g_job_uid = uid;
    end_live_watch(sp);
    // The epilog's own environment names the job's partition (Slurm sets it for epilogs).
    if (const char* part = getenv("SLURM_JOB_PARTITION")) g_partition = part;
    char* arg = nullptr;
    if (spank_option_getopt(sp, &g_spank_option, &arg) == ESPANK_SUCCESS) option_callback(0, arg, 1);
    // A job whose sbatch/salloc line did not ask may still have steps that did
    // (srun --gpualert inside the script): their step records are in the spool.
    if (g_option.given ? g_option.off : !on_by_default()) {
      uint32_t job = 0;
      if (g_option.off || !item(sp, S_JOB_ID, &job) || !steps_asked(job, uid)) return;
    }
    gpualert::spank::launch_helper(g_args, g_option);
  });
}

}  // extern "C"
