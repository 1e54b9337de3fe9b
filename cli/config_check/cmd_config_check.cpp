// `gpualert config check [--json] [--plugstack FILE] [--config FILE] [--no-relay]`:
// what a job would read and where its message would go, checked without sending
// anything. Exit 0: nothing failed; 1: something did (each named with its file and line).
#include <iostream>

#include "../commands.hpp"
#include "checks.hpp"

namespace gpualert::cli {

int config_check_command(const ConfigCheckOptions& o) {
  check::Report r;
  check::Options opt;
  opt.config_file = o.config_file;
  opt.plugstack = o.plugstack;
  opt.probe_relay = !o.no_relay;
  try {
    const config::Loader loader = check::check_settings(r, opt);
    check::check_rules(r, loader.settings());
    check::check_delivery(r, loader.settings(), opt.probe_relay);
    check::check_outbox(r, loader.settings());
    check::check_plugstack(r, opt);
    check::check_slurm_release(r);
  } catch (const std::exception& e) {
    r.fail("check", std::string("internal error: ") + e.what());
  }
  if (o.json) {
    r.print_json(std::cout);
  } else {
    std::cout << "gpualert config check\n";
    r.print_text(std::cout);
  }
  return r.failed() ? 1 : 0;
}

}  // namespace gpualert::cli
