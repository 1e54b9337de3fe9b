// The sendmail transport: the message is handed to the node's MTA (Postfix, Exim,
// a null client...), which then owns queueing, retries and bounces. Its exit
// status (sysexits.h) says whether the hand-off was taken.
#include "sendmail_sender.hpp"

#include <fcntl.h>
#include <sys/wait.h>

#include "gpualert/common/run_program.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {

SendResult send_with_sendmail(const std::string& program, const StoredMessage& m, std::chrono::milliseconds timeout) {
  SendResult r;
  UniqueFd eml(::open(m.eml.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!eml.valid()) {
    r.error = "cannot read " + m.eml.string();
    return r;
  }
  // Recipients as arguments after "--" (never read from the headers): what the
  // envelope says is exactly who receives it, and no address can pass for an option.
  std::vector<std::string> args = {program, "-oi", "-f", m.envelope.from, "--"};
  args.insert(args.end(), m.envelope.to.begin(), m.envelope.to.end());
  const auto out = run_program(args, timeout, 64 * 1024, eml.get());
  const std::string who = "sendmail (" + program + ")";
  if (!out) {
    r.error = who + " could not be started or did not finish within " + std::to_string(timeout.count() / 1000) + " s";
    r.relay_unusable = true;
    return r;
  }
  if (WIFEXITED(out->wait_status) && WEXITSTATUS(out->wait_status) == 0) {
    r.ok = true;
    return r;
  }
  const int code = WIFEXITED(out->wait_status) ? WEXITSTATUS(out->wait_status) : 128 + WTERMSIG(out->wait_status);
  const std::string said = one_line(out->err.empty() ? out->out : out->err, 300);
  r.error = who + " refused the message (exit " + std::to_string(code) + (said.empty() ? "" : ": " + said) + ")";
  // EX_USAGE, EX_DATAERR, EX_NOUSER, EX_NOHOST: this message will never be taken. Anything
  // else (EX_TEMPFAIL, EX_UNAVAILABLE, EX_OSERR, a crash) is the MTA's trouble, for every message.
  if (code == 64 || code == 65 || code == 67 || code == 68) {
    r.smtp_code = 554;
  } else {
    r.relay_unusable = true;
  }
  return r;
}

}  // namespace gpualert::notify
