#pragma once
// What `gpualert config check` found: one line per check, each ok, a warning
// or a failure, with the file and line when there is one. Printed for people
// or as JSON for config management; the exit status says whether any failed.
#include <ostream>
#include <string>
#include <vector>

namespace gpualert::cli::check {

enum class Status { Ok, Info, Warn, Fail };

struct Finding {
  std::string area;   // config, rules, delivery, outbox, plugstack, spool, slurm
  Status status = Status::Ok;
  std::string message;
  std::string where;  // "file:line" or a path, when there is one
};

class Report {
 public:
  void ok(const std::string& area, const std::string& message, const std::string& where = "");
  void info(const std::string& area, const std::string& message, const std::string& where = "");
  void warn(const std::string& area, const std::string& message, const std::string& where = "");
  void fail(const std::string& area, const std::string& message, const std::string& where = "");

  bool failed() const;
  const std::vector<Finding>& findings() const { return findings_; }
  void print_text(std::ostream& out) const;
  void print_json(std::ostream& out) const;

 private:
  std::vector<Finding> findings_;
};

}  // namespace gpualert::cli::check
