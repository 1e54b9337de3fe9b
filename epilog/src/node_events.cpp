#include "node_events.hpp"

#include <algorithm>
#include <ctime>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "gpualert/events/kernel_events.hpp"
#include "gpualert/report/run_evidence.hpp"
#include "job_start_view.hpp"

namespace gpualert::epilog {
namespace {

// Step records carry ISO-8601 UTC times ("2026-11-22T08:00:00Z").
Clock::time_point parse_utc(const std::string& s) {
  std::tm tm{};
  if (s.empty() || !::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return {};
  return Clock::from_time_t(::timegm(&tm));
}

}  // namespace

std::string node_events_name(const std::string& node, int restart) {
  return "kernel-events." + spool::safe_component(node) + ".r" + std::to_string(restart) + ".json";
}

std::pair<Clock::time_point, Clock::time_point> node_window(const std::vector<spool::StepRecord>& records,
                                                            const std::string& node) {
  Clock::time_point from{}, to{};
  for (const auto& r : records) {
    if (r.node != node) continue;
    const auto s = parse_utc(r.started), e = parse_utc(r.ended);
    if (s.time_since_epoch().count() && (!from.time_since_epoch().count() || s < from)) from = s;
    if (e.time_since_epoch().count() && e > to) to = e;
  }
  return {from, to};
}

std::string to_json_text(const NodeEvents& e) {
  nlohmann::json j;
  j["node"] = e.node;
  j["read_any"] = e.read_any;
  j["errors"] = e.errors;
  j["events"] = nlohmann::json::array();
  for (const auto& k : e.events) {
    nlohmann::json ev = {{"time_us", k.time_us}, {"source", k.source}, {"text", k.text}};
    if (k.before_start) ev["before_start"] = true;
    if (k.on_job_gpu) ev["on_job_gpu"] = *k.on_job_gpu;
    j["events"].push_back(std::move(ev));
  }
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

NodeEvents node_events_from_json_text(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  NodeEvents e;
  e.node = j.at("node").get<std::string>();
  e.read_any = j.at("read_any").get<bool>();
  e.errors = j.at("errors").get<std::vector<std::string>>();
  for (const auto& k : j.at("events")) {
    if (e.events.size() >= 5000) break;  // the reader's own bound; a forged file gets no more
    classify::KernelEvent ev{k.at("time_us").get<std::int64_t>(), k.at("source").get<std::string>(),
                             k.at("text").get<std::string>(), k.value("before_start", false), std::nullopt};
    if (k.contains("on_job_gpu")) ev.on_job_gpu = k.at("on_job_gpu").get<bool>();
    e.events.push_back(std::move(ev));
  }
  return e;
}

bool publish_node_events(const spool::DirFd& dir, gid_t gid, const std::string& node, int restart, Clock::time_point from,
                         Clock::time_point to, const spool::JobStartRecord* start, std::string& note) {
  std::optional<report::KernelStart> positions;
  if (start) {
    positions = kernel_start(*start);
    from = start_time(*start);
  }
  report::NodeKernelLog k = report::read_node_kernel_log(from, to, positions && positions->positioned() ? &*positions : nullptr);
  if (positions) k.events.insert(k.events.end(), positions->before.begin(), positions->before.end());
  // Whose GPU each named record is, by this node's job-start record (unknown: the job's, as
  // every record counted before GPUs were known).
  std::vector<std::string> mine;
  if (start)
    for (const auto& g : start->gpus) mine.push_back(g.bus_id);
  for (auto& ev : k.events)
    if (const auto pe = events::parse_event_text(ev.text); pe && !pe->bus_id.empty())
      ev.on_job_gpu = !start || !start->gpus_known || std::find(mine.begin(), mine.end(), pe->bus_id) != mine.end();
  NodeEvents e;
  e.node = node;
  e.read_any = k.read_any;
  e.errors = std::move(k.errors);
  e.events = std::move(k.events);
  std::string why;
  if (!spool::write_atomic_at(dir, node_events_name(node, restart), to_json_text(e), 0, gid, why)) {
    note = "could not leave this node's kernel events for the reporting node: " + why;
    return false;
  }
  note = "left " + std::to_string(e.events.size()) + " kernel event(s) of this node for the reporting node" +
         (e.read_any ? "" : " (no kernel log could be read here)");
  return true;
}

std::vector<NodeEvents> gather_node_events(const spool::DirFd& dir, const std::vector<std::string>& nodes,
                                           const std::string& self, int restart, std::chrono::milliseconds wait,
                                           std::vector<std::string>& missing, std::vector<std::string>& problems) {
  std::vector<NodeEvents> got;
  std::vector<std::string> want;
  for (const auto& n : nodes)
    if (n != self) want.push_back(n);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    for (auto it = want.begin(); it != want.end();) {
      std::string why;
      const auto text = spool::read_at(dir, node_events_name(*it, restart), 8 << 20, why);
      if (!text) {
        ++it;
        continue;
      }
      try {
        NodeEvents e = node_events_from_json_text(*text);
        e.node = *it;  // the file name says which node; the content cannot claim another
        got.push_back(std::move(e));
      } catch (const std::exception& ex) {
        problems.push_back(node_events_name(*it, restart) + ": malformed: " + ex.what());
      }
      it = want.erase(it);
    }
    if (want.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  missing = want;
  return got;
}

}  // namespace gpualert::epilog
