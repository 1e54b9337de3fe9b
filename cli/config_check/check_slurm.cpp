#include <regex>

#include "checks.hpp"
#include "gpualert/common/run_program.hpp"

namespace gpualert::cli::check {

void check_slurm_release(Report& r) {
#ifdef GPUALERT_SLURM_RELEASE
  const std::string built = GPUALERT_SLURM_RELEASE;
  const auto out = run_program({"scontrol", "--version"}, std::chrono::seconds(10), 4096);
  if (!out || out->wait_status != 0) {
    r.info("slurm", "scontrol not found: cannot compare with the Slurm release the plugin was built for (" + built + ")");
    return;
  }
  std::smatch m;
  const std::string text = out->out;
  if (!std::regex_search(text, m, std::regex(R"((\d+)\.(\d+)(\.\d+)?)"))) {
    r.warn("slurm", "cannot read the release from scontrol --version");
    return;
  }
  const std::string running = m[1].str() + "." + m[2].str();
  if (running == built) r.ok("slurm", "the plugin was built for Slurm " + built + ", which is installed (" + m.str() + ")");
  else r.fail("slurm", "the plugin was built for Slurm " + built + " but Slurm " + m.str() +
                           " is installed: the plugin stays off; install the package built for this release");
#else
  r.info("slurm", "built without Slurm: no plugin to check");
#endif
}

}  // namespace gpualert::cli::check
