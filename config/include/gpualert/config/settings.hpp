#pragma once
// Everything a user or site can set, with the defaults that make gpualert work
// with nothing configured (mail goes to a local outbox).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpualert::config {

struct Settings {
  // Delivery. transport: smtp (smtp_url; empty = no relay: messages stay in the outbox),
  // sendmail (hand each message to the node's MTA at sendmail_path), or spool (jobs
  // only store messages in the outbox, a shared spool; `gpualert sender` elsewhere sends).
  std::string transport = "smtp";
  std::filesystem::path sendmail_path = "/usr/sbin/sendmail";
  std::string smtp_url;
  std::string smtp_user;
  std::filesystem::path smtp_password_file;
  std::string smtp_tls = "auto";  // auto | required | off
  std::filesystem::path smtp_ca_file;
  bool smtp_verify_peer = true;
  std::string from;             // default: gpualert@<host>
  // Mail addresses and channels ("slack:team-ml", destinations.hpp). Default: <user>@<host>.
  std::vector<std::string> to;
  // Each channel's URL, a secret: "KIND:NAME URL" lines in a file only its owner reads.
  std::filesystem::path channels_file = "/etc/gpualert/channels.conf";
  std::chrono::milliseconds send_timeout{15000};
  // How undelivered messages are retried (the sender and every pass over the outbox):
  // backoff from retry_base doubling up to retry_max, with jitter; given up after
  // expire_after, with one notice to admin_to. Send rates per minute (0: no limit).
  std::chrono::milliseconds retry_base{60000}, retry_max{3600000};
  std::chrono::milliseconds expire_after{72LL * 3600 * 1000};
  std::vector<std::string> admin_to;
  // Cluster faults (a verdict attributed to infra: gpu_hardware, node_fail, ...) also go
  // to infra_to (default: admin_to; none: not sent), one message per node and GPU:
  // infra_gather after its first job, then at most one per infra_window.
  std::vector<std::string> infra_to;
  std::chrono::milliseconds infra_gather{120000}, infra_window{6LL * 3600 * 1000};
  int rate_global = 0, rate_recipient = 0;
  // Digests: past digest_burst failures to one recipient within digest_window, or
  // after the first failing task of an array (array_mail = digest; "task": each on its
  // own), failures are held and sent together once quiet for digest_quiet. Only
  // where a sender runs (it sends them).
  bool digest = true;
  int digest_burst = 5;
  std::chrono::milliseconds digest_window{600000}, digest_quiet{60000};
  std::string array_mail = "digest";
  // Which runs are told about: none (opted out), failures (failed or killed), bad (also a
  // run that exited 0 but is not healthy), all (healthy ones too).
  std::string notify = "all";
  // What reaches a user whatever NOTIFY says (the site's choice): none, infra (a fault of
  // the cluster), failures (every failure).
  std::string notify_floor = "none";
  // Under Slurm: whether the helper reads each user's own file (as that user; only
  // notify, to, html and digest_window are taken from it).
  bool user_config = true;
  // The sender: more spools it serves besides the outbox, and its pause between passes.
  std::vector<std::filesystem::path> spools;
  std::chrono::milliseconds sender_interval{30000};

  // Where things live.
  std::filesystem::path state_dir;  // default: $XDG_STATE_HOME/gpualert or ~/.local/state/gpualert
  std::filesystem::path outbox;     // default: <state_dir>/outbox
  // Space the outbox keeps set aside (a preallocated file it gives up when the
  // disk is full), so a spool that others filled still takes this message. 0: none.
  std::uint64_t outbox_reserve = 0;
  // The most of a run's output its log keeps on disk: past it, the first quarter and the
  // last three quarters stay and the middle is released (the run's own stdout/stderr
  // still get every byte). A 10 GB run must not fill the user's quota. 0: no limit.
  std::uint64_t log_max = 2ull << 30;
  std::vector<std::filesystem::path> rule_files;  // site/user rule files added to the built-in set
  bool kernel_events = true;  // read the node's journal / kernel log for Xid, ECC and OOM-killer records
  // Under Slurm: store the verdict in the job's accounting record (SystemComment), the
  // fleet store `gpualert report` reads.
  bool accounting = true;
  // Live alerts while the run still holds its GPUs (gpualert run): stalled (no output for
  // stall_after while the command lives), a non-finite loss, a loss that rose steadily, or
  // a pace that cannot reach the printed total within time_limit (0: no limit known).
  bool live = true;
  std::chrono::milliseconds stall_after{30 * 60 * 1000}, live_interval{15000}, time_limit{0};
  // Ending a stalled run to free its GPUs: when the stall is still true this long after its
  // alert (0: never). A Slurm job is ended only where the site also set allow_cancel.
  std::chrono::milliseconds cancel_after_stall{0};
  bool allow_cancel = false;
  // Silence before an ended run that makes it a hang (at least 20 late steps long too).
  std::chrono::milliseconds hang_after{300000};

  // The message.
  std::uint64_t attach_budget = 20ull << 20;  // encoded bytes for all attachments
  // An HTML rendering beside the plain text (multipart/alternative), with the loss curve.
  bool html = true;
  int tail_lines = 40;                        // log lines shown inline in the body
  std::vector<std::string> artifacts;         // globs relative to the working directory
};

// A problem found while reading settings. Never fatal: the job still runs.
struct Problem {
  std::string where;    // "file:line", "GPUALERT_SEND_TIMEOUT" or "--send-timeout"
  std::string message;
  std::string text() const { return where + ": " + message; }
};

}  // namespace gpualert::config
