#include "gpualert/notifier/admin_notice.hpp"

#include "gpualert/common/text.hpp"

namespace gpualert::notify {

Message admin_notice(const StoredMessage& m, const std::string& why, const std::vector<std::string>& admin_to,
                     const std::string& from) {
  Message n;
  n.envelope.from = from.empty() ? m.envelope.from : from;
  n.envelope.to = admin_to;
  std::string rcpts;
  for (const auto& a : m.envelope.to) rcpts += (rcpts.empty() ? "" : ", ") + a;
  n.subject = "[gpualert] a notification was not delivered" + (m.job.empty() ? "" : " (job " + m.job + ")");
  n.body_text = "A gpualert notification was given up and will not be sent again.\n\n"
                "  message:    " + m.id + "\n" +
                "  for:        " + one_line(rcpts, 400) + "\n" +
                (m.job.empty() ? "" : "  job:        " + m.job + "\n") +
                (m.user.empty() ? "" : "  user:       " + m.user + "\n") +
                (m.cls.empty() ? "" : "  verdict:    " + m.cls + "\n") +
                "  attempts:   " + std::to_string(m.attempts) + "\n" +
                "  why:        " + one_line(why, 1000) + "\n" +
                "  kept at:    " + m.eml.string() + "\n\n"
                "`gpualert outbox show " + m.id + "` shows it; `gpualert outbox retry " + m.id +
                "` puts it back in the queue once the cause is fixed.\n";
  n.extra_headers = {{"X-Gpualert-Notice", "undelivered"}};
  if (!m.job.empty()) n.extra_headers.emplace_back("X-Gpualert-Job", m.job);
  return n;
}

}  // namespace gpualert::notify
