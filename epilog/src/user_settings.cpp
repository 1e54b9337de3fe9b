#include "user_settings.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gpualert/common/text.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "gpualert/config/user_choices.hpp"

namespace gpualert::epilog {
namespace {

constexpr std::size_t kMaxFile = 64 * 1024;

std::string home_of(uid_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found || !pw.pw_dir) return "";
  return pw.pw_dir;
}

// In the child, as the user: "F<content>", "M" (no file) or "E<reason>".
std::string read_as_them(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return errno == ENOENT || errno == ENOTDIR ? "M" : std::string("E") + std::strerror(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "Enot a regular file";
  std::string text(kMaxFile + 1, '\0');
  const long n = read_full(fd.get(), text.data(), text.size());
  if (n < 0) return std::string("E") + std::strerror(errno);
  if (static_cast<std::size_t>(n) > kMaxFile) return "Elarger than 64 KiB";
  text.resize(static_cast<std::size_t>(n));
  return "F" + text;
}

}  // namespace

std::vector<std::string> apply_user_file(config::Settings& settings, const JobUser& user, const std::string& user_name,
                                         bool job_named, const config::RecipientPolicy& rule) {
  std::vector<std::string> notes;
  if (!settings.user_config || user.uid == 0) return notes;
  const std::string home = home_of(user.uid);
  if (home.empty() || home[0] != '/') return notes;
  const std::string path = home + "/.config/gpualert/gpualert.conf";
  std::string why;
  const auto answer = run_as_user(user, [&] { return read_as_them(path); }, std::chrono::seconds(10), why, kMaxFile + 16);
  const std::string shown = "your settings (" + path + ")";
  if (!answer || answer->empty()) {
    notes.push_back(shown + " not read: " + (answer ? "no answer" : why));
    return notes;
  }
  if ((*answer)[0] == 'M') return notes;
  if ((*answer)[0] != 'F') {
    notes.push_back(shown + " not read: " + one_line(answer->substr(1), 200));
    return notes;
  }
  const config::UserChoices c = config::read_user_choices(std::string_view(*answer).substr(1));
  for (const auto& n : c.notes) notes.push_back(shown + ", " + n);
  std::string used;
  if (c.notify) settings.notify = *c.notify, used += " notify=" + *c.notify;
  if (c.html) settings.html = *c.html, used += std::string(" html=") + (*c.html ? "yes" : "no");
  if (c.digest_window) settings.digest_window = *c.digest_window, used += " digest_window";
  if (c.live) settings.live = *c.live, used += std::string(" live=") + (*c.live ? "yes" : "no");
  // A user may wait longer before a stall is news, never less than the site's choice.
  if (c.stall_after && *c.stall_after > settings.stall_after)
    settings.stall_after = *c.stall_after, used += " stall_after";
  if (c.cancel_after_stall) {
    if (settings.allow_cancel) settings.cancel_after_stall = *c.cancel_after_stall, used += " cancel_after_stall";
    else notes.push_back(shown + ", cancel_after_stall not used: the site does not allow it (allow_cancel)");
  }
  if (c.to && !job_named) {
    if (const auto refused = config::refuse_recipients(*c.to, rule, user_name)) {
      notes.push_back(shown + ", to not used: " + *refused);
    } else {
      settings.to = *c.to;
      used += " to";
    }
  }
  if (!used.empty()) notes.push_back(shown + " used:" + used);
  return notes;
}

}  // namespace gpualert::epilog
