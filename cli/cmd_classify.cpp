// `gpualert classify LOG...`: the diagnosis engine on its own, for any log.
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/verdict_format.hpp"
#include "gpualert/common/durable_file.hpp"
#include "gpualert/events/kernel_events.hpp"

namespace gpualert::cli {

int classify_command(const ClassifyOptions& o) {
  std::optional<classify::Classifier> c;
  try {
    c.emplace(classify::Classifier::with_builtin_rules(o.rules));
  } catch (const std::exception& e) {
    std::cerr << "gpualert classify: " << e.what() << "\n";
    return 2;
  }
  c->set_reference_scan(o.reference);
  classify::RunStatus status;
  status.exit_code = o.exit_code;
  status.slurm_state = o.state;
  // A kernel log given by hand is the node's witness: its OOM-killer and Xid records
  // count, and so does their absence. Its times are not matched to a run window.
  for (const auto& k : o.kernel_logs) {
    std::string text;
    try {
      text = read_file(k);
    } catch (const std::exception& e) {
      std::cerr << "gpualert classify: --kernel-log " << k.string() << ": " << e.what() << "\n";
      return 2;
    }
    for (const auto& e : events::parse_kernel_log(text, "file:" + k.string())) {
      const auto us = e.has_time()
                          ? std::chrono::duration_cast<std::chrono::microseconds>(e.time.time_since_epoch()).count()
                          : 0;
      status.events.push_back({us, e.source, e.text});
    }
    status.events_collected = true;
  }
  if (o.gpus != "all") {
    // Each address in the kernel's form; anything else is refused, not guessed at.
    std::string_view rest = o.gpus;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view one = rest.substr(0, comma);
      const auto id = events::normalize_bus_id(one);
      if (!id) {
        std::cerr << "gpualert classify: --gpus: '" << std::string(one.substr(0, 64))
                  << "' is not a GPU's PCI address (like 0000:3b:00, as the kernel prints it) or 'all'\n";
        return 2;
      }
      status.gpus.push_back(*id);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  int rc = 0;
  for (const auto& log : o.logs) {
    try {
      if (o.time_limit)
        status.read_deadline = std::chrono::steady_clock::now() +
                               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(*o.time_limit));
      const classify::Verdict v = log == "-" ? c->classify_fd(STDIN_FILENO, status) : c->classify_file(log, status);
      if (o.json) {
        auto j = classify::to_json(v);
        j["input"] = log;
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      } else {
        if (o.logs.size() > 1) std::cout << "== " << log << "\n";
        std::cout << classify::to_text(v) << "\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "gpualert classify: " << log << ": " << e.what() << "\n";
      rc = 1;
    }
  }
  // A rule the fast matcher cannot take still works, more slowly: say so, never silently.
  for (const auto& n : c->engine_notes()) std::cerr << "gpualert classify: note: " << n << "\n";
  return rc;
}

}  // namespace gpualert::cli
