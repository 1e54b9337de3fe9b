#include "gpualert/fleet/report_format.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace gpualert::fleet {
namespace {

// V with DIGITS decimals.
std::string num(double v, int digits = 1) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string share(double part, double whole) { return whole > 0 ? num(100.0 * part / whole) + "%" : "-"; }

// S in a column W wide; a longer S keeps one space before the next column.
std::string pad(std::string s, std::size_t w) {
  s.append(s.size() < w ? w - s.size() : 1, ' ');
  return s;
}

std::string classes_of(const FaultRow& f) {
  std::string out;
  for (const auto& [c, n] : f.classes) out += (out.empty() ? "" : ", ") + c + " " + std::to_string(n);
  return out;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string report_text(const FleetSummary& s, const std::string& window) {
  std::string o = "gpualert report: " + window + "\n";
  o += std::to_string(s.jobs) + " jobs, " + std::to_string(s.with_verdict) + " with a gpualert verdict, " +
       num(s.gpu_hours) + " GPU-hours\n\n";
  o += "How jobs ended (class, whose move, jobs, share of GPU-hours)\n";
  for (const auto& c : s.classes)
    o += "  " + pad(c.cls, 22) + pad(c.attribution, 12) + pad(std::to_string(c.jobs), 8) + share(c.gpu_hours, s.gpu_hours) +
         "\n";
  o += "\nThe cluster's faults, by node and GPU (jobs hit)\n";
  if (s.faults.empty()) o += "  none recorded\n";
  for (const auto& f : s.faults) {
    std::string jobs;
    for (auto id : f.job_ids) jobs += (jobs.empty() ? "" : ",") + std::to_string(id);
    std::string users;
    for (const auto& u : f.users) users += (users.empty() ? "" : ",") + u;
    o += "  " + pad(f.node, 14) + pad(f.gpu.empty() ? "(the node)" : f.gpu, 16) + pad(std::to_string(f.jobs), 6) +
         classes_of(f) + "; jobs " + jobs + (f.jobs > f.job_ids.size() ? ",..." : "") + "; users " + users + "\n";
    o += "      to take it out of service: scontrol update nodename=" + f.node +
         " state=drain reason=\"gpualert: " + classes_of(f) + "\"\n";
  }
  o += "\nUsers' most frequent failures of their own (failures of the job, the commonest, how often)\n";
  if (s.users.empty()) o += "  none recorded\n";
  for (const auto& u : s.users)
    o += "  " + pad(u.user, 14) + pad(std::to_string(u.job_failures), 6) + pad(u.cls, 20) + std::to_string(u.jobs) +
         (u.fix.empty() ? "" : "\n      usual fix: " + u.fix) + "\n";
  return o;
}

std::string report_json(const FleetSummary& s, const std::string& window) {
  nlohmann::json j;
  j["window"] = window;
  j["jobs"] = s.jobs;
  j["with_verdict"] = s.with_verdict;
  j["gpu_hours"] = s.gpu_hours;
  j["classes"] = nlohmann::json::array();
  for (const auto& c : s.classes)
    j["classes"].push_back({{"class", c.cls}, {"attribution", c.attribution}, {"jobs", c.jobs}, {"gpu_hours", c.gpu_hours},
                            {"gpu_hours_share", s.gpu_hours > 0 ? c.gpu_hours / s.gpu_hours : 0.0}});
  j["faults"] = nlohmann::json::array();
  for (const auto& f : s.faults)
    j["faults"].push_back({{"node", f.node}, {"gpu", f.gpu}, {"jobs", f.jobs}, {"classes", f.classes},
                           {"job_ids", f.job_ids}, {"users", f.users}});
  j["users"] = nlohmann::json::array();
  for (const auto& u : s.users)
    j["users"].push_back({{"user", u.user}, {"class", u.cls}, {"jobs", u.jobs}, {"job_failures", u.job_failures},
                          {"fix", u.fix}});
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string report_csv(const FleetSummary& s) {
  std::string o = "section,name,detail,jobs,gpu_hours,share\r\n";
  for (const auto& c : s.classes)
    o += "class," + csv_cell(c.cls) + "," + csv_cell(c.attribution) + "," + std::to_string(c.jobs) + "," +
         num(c.gpu_hours, 3) + "," + num(s.gpu_hours > 0 ? c.gpu_hours / s.gpu_hours : 0, 4) + "\r\n";
  for (const auto& f : s.faults)
    o += "fault," + csv_cell(f.node) + "," + csv_cell(f.gpu) + "," + std::to_string(f.jobs) + ",,\r\n";
  for (const auto& u : s.users)
    o += "user," + csv_cell(u.user) + "," + csv_cell(u.cls) + "," + std::to_string(u.job_failures) + ",,\r\n";
  return o;
}

}  // namespace gpualert::fleet
