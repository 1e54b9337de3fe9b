#include "check_report.hpp"

#include <nlohmann/json.hpp>

#include "gpualert/common/text.hpp"

namespace gpualert::cli::check {
namespace {

const char* name(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::Info: return "info";
    case Status::Warn: return "warn";
    case Status::Fail: return "FAIL";
  }
  return "?";
}

}  // namespace

// Every message is made one line: a hostile file name or value cannot forge a finding.
void Report::ok(const std::string& a, const std::string& m, const std::string& w) {
  findings_.push_back({a, Status::Ok, one_line(m, 2000), one_line(w, 1000)});
}
void Report::info(const std::string& a, const std::string& m, const std::string& w) {
  findings_.push_back({a, Status::Info, one_line(m, 2000), one_line(w, 1000)});
}
void Report::warn(const std::string& a, const std::string& m, const std::string& w) {
  findings_.push_back({a, Status::Warn, one_line(m, 2000), one_line(w, 1000)});
}
void Report::fail(const std::string& a, const std::string& m, const std::string& w) {
  findings_.push_back({a, Status::Fail, one_line(m, 2000), one_line(w, 1000)});
}

bool Report::failed() const {
  for (const auto& f : findings_)
    if (f.status == Status::Fail) return true;
  return false;
}

void Report::print_text(std::ostream& out) const {
  int fails = 0, warns = 0;
  for (const auto& f : findings_) {
    out << "  " << name(f.status) << std::string(6 - std::string(name(f.status)).size(), ' ') << f.area
        << std::string(f.area.size() < 10 ? 10 - f.area.size() : 1, ' ')
        << (f.where.empty() ? "" : f.where + ": ") << f.message << "\n";
    fails += f.status == Status::Fail;
    warns += f.status == Status::Warn;
  }
  out << (fails ? std::to_string(fails) + " problem" + (fails == 1 ? "" : "s") : std::string("no problems"))
      << (warns ? ", " + std::to_string(warns) + " warning" + (warns == 1 ? "" : "s") : std::string()) << "\n";
}

void Report::print_json(std::ostream& out) const {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& f : findings_) {
    nlohmann::json c = {{"area", f.area}, {"status", f.status == Status::Fail ? "fail" : name(f.status)},
                        {"message", f.message}};
    if (!f.where.empty()) c["where"] = f.where;
    checks.push_back(std::move(c));
  }
  out << nlohmann::json{{"ok", !failed()}, {"checks", checks}}.dump(2, ' ', false,
                                                                      nlohmann::json::error_handler_t::replace)
      << "\n";
}

}  // namespace gpualert::cli::check
