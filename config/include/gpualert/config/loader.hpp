#pragma once
// Layered settings: built-in defaults < system file < user file < environment < flags.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpualert/config/settings.hpp"

namespace gpualert::config {

// Where the two files are looked for. GPUALERT_SYSTEM_CONFIG and GPUALERT_CONFIG
// override the defaults (/etc/gpualert/gpualert.conf and
// $XDG_CONFIG_HOME/gpualert/gpualert.conf) so packages and tests can move them.
std::filesystem::path system_config_path();
std::filesystem::path user_config_path();

class Loader {
 public:
  // Starts from the defaults computed from the environment (user, host, XDG dirs).
  Loader();

  // Reads a `key = value` file. A missing file is fine; a malformed line or an
  // unknown key is recorded as a Problem naming file and line, and skipped.
  void apply_file(const std::filesystem::path& file);
  // A site file (the system file, or the one plugstack's conf= names): the file,
  // then every *.json in rules.d beside it, in name order, as site rules.
  void apply_site_file(const std::filesystem::path& file);
  // The same, from TEXT (NAME stands for the file in problems).
  void apply_text(std::string_view text, const std::string& name);
  // GPUALERT_SMTP_URL, GPUALERT_TO, GPUALERT_OUTBOX, ... (see etc/gpualert.conf.example).
  void apply_environment();
  // One setting given on the command line, e.g. ("send_timeout", "5", "--send-timeout").
  void apply_value(const std::string& key, const std::string& value, const std::string& where);

  const Settings& settings() const { return s_; }
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  void set(const std::string& key, const std::string& value, const std::string& where);
  Settings s_;
  std::vector<Problem> problems_;
  bool outbox_explicit_ = false;
};

// Convenience: defaults, system file, user file (or CONFIG_FILE if given), environment.
Loader load_layers(const std::optional<std::filesystem::path>& config_file);

// "20MiB", "20M", "512k", "1048576" -> bytes. std::nullopt when malformed.
std::optional<std::uint64_t> parse_size(const std::string& text);
// "15", "2.5", "15s", "500ms" -> milliseconds. std::nullopt when malformed or negative.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace gpualert::config
