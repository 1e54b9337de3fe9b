#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "checks.hpp"
#include "gpualert/config/plugstack_args.hpp"

namespace gpualert::cli::check {
namespace {

constexpr const char* kArea = "plugstack";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// The spool takes every job's log as root: it must be root's and not writable by
// anyone else (the plugin refuses it otherwise, and the jobs get no message).
void check_spool(Report& r, const std::string& spool) {
  struct stat st {};
  if (::lstat(spool.c_str(), &st) != 0) {
    r.info("spool", "does not exist yet: the plugin makes it (root, 0755) at the first job", spool);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    r.fail("spool", "is not a directory (a symlink is refused too)", spool);
    return;
  }
  if (st.st_uid != 0) r.fail("spool", "is owned by uid " + std::to_string(st.st_uid) + ", not root", spool);
  if (st.st_mode & (S_IWGRP | S_IWOTH)) r.fail("spool", "is writable by group or others (chmod 0755)", spool);
  struct statvfs vfs {};
  if (::statvfs(spool.c_str(), &vfs) == 0) {
    const unsigned long long free_mib = static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize >> 20;
    (free_mib < 256 ? r.warn("spool", std::to_string(free_mib) + " MiB free: jobs' logs will be cut short", spool)
                    : r.ok("spool", "root's, 0" + std::to_string((st.st_mode >> 6) & 7) +
                                        std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) + ", " +
                                        std::to_string(free_mib) + " MiB free", spool));
  }
}

void check_entry(Report& r, const config::PlugstackEntry& e, const Options& o) {
  const std::string where = e.file.string() + ":" + std::to_string(e.line);
  for (const auto& err : e.args.errors) r.fail(kArea, err, where);
  if (e.required)
    r.warn(kArea, "'required': if the plugin ever fails to load, every job on the node fails; 'optional' is safer",
           where);
  if (::access(e.plugin.c_str(), R_OK) != 0) r.fail(kArea, "plugin " + e.plugin + " is missing or unreadable", where);
  if (::access(e.args.helper.c_str(), X_OK) != 0)
    r.fail(kArea, "helper " + e.args.helper + " is missing or not executable", where);
  if (e.args.off) {
    r.info(kArea, "loaded but off: jobs that say --gpualert are accepted and get no message", where);
    return;
  }
  if (!e.args.default_on) r.ok(kArea, "enabled; jobs are watched when they ask (--gpualert)", where);
  else if (e.args.partitions.empty()) r.ok(kArea, "enabled; every job is watched unless it says --gpualert=off", where);
  else r.ok(kArea, "enabled; jobs in " + join(e.args.partitions) + " are watched unless they say --gpualert=off, "
                   "others when they ask", where);
  check_spool(r, e.args.spool);
  // The file the helper reads for every job: checked the same way as the system file.
  const std::filesystem::path conf = e.args.conf;
  std::error_code ec;
  if (!std::filesystem::exists(conf, ec)) {
    r.warn(kArea, "conf " + conf.string() + " does not exist: the helper uses built-in defaults (no relay)", where);
    return;
  }
  if (std::filesystem::equivalent(conf, config::system_config_path(), ec)) return;  // checked above
  config::Loader l;
  l.apply_value("outbox", (std::filesystem::path(e.args.spool) / "outbox").string(), "default");
  l.apply_site_file(conf);
  for (const auto& p : l.problems()) r.fail("site conf", p.message, p.where);
  check_rules(r, l.settings(), "site rules");
  check_delivery(r, l.settings(), o.probe_relay, "site delivery");
}

}  // namespace

void check_plugstack(Report& r, const Options& o) {
  std::filesystem::path file = o.plugstack ? *o.plugstack : std::filesystem::path("/etc/slurm/plugstack.conf");
  std::error_code ec;
  if (!o.plugstack && !std::filesystem::exists(file, ec)) {
    r.info(kArea, "no " + file.string() + ": the Slurm plugin is not set up on this host");
    return;
  }
  const auto scan = config::scan_plugstack(file);
  for (const auto& p : scan.problems) r.fail(kArea, p);
  if (scan.entries.empty() && scan.problems.empty()) {
    r.info(kArea, "no line loads gpualert.so: the plugin is off (read " + std::to_string(scan.files_read.size()) +
                      " file(s))", file.string());
    return;
  }
  if (scan.entries.size() > 1)
    r.fail(kArea, "gpualert.so is loaded " + std::to_string(scan.entries.size()) + " times; keep one line",
           file.string());
  for (const auto& e : scan.entries) check_entry(r, e, o);
}

}  // namespace gpualert::cli::check
