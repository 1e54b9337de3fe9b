#pragma once
// The analyzers of the decision stage, one concern each, and the order the decider
// (decider.cpp) runs and combines them in:
//
//   1. Collect evidence (each adds candidates to the Decision):
//      collect_rule_evidence    rule hits in the log, non-finite losses
//      collect_scheduler_state  Slurm's state (TIMEOUT, CANCELLED, PREEMPTED, NODE_FAIL, OUT_OF_MEMORY)
//      collect_kernel_events    Xid / ECC / fallen off the bus / OOM-killer records of the node
//      collect_exit_evidence    the exit status and the log's signal lines; exec and launch failures
//   2. Choose the primary cause: the most specific cause; a scheduler disposition only
//      when nothing concrete (priority >= kConcrete) came before it; prefer_hang turns a
//      timeout or a kill of a job that had long stopped progressing into a hang; a
//      failed run with nothing else takes a warning that names a cause as its lead;
//      a cancel of a run whose loss had already gone wrong gives way to that divergence.
//   3. No cause at all: healthy_or_not (done_but_bad checks first, then healthy on
//      positive evidence, else hang or unknown).
//   4. Write: the deciding lines, the witnesses, the class's wording, secondary
//      findings, then add_caveats for what the reading cannot settle.
//
// A new check of a finished run ("done but bad") goes in done_but_bad/; it needs
// nothing from the rest of the stage.
#include <optional>
#include <vector>

#include "decision_state.hpp"

namespace gpualert::classify::detail {

void collect_rule_evidence(Decision& d);
void collect_scheduler_state(Decision& d);
void collect_kernel_events(Decision& d);
void collect_exit_evidence(Decision& d);

struct PrimaryChoice {
  std::optional<Cand> primary;       // none: no cause, no disposition (healthy_or_not decides)
  bool disposition_primary = false;  // the scheduler's action is the primary
  std::optional<Cand> ended_by;      // what ended a job found hung
  bool from_warning = false;         // the primary is a warning-level lead
};
PrimaryChoice choose_primary(Decision& d);

// Replaces PRIMARY by a hang when the output stopped long before the end; ENDED_BY
// receives what ended it.
void prefer_hang(Decision& d, std::optional<Cand>& primary, bool& disposition_primary, std::optional<Cand>& ended_by);

// The run finished (exit 0, or a pasted log that says so): a correctness or throughput
// class when the progress says the run went wrong; false when it did not.
bool done_but_bad(Decision& d, Facts& facts);
bool diverged_before_stop(Decision& d, Facts& facts);  // a cancelled run whose loss had gone wrong

Verdict healthy_or_not(Decision& d);
// The last non-blank lines (up to 3) when all are distributed set-up chatter.
bool ends_in_setup_chatter(const Decision& d, std::vector<Citation>& last);
// The training program's own end-of-run line (rule progress.run_end) near the end.
const Citation* finish_marker_near_end(const Decision& d);
// Where the program ended without saying it finished (rule progress.final_evaluation: one
// test-set result after training; progress.command_ended: the shell's time report), near
// the end and after training progress. The citation's rule says which.
std::optional<Citation> program_end_near_end(const Decision& d);
// The line that shows the announced length reached ("Epoch 50/50", "step 1000/1000").
const Marker* announced_end_reached(const Decision& d);
// A pasted log whose output stops at an epoch boundary (the next epoch's header, or a bar
// at its full count), far short of the length it announced (under 90 %): the marker, and
// what it shows with the share of the plan done.
struct MidPlanStop {
  const Marker* at = nullptr;
  std::string claim;
};
std::optional<MidPlanStop> stopped_mid_plan(const Decision& d);
// Healthy by the text alone: FIN the end-of-run line, END the announced length reached.
void healthy_from_text(Decision& d, const Citation* fin, const Marker* end, Facts& facts);

// Writing the primary cause: its shows (returns the facts for the class's wording), the
// witnesses' weight (sets the confidence; returns the exit status's agreement), the
// other evidence as secondary findings, and what the reading cannot settle.
Facts show_cause(Decision& d, const Cand& p);
int weigh_witnesses(Decision& d, const Cand& p, bool disposition_primary);
void relate_findings(Decision& d, const Cand& p, bool disposition_primary);
void add_caveats(Decision& d, const Cand& p, bool from_warning, int agree);

}  // namespace gpualert::classify::detail
