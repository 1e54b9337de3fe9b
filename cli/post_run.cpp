#include "post_run.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <iostream>

#include "artifacts.hpp"
#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/verdict_format.hpp"
#include "gpualert/common/durable_file.hpp"
#include "gpualert/common/wait_status.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/live/watcher.hpp"
#include "gpualert/report/channel_posts.hpp"
#include "gpualert/report/delivery.hpp"
#include "gpualert/report/message_builder.hpp"
#include "gpualert/report/notify_choice.hpp"
#include "gpualert/report/run_evidence.hpp"
#include "commands.hpp"
#include "post_run_wire.hpp"
#include "run_record.hpp"

namespace gpualert::cli {
namespace {

// Below this a log is attached (compressed if need be) in well under a second.
constexpr std::uint64_t kStoreOnceBytes = 4u << 20;


classify::Classifier load_classifier(const config::Settings& s, std::vector<std::string>& problems) {
  std::string note;
  auto c = classify::Classifier::with_builtin_rules_or_alone(s.rule_files, note);
  if (!note.empty()) problems.push_back(note);
  return c;
}

classify::Verdict diagnose(const PostRunInput& in, std::chrono::steady_clock::time_point read_by,
                           std::vector<std::string>& problems) {
  classify::RunStatus status;
  status.read_deadline = read_by;
  if (in.facts.wait_status) status.exit_code = signed_exit_code(*in.facts.wait_status);
  status.exec_failed = in.facts.exec_failed;
  if (in.child_pid > 0) status.pids.push_back(in.child_pid);
  status.uid = static_cast<int>(::getuid());  // the child runs as the wrapper's user
  if (in.settings.kernel_events) {
    // The GPUs the child was given (the wrapper passed its environment on): a fault of
    // another GPU of a shared node is then a neighbour's.
    if (const auto list = report::gpus_from_environment())
      report::add_job_gpus(status, list->first, list->second, problems);
    report::add_kernel_events(status, in.facts.started, in.facts.ended, problems);
  }
  status.hang_after_s = static_cast<double>(in.settings.hang_after.count()) / 1000.0;
  if (!in.streams.empty()) status.seconds_silent_before_end = report::silence_before_end(in.streams, in.facts.duration);
  const auto classifier = load_classifier(in.settings, problems);
  if (in.facts.log.empty()) return classifier.classify_text("", status);
  return classifier.classify_file(in.facts.log, status);
}

}  // namespace

int post_run(const PostRunInput& in) {
  // The order keeps the message safe from everything optional: the verdict (a log
  // too big for the time is read in part), then the message stored, then the
  // attachments with the time left, then sending.
  const auto t0 = std::chrono::steady_clock::now();
  const auto read_by = t0 + kWorkAllowance * 2 / 5;
  const auto attach_by = t0 + kWorkAllowance * 4 / 5;
  report::RunFacts facts = in.facts;
  // The live alerts the run had: the verdict's message says they were sent.
  if (!facts.run_dir.empty())
    for (const auto& a : live::sent_alerts(facts.run_dir)) facts.extra.emplace_back("live alert", a);
  try {
    if (!in.run_json.empty()) {
      try {
        write_file_atomic(in.run_json, run_record(facts, true, in.log_error).dump(2) + "\n");
      } catch (const std::exception& e) {
        facts.problems.push_back(std::string("run.json not updated: ") + e.what());
      }
    }
    classify::Verdict v;
    try {
      v = diagnose(in, read_by, facts.problems);
    } catch (const std::exception& e) {
      facts.problems.push_back(std::string("the log could not be classified: ") + e.what());
      classify::RunStatus status;
      if (facts.wait_status) status.exit_code = signed_exit_code(*facts.wait_status);
      v = classify::Classifier::with_builtin_rules().classify_text("", status);
    }
    if (!in.verdict_json.empty()) {
      try {
        write_file_atomic(in.verdict_json, classify::to_json(v).dump(2) + "\n");
      } catch (const std::exception& e) {
        facts.problems.push_back(std::string("verdict.json not written: ") + e.what());
      }
    }
    if (const auto choice = report::notify_choice(v, facts, in.settings); !choice.send) {
      if (!in.quiet) std::cerr << report::summary(v, facts, choice.why) << std::flush;
      return 0;
    }
    const auto arts = select_artifacts(in.settings.artifacts, facts.cwd);
    facts.problems.insert(facts.problems.end(), arts.problems.begin(), arts.problems.end());
    report::MessageInputs mi;
    mi.from = in.settings.from;
    mi.to = config::mail_addresses(in.settings.to);
    mi.budget = in.settings.attach_budget;
    mi.tail_lines = in.settings.tail_lines;
    mi.html = in.settings.html;
    mi.artifacts = arts.files;
    mi.refused = arts.refused;
    mi.attach_give_up = attach_by;
    // A small log with nothing else to attach: the whole message at once, stored once.
    // Otherwise first the message without attachments (compressing a huge log must
    // never starve it), then the full one in its place if it is ready in time.
    const bool small = arts.files.empty() && facts.log_bytes < kStoreOnceBytes;
    report::MessageInputs quick = mi;
    quick.without_attachments = true;
    // Inside a Slurm job (`gpualert run` in a batch script): the job's id goes with the
    // message, so `journalctl GPUALERT_JOB_ID=N` finds what became of it.
    const char* slurm_job = std::getenv("SLURM_JOB_ID");
    const std::string job = slurm_job && *slurm_job && std::strlen(slurm_job) < 12 &&
                                    std::strspn(slurm_job, "0123456789") == std::strlen(slurm_job)
                                ? slurm_job
                                : "";
    const auto build = [&](const report::MessageInputs& inputs) {
      notify::Message m = report::build_message(v, facts, inputs);
      if (!job.empty()) {
        m.extra_headers.emplace_back("X-Gpualert-Job", job);
        m.record["job"] = job;
      }
      return m;
    };
    const notify::Message first = build(small ? mi : quick);
    const auto posts = report::build_posts(v, facts, config::channels(in.settings.to), first);
    const report::Delivery d =
        small ? report::deliver(first, in.settings, nullptr, posts)
              : report::deliver(first, in.settings, [&]() -> std::optional<notify::Message> {
                  if (std::chrono::steady_clock::now() >= attach_by) return std::nullopt;
                  return build(mi);
                }, posts);
    if (!in.quiet) std::cerr << report::summary(v, facts, d.describe(in.settings)) << std::flush;
    return d.stored ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gpualert: post-run processing failed: " << e.what() << "\n";
    return 1;
  }
}

int post_run_command(int fd) {
  const std::string record = read_handed_over(fd);
  try {
    PostRunInput in = decode_post_run(record);
    // The same settings the launcher used: the same files, variables and flags.
    in.settings = load_settings(in.config_file, in.flags).settings();
    return post_run(in);
  } catch (const std::exception& e) {
    std::cerr << "gpualert: the diagnosis could not read what the launcher handed over: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace gpualert::cli
