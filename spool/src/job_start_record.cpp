#include "gpualert/spool/job_start_record.hpp"

#include "gpualert/spool/spool_dir.hpp"

namespace gpualert::spool {
namespace {

constexpr std::size_t kMaxItems = 256;

template <typename T, typename F>
std::vector<T> bounded(const nlohmann::json& a, F&& one) {
  std::vector<T> out;
  if (!a.is_array()) return out;
  for (const auto& x : a) {
    if (out.size() >= kMaxItems) break;
    out.push_back(one(x));
  }
  return out;
}

}  // namespace

std::string job_start_file_name(const std::string& node) { return "job-start." + safe_component(node) + ".json"; }

nlohmann::json to_json(const JobStartRecord& r) {
  nlohmann::json j;
  j["job"] = r.job;
  j["uid"] = r.uid;
  j["node"] = r.node;
  j["started"] = r.started;
  j["started_us"] = r.started_us;
  j["gpu_list"] = r.gpu_list;
  j["gpu_list_from"] = r.gpu_list_from;
  j["gpus_known"] = r.gpus_known;
  j["gpus"] = nlohmann::json::array();
  for (const auto& g : r.gpus)
    j["gpus"].push_back({{"minor", g.minor}, {"bus_id", g.bus_id}, {"uuid", g.uuid}, {"model", g.model}});
  if (r.kmsg_seq) j["kmsg_seq"] = *r.kmsg_seq;
  j["journal_cursor"] = r.journal_cursor;
  j["baseline"] = nlohmann::json::array();
  for (const auto& e : r.baseline)
    j["baseline"].push_back({{"time_us", e.time_us}, {"source", e.source}, {"text", e.text}});
  j["notes"] = r.notes;
  j["took_ms"] = r.took_ms;
  return j;
}

JobStartRecord job_start_from_json(const nlohmann::json& j) {
  JobStartRecord r;
  r.job = j.at("job").get<std::uint32_t>();
  r.uid = j.at("uid").get<std::uint32_t>();
  r.node = j.at("node").get<std::string>();
  r.started = j.at("started").get<std::string>();
  r.started_us = j.at("started_us").get<std::int64_t>();
  r.gpu_list = j.value("gpu_list", "");
  r.gpu_list_from = j.value("gpu_list_from", "");
  r.gpus_known = j.value("gpus_known", false);
  r.gpus = bounded<StartGpu>(j.value("gpus", nlohmann::json::array()), [](const nlohmann::json& g) {
    return StartGpu{g.at("minor").get<int>(), g.at("bus_id").get<std::string>(), g.value("uuid", ""),
                    g.value("model", "")};
  });
  if (j.contains("kmsg_seq")) r.kmsg_seq = j.at("kmsg_seq").get<std::uint64_t>();
  r.journal_cursor = j.value("journal_cursor", "");
  r.baseline = bounded<StartEvent>(j.value("baseline", nlohmann::json::array()), [](const nlohmann::json& e) {
    return StartEvent{e.at("time_us").get<std::int64_t>(), e.at("source").get<std::string>(),
                      e.at("text").get<std::string>()};
  });
  r.notes = bounded<std::string>(j.value("notes", nlohmann::json::array()),
                                 [](const nlohmann::json& n) { return n.get<std::string>(); });
  r.took_ms = j.value("took_ms", 0.0);
  return r;
}

}  // namespace gpualert::spool
