// The other evidence, related to the primary cause: the causes a scheduler's action
// outranked (or that came after it), the symptoms the cause explains (NCCL timeouts on
// the peers of a failed rank), errors training ran past and warnings.
#include <algorithm>

#include "analyzers.hpp"

namespace gpualert::classify::detail {

void relate_findings(Decision& d, const Cand& p, bool disposition_primary) {
  if (disposition_primary) {
    if (d.disposition->source == "log" && !d.slurm.empty()) d.v.confidence = std::min(0.98, d.v.confidence + 0.15);
    if (p.source == "log") d.v.confidence = std::min(0.98, d.v.confidence + 0.1);
    for (const auto& [cls, c] : d.causes)
      d.finding(cls, "line " + std::to_string(c.line) + ": " + c.claim +
                       (c.line > p.line && p.line ? " (after the scheduler acted: most likely a consequence of the termination)"
                                                  : " (not specific enough to outrank the scheduler's action)"),
              0.3, c.support);
  } else if (d.disposition) {
    d.v.implies.push_back("The scheduler's action (" + d.disposition->cls + ") came after this failure and is not its cause.");
    d.finding(d.disposition->cls, d.disposition->claim + " (the disposition, not the cause)", 0.8,
            d.disposition->hit ? std::vector<const Hit*>{d.disposition->hit} : std::vector<const Hit*>{});
  }
  if (!disposition_primary) {
    for (const auto& [cls, c] : d.causes) {
      if (cls == p.cls) continue;
      std::string why;
      if (cls == "nccl" && p.priority > c.priority) {
        std::vector<std::string> ranks;
        for (const Hit* h : c.support) {
          const std::string r = d.where(*h);
          if (!r.empty() && std::find(ranks.begin(), ranks.end(), r) == ranks.end() && ranks.size() < 8) ranks.push_back(r);
        }
        std::string who;
        for (const auto& r : ranks) who += (who.empty() ? "" : "; ") + r;
        why = "collective errors/timeouts from line " + std::to_string(c.line) + " (" + std::to_string(c.count) + " lines" +
              (who.empty() ? "" : "; " + who) +
              "): most likely a consequence of the " + p.cls + " (peers wait for the failed rank, then time out)";
      }
      else if (p.cls == "gpu_hardware")
        why = "line " + std::to_string(c.line) + ": " + c.claim + " (a consequence of the GPU fault)";
      else if (c.priority <= kGenericMax)
        why = "line " + std::to_string(c.line) + ": " + c.claim + " (a generic symptom; the more specific cause wins)";
      else
        why = (c.line ? "line " + std::to_string(c.line) + ": " : std::string()) + c.claim;
      d.finding(cls, why, c.priority > kGenericMax ? 0.4 : 0.2, c.support);
    }
    if (p.cls == "cuda_oom" || p.cls == "gpu_hardware" || p.cls == "segfault" || p.cls == "oom_killer")
      if (d.causes.count("nccl"))
        d.v.implies.push_back("The NCCL errors on other ranks are consequences of this failure, not a separate problem.");
  }
  d.add_side_findings(p.cls);

}

}  // namespace gpualert::classify::detail
