#include "gpualert/spool/step_record.hpp"

#include "gpualert/spool/spool_dir.hpp"

namespace gpualert::spool {

std::string step_name(std::uint32_t stepid) {
  if (stepid == 0xfffffffbu) return "batch";
  if (stepid == 0xfffffffcu) return "extern";
  if (stepid == 0xfffffffau) return "interactive";
  return std::to_string(stepid);
}

namespace {
std::string run_suffix(long tag) { return tag > 0 ? ".p" + std::to_string(tag) : ""; }
}  // namespace

std::string step_file_name(const std::string& step, const std::string& node, long run_tag) {
  return "step-" + safe_component(step) + "." + safe_component(node) + run_suffix(run_tag) + ".json";
}

std::string task_log_name(const std::string& step, std::uint32_t task, long run_tag) {
  return safe_component(step) + ".task" + std::to_string(task) + run_suffix(run_tag) + ".log";
}

nlohmann::json to_json(const StepRecord& r) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : r.tasks) {
    nlohmann::json tj{{"task", t.task}, {"pid", t.pid}, {"log", t.log}, {"streams", t.streams}};
    if (t.wait_status) tj["wait_status"] = *t.wait_status;
    tasks.push_back(tj);
  }
  return {{"job", r.job},   {"step", r.step},       {"node", r.node},   {"restart", r.restart},
          {"uid", r.uid},   {"gid", r.gid},         {"started", r.started}, {"ended", r.ended},
          {"to", r.to},     {"tasks", tasks}};
}

StepRecord step_from_json(const nlohmann::json& j) {
  StepRecord r;
  r.job = j.at("job").get<std::uint32_t>();
  r.step = j.at("step").get<std::string>();
  r.node = j.at("node").get<std::string>();
  r.restart = j.value("restart", 0);
  r.uid = j.value("uid", 0u);
  r.gid = j.value("gid", 0u);
  r.started = j.value("started", "");
  r.ended = j.value("ended", "");
  r.to = j.value("to", std::vector<std::string>{});
  for (const auto& tj : j.at("tasks")) {
    TaskRecord t;
    t.task = tj.at("task").get<std::uint32_t>();
    t.pid = tj.value("pid", 0);
    if (tj.contains("wait_status")) t.wait_status = tj.at("wait_status").get<int>();
    t.log = tj.value("log", "");
    t.streams = tj.value("streams", "");
    r.tasks.push_back(t);
  }
  return r;
}

}  // namespace gpualert::spool
