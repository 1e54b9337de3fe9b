#pragma once
// Kernel and GPU-driver events of a node in a time window: NVIDIA Xid records,
// uncorrectable ECC / row-remap failures, "fallen off the bus", clock-throttle
// notices and OOM-killer records. Read from the systemd journal (sd-journal) when
// available, the kernel ring buffer (/dev/kmsg), and kernel-log text (a kern.log,
// saved `dmesg` output). One call: read_kernel_events(from, to, sources).
// A text file cannot prove a line came from the kernel (any user can put a
// "kernel: NVRM: Xid" line into syslog): only pass files the reader chose to trust.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpualert::events {

using Clock = std::chrono::system_clock;

enum class Kind { xid, ecc, row_remap, fallen_off_bus, throttle, oom_kill, other };

struct Event {
  Clock::time_point time{};  // epoch (time_since_epoch()==0) when the source had no usable time
  std::string source;        // "journal", "file:<path>"
  std::string text;          // the message, e.g. "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus."
  Kind kind = Kind::other;
  std::optional<int> xid;    // the Xid number for Kind::xid
  std::optional<int> pid;    // the process named by an Xid or OOM-kill record
  std::optional<int> uid;    // the owner of the OOM-killed process, when the record says
  std::string cgroup;        // the OOM-killed task's memory cgroup ("task_memcg=..."), when given
  std::string bus_id;        // the GPU a GPU record names, as normalize_bus_id gives it ("0000:3b:00"); empty: none named
  std::optional<std::uint64_t> seq;  // the ring buffer's sequence number (kmsg records only)
  bool has_time() const { return time.time_since_epoch().count() != 0; }
};

struct EventSources {
  bool journal = true;                         // the systemd journal, its _TRANSPORT=kernel records only
  std::filesystem::path journal_dir;           // empty: the local system journal; else sd_journal_open_directory
  bool kmsg = true;                            // the kernel ring buffer (needs root where dmesg_restrict=1)
  std::filesystem::path kmsg_path = "/dev/kmsg";
  std::vector<std::filesystem::path> files;    // kernel-log text the caller trusts (saved dmesg -T/--time-format iso, kern.log)
  std::size_t max_events = 5000;               // bound on what is returned (the earliest are kept)
  // Positions a job-start record took (the prolog): only what came after them is read
  // from those sources, whatever the stamps say (a record's time is its source's guess).
  std::optional<std::uint64_t> kmsg_after_seq;
  std::string journal_after_cursor;
};

// What was read and what could not be: a verdict says "no kernel log" only when
// nothing could be read.
struct ReadReport {
  std::vector<Event> events;
  std::vector<std::string> read;    // sources that were read ("journal", "file:/var/log/kern.log")
  std::vector<std::string> errors;  // sources that failed, with the reason
  bool any_source() const { return !read.empty(); }
};

// The one-call API: relevant events with FROM <= time <= TO, oldest first. Events of a
// text source without a parsable time are kept (their time is the epoch).
std::vector<Event> read_kernel_events(Clock::time_point from, Clock::time_point to, const EventSources& sources);
ReadReport read_kernel_events_report(Clock::time_point from, Clock::time_point to, const EventSources& sources);

// Whether this build can read the journal (libsystemd was found at build time).
bool journal_supported();

// A GPU's PCI address in one form, whichever way it was printed: the kernel's
// "PCI:0000:3b:00" and "0000:3b:00.0", nvidia-smi's "00000000:3B:00.0", /proc's
// "Bus Location: 0000:3b:00.0" all give "0000:3b:00" (domain, bus, device; lower
// case; the function dropped, since a GPU is one device). nullopt: no address in S.
// FIND: the first address inside a longer text, else S must be one address whole.
std::optional<std::string> normalize_bus_id(std::string_view s, bool find = false);

// Text-level helpers (also used by the classifier on lines merged into a job log).
// Classifies one kernel-log message; nullopt when it is not a relevant event.
std::optional<Event> parse_event_text(std::string_view message);
// Parses a kernel-log text (one record per line: "[12345.678] msg", dmesg -T, ISO / syslog
// prefixes, journalctl -o short-iso) into relevant events. BOOT is the boot time used
// for "[seconds since boot]" stamps (nullopt: read /proc/stat btime).
std::vector<Event> parse_kernel_log(std::string_view text, std::string_view source,
                                    std::optional<Clock::time_point> boot = std::nullopt);

// The ring buffer: its text ("prio,seq,usec,flags;message" records) read without
// blocking, and the records parsed; ZERO is the wall-clock time of usec 0 (boot).
std::optional<std::string> read_kmsg_text(const std::filesystem::path& path, std::string& error);
std::vector<Event> parse_kmsg(std::string_view text, std::string_view source, Clock::time_point zero);
// The same for only the records whose line holds NEEDLE, in one pass over TEXT (the job
// prolog reads a whole ring buffer at each start; "NVRM" selects the GPU driver's).
std::vector<Event> parse_kmsg_with(std::string_view text, std::string_view needle, std::string_view source,
                                   Clock::time_point zero);
Clock::time_point kmsg_zero();
// The sequence number of the last record in a ring-buffer text (nullopt: no record).
std::optional<std::uint64_t> kmsg_last_seq(std::string_view text);

// The journal's position now (its last entry's cursor), for a later read of only what
// came after. nullopt with ERROR when there is no journal or this build cannot read it.
std::optional<std::string> journal_tail_cursor(std::string& error);

// NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors), reduced to who must act.
enum class XidBlame { application, hardware, driver, informational, unknown };
struct XidInfo {
  int xid;
  XidBlame blame;
  const char* meaning;
};
const XidInfo& xid_info(int xid);  // unknown numbers give blame unknown
const char* to_string(XidBlame b);

}  // namespace gpualert::events
