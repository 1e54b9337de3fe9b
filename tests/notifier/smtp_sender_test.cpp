// Real SMTP on loopback against tests/support/smtp_server.py: delivery, TLS,
// AUTH, and every way a relay can fail, each within the configured timeout.
#include "gpualert/notifier/smtp_sender.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <iostream>

#include "gpualert/notifier/attachment_budget.hpp"
#include "test_support.hpp"

namespace gpualert::notify {
namespace {

using testing::SmtpServer;
using testing::TempDir;
using testing::read_bytes;
using testing::write_bytes;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

const std::string kSubject = "[gpualert] r\xC3\xA9sum\xC3\xA9 job failed: CUDA OOM";

class SmtpTest : public ::testing::Test {
 protected:
  TempDir tmp;
  fs::path maildir = tmp / "maildir";
  fs::path tls_dir = tmp / "tls";
  std::string log = testing::log_text(200 * 1024) + "\n.\n..leading dots\n";
  Outbox box{tmp / "outbox"};

  StoredMessage store(const std::string& subject = kSubject, const std::string& from = "alice@gpu041") {
    write_bytes(tmp / "output.log", log);
    Message m;
    m.envelope = {from, {"bob@example.org", "carol@example.org"}};
    m.subject = subject;
    m.body_text = "The job failed.\n.\nA line with only a dot above.\n";
    m.attachments = plan_attachments({{tmp / "output.log", "output.log"}}, 10 * 1024 * 1024);
    return box.store(m);
  }

  SmtpConfig config(const SmtpServer& s, TlsMode tls = TlsMode::Off) {
    SmtpConfig c;
    c.url = s.url();
    c.tls = tls;
    c.timeout = std::chrono::seconds(10);
    return c;
  }

  fs::path password_file(const std::string& pw, unsigned mode = 0600) {
    const fs::path p = tmp / "password";
    write_bytes(p, pw + "\n");
    ::chmod(p.c_str(), mode);
    return p;
  }

  std::vector<fs::path> received() {
    std::vector<fs::path> v;
    if (!fs::exists(maildir)) return v;
    for (const auto& e : fs::directory_iterator(maildir)) {
      if (e.path().extension() == ".eml") v.push_back(e.path());
    }
    std::sort(v.begin(), v.end());
    return v;
  }

  json envelope_of(const fs::path& eml) {
    fs::path meta = eml;
    meta.replace_extension(".json");
    return json::parse(read_bytes(meta));
  }
};

// Runs send_message and checks the time it took against the configured bound.
SendResult timed_send(const SmtpConfig& cfg, const StoredMessage& m, double& seconds) {
  const auto t0 = Clock::now();
  SendResult r = send_message(cfg, m);
  seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

TEST_F(SmtpTest, DeliversAndTheReceivedMessageIsIntact) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string()});
  const StoredMessage m = store();
  const SendResult r = send_message(config(server), m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.smtp_code, 250);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  const json env = envelope_of(got[0]);
  EXPECT_EQ(env["mail_from"], "alice@gpu041");
  EXPECT_EQ(env["rcpt_tos"], json::array({"bob@example.org", "carol@example.org"}));
  EXPECT_FALSE(env["tls"].get<bool>());
  // Byte for byte what the outbox holds (curl's dot-stuffing was undone).
  EXPECT_EQ(read_bytes(got[0]), read_bytes(m.eml));
  const json parsed = testing::parse_mime(got[0], tmp / "parts");
  EXPECT_TRUE(parsed["defects"].empty()) << parsed["defects"].dump();
  EXPECT_EQ(parsed["subject"], kSubject);
  ASSERT_EQ(parsed["parts"].size(), 2u);
  EXPECT_EQ(parsed["parts"][0]["text"], "The job failed.\n.\nA line with only a dot above.\n");
  EXPECT_EQ(parsed["parts"][1]["filename"], "output.log");
  EXPECT_EQ(read_bytes(parsed["parts"][1]["path"].get<std::string>()), log);
}

TEST_F(SmtpTest, StartTlsRequiredWithAuthAndVerifiedCertificate) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string(), "--starttls", "--tls-dir", tls_dir.string(),
                     "--auth", "alice:correct horse"});
  SmtpConfig cfg = config(server, TlsMode::Required);
  cfg.user = "alice";
  cfg.password_file = password_file("correct horse");
  cfg.ca_file = tls_dir / "cert.pem";
  cfg.verify_peer = true;
  const SendResult r = send_message(cfg, store());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(received().size(), 1u);
  const json env = envelope_of(received()[0]);
  EXPECT_TRUE(env["tls"].get<bool>());
  EXPECT_EQ(env["auth_user"], "alice");
}

TEST_F(SmtpTest, AutoTlsUsesStartTlsWhenOffered) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string(), "--starttls", "--tls-dir", tls_dir.string()});
  SmtpConfig cfg = config(server, TlsMode::Auto);
  cfg.ca_file = tls_dir / "cert.pem";
  const SendResult r = send_message(cfg, store());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(received().size(), 1u);
  EXPECT_TRUE(envelope_of(received()[0])["tls"].get<bool>());
}

TEST_F(SmtpTest, AutoTlsFallsBackToPlainWhenNotOffered) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string()});
  const SendResult r = send_message(config(server, TlsMode::Auto), store());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(received().size(), 1u);
}

TEST_F(SmtpTest, RequiredTlsFailsWhenNotOffered) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string()});
  const SendResult r = send_message(config(server, TlsMode::Required), store());
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.relay_unusable);
  EXPECT_TRUE(received().empty());
}

TEST_F(SmtpTest, ImplicitTlsWithSmtpsUrl) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string(), "--smtps", "--tls-dir", tls_dir.string()});
  SmtpConfig cfg = config(server);
  cfg.url = server.url("smtps");
  cfg.ca_file = tls_dir / "cert.pem";
  const SendResult r = send_message(cfg, store());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(received().size(), 1u);
  EXPECT_TRUE(envelope_of(received()[0])["tls"].get<bool>());
}

TEST_F(SmtpTest, UntrustedCertificateIsRefusedUnlessVerificationIsOff) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string(), "--starttls", "--tls-dir", tls_dir.string()});
  SmtpConfig cfg = config(server, TlsMode::Required);
  cfg.ca_file = tmp / "no-such-ca.pem";
  SendResult r = send_message(cfg, store());
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.relay_unusable);
  EXPECT_TRUE(received().empty());
  cfg.ca_file.clear();
  cfg.verify_peer = false;
  r = send_message(cfg, store());
  EXPECT_TRUE(r.ok) << r.error;
}

TEST_F(SmtpTest, WrongPasswordFailsWithTheReplyCode) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string(), "--auth", "alice:right"});
  SmtpConfig cfg = config(server);
  cfg.user = "alice";
  cfg.password_file = password_file("wrong");
  const SendResult r = send_message(cfg, store());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.smtp_code, 535);
  EXPECT_TRUE(r.relay_unusable);
  EXPECT_EQ(r.error.find("wrong"), std::string::npos) << "password leaked into the error: " << r.error;
  EXPECT_TRUE(received().empty());
}

TEST_F(SmtpTest, PasswordFileReadableByOthersIsRefusedBeforeConnecting) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string(), "--auth", "alice:right"});
  SmtpConfig cfg = config(server);
  cfg.user = "alice";
  cfg.password_file = password_file("right", 0644);
  const SendResult r = send_message(cfg, store());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.smtp_code, 0);
  EXPECT_NE(r.error.find("mode 0644"), std::string::npos) << r.error;
  EXPECT_TRUE(received().empty());
}

TEST_F(SmtpTest, ClosedPortFailsFast) {
  // Bind a port, then close it: nobody listens there any more.
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  SmtpConfig cfg;
  cfg.url = "smtp://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  cfg.timeout = std::chrono::seconds(10);
  double secs = 0;
  const SendResult r = timed_send(cfg, store(), secs);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.relay_unusable);
  EXPECT_LT(secs, 1.0);
  EXPECT_NE(r.error.find("connect"), std::string::npos) << r.error;
}

TEST_F(SmtpTest, RelayConfigErrorsNeverThrow) {
  SmtpConfig cfg;
  EXPECT_FALSE(send_message(cfg, store()).ok);  // no URL
  cfg.url = "http://127.0.0.1:1";
  EXPECT_NE(send_message(cfg, store()).error.find("smtp://"), std::string::npos);
  cfg.url = "smtp://127.0.0.1:1";
  StoredMessage gone = store();
  fs::remove(gone.eml);
  EXPECT_FALSE(send_message(cfg, gone).ok);
}

TEST_F(SmtpTest, EnvelopeInjectionIsRefused) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string()});
  const SendResult r = send_message(config(server), store(kSubject, "a@b>\r\nRCPT TO:<evil@x"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("invalid sender"), std::string::npos) << r.error;
  EXPECT_TRUE(received().empty());
}

struct HangCase {
  const char* name;
  std::vector<std::string> args;
};

void PrintTo(const HangCase& c, std::ostream* os) { *os << c.name; }

class SmtpHangTest : public SmtpTest, public ::testing::WithParamInterface<HangCase> {};

TEST_P(SmtpHangTest, GivesUpWithinTheTimeout) {
  std::vector<std::string> args = GetParam().args;
  SmtpServer server(args);
  SmtpConfig cfg = config(server);
  cfg.timeout = std::chrono::seconds(2);
  double secs = 0;
  const SendResult r = timed_send(cfg, store(), secs);
  std::cout << "[ timing ] " << GetParam().name << ": returned after " << secs << " s (timeout 2 s): " << r.error
            << "\n";
  RecordProperty("seconds", std::to_string(secs));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.relay_unusable);
  EXPECT_LT(secs, 3.5);
  EXPECT_GT(secs, 1.5);  // it really waited: the server did hang
  EXPECT_NE(r.error.find("imeout"), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(Relays, SmtpHangTest,
                         ::testing::Values(HangCase{"hang", {"--mode", "hang"}},
                                           HangCase{"greet_hang_mail", {"--mode", "greet-hang", "--hang-at", "mail"}},
                                           HangCase{"greet_hang_data", {"--mode", "greet-hang", "--hang-at", "data"}}),
                         [](const auto& p) { return std::string(p.param.name); });

struct FailCase {
  const char* name;
  std::vector<std::string> args;
  long code;
};

void PrintTo(const FailCase& c, std::ostream* os) { *os << c.name; }

class SmtpFailTest : public SmtpTest, public ::testing::WithParamInterface<FailCase> {};

TEST_P(SmtpFailTest, FailsWithTheReplyCode) {
  SmtpServer server(GetParam().args);
  const SendResult r = send_message(config(server), store());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.smtp_code, GetParam().code) << r.error;
  EXPECT_FALSE(r.relay_unusable) << r.error;
  EXPECT_NE(r.error.find(std::to_string(GetParam().code)), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(Relays, SmtpFailTest,
                         ::testing::Values(FailCase{"tempfail_data", {"--mode", "tempfail", "--fail-at", "data"}, 451},
                                           FailCase{"tempfail_rcpt", {"--mode", "tempfail", "--fail-at", "rcpt"}, 451},
                                           FailCase{"reject_data", {"--mode", "reject", "--fail-at", "data"}, 550},
                                           FailCase{"reject_rcpt", {"--mode", "reject", "--fail-at", "rcpt"}, 550}),
                         [](const auto& p) { return std::string(p.param.name); });

TEST_F(SmtpTest, FlushSendsEverythingAndMovesItToSent) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string()});
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(store("message " + std::to_string(i)).id);
  const FlushReport rep = flush_outbox(box, config(server));
  EXPECT_EQ(rep.sent, 3);
  EXPECT_EQ(rep.failed, 0);
  EXPECT_TRUE(rep.errors.empty());
  EXPECT_TRUE(box.pending().empty());
  for (const auto& id : ids) {
    EXPECT_TRUE(fs::exists(box.dir() / "sent" / (id + ".eml")));
    EXPECT_TRUE(fs::exists(box.dir() / "sent" / (id + ".json")));
  }
  ASSERT_EQ(received().size(), 3u);
  // Oldest first.
  EXPECT_NE(read_bytes(received()[0]).find("Subject: message 0"), std::string::npos);
}

TEST_F(SmtpTest, FlushGivesRefusedMessagesUpIntoFailedWithTheReply) {
  SmtpServer server({"--mode", "reject", "--fail-at", "rcpt"});
  store("one");
  store("two");
  const FlushReport rep = flush_outbox(box, config(server));
  EXPECT_EQ(rep.sent, 0);
  EXPECT_EQ(rep.failed, 2);  // a message-level failure: every message is tried
  EXPECT_EQ(rep.deferred, 0);
  EXPECT_EQ(rep.gave_up, 2);
  ASSERT_EQ(rep.errors.size(), 2u);
  EXPECT_TRUE(box.pending().empty());  // a 550 is never retried
  const auto failed = box.failed();
  ASSERT_EQ(failed.size(), 2u);
  for (const auto& m : failed) {
    EXPECT_EQ(m.attempts, 1);
    EXPECT_EQ(m.last_code, 550);
  }
  EXPECT_TRUE(fs::is_empty(box.dir() / "sent"));
}

TEST_F(SmtpTest, FlushKeepsTemporarilyRefusedMessagesWithTheirNextAttempt) {
  SmtpServer server({"--mode", "tempfail", "--fail-at", "rcpt"});
  store("one");
  const auto t0 = std::chrono::system_clock::now();
  const FlushReport rep = flush_outbox(box, config(server));
  EXPECT_EQ(rep.failed, 1);
  EXPECT_EQ(rep.gave_up, 0);
  const auto pending = box.pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].attempts, 1);
  EXPECT_EQ(pending[0].last_code, 451);
  EXPECT_NE(pending[0].last_error.find("451"), std::string::npos) << pending[0].last_error;
  EXPECT_GE(pending[0].next_attempt, t0 + std::chrono::seconds(47));  // 60 s - 20 %, to the second
}

TEST_F(SmtpTest, FlushDefersTheRestWhenTheRelayIsDown) {
  SmtpServer server({"--mode", "hang"});
  for (int i = 0; i < 3; ++i) store();
  SmtpConfig cfg = config(server);
  cfg.timeout = std::chrono::seconds(1);
  const auto t0 = Clock::now();
  const FlushReport rep = flush_outbox(box, cfg);
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(rep.failed, 1);
  EXPECT_EQ(rep.deferred, 2);
  EXPECT_LT(secs, 2.5);  // one timeout, not three
  const auto pending = box.pending();
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_EQ(pending[0].attempts, 1);
  EXPECT_EQ(pending[1].attempts, 0);
  EXPECT_EQ(pending[2].attempts, 0);
}

TEST_F(SmtpTest, FlushLeavesAMessageLockedByAnotherSenderAlone) {
  SmtpServer server({"--mode", "ok", "--maildir", maildir.string()});
  const StoredMessage locked = store("locked");
  store("free");
  const int fd = ::open(locked.eml.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  FlushReport rep = flush_outbox(box, config(server));
  EXPECT_EQ(rep.sent, 1);
  EXPECT_EQ(rep.busy, 1);
  ASSERT_EQ(box.pending().size(), 1u);
  EXPECT_EQ(box.pending()[0].id, locked.id);
  EXPECT_EQ(box.pending()[0].attempts, 0);
  ::close(fd);
  rep = flush_outbox(box, config(server));
  EXPECT_EQ(rep.sent, 1);
  EXPECT_TRUE(box.pending().empty());
  EXPECT_EQ(received().size(), 2u);
}

}  // namespace
}  // namespace gpualert::notify
