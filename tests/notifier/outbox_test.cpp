// The outbox keeps every stored message until it is sent, across crashes.
#include "gpualert/notifier/outbox.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <fstream>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <set>

#include "gpualert/notifier/attachment_budget.hpp"
#include "test_support.hpp"

namespace gpualert::notify {
namespace {

using testing::TempDir;
using testing::write_bytes;
namespace fs = std::filesystem;

Message simple_message(const std::string& subject = "hello") {
  Message m;
  m.envelope = {"alice@gpu041", {"bob@example.org"}};
  m.subject = subject;
  m.body_text = "body\n";
  return m;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

std::vector<std::string> names_in(const fs::path& d) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(d)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Outbox, StoreWritesPrivateCompleteFiles) {
  TempDir t;
  Outbox box(t / "outbox");
  EXPECT_EQ(mode_of(t / "outbox"), 0700u);
  EXPECT_EQ(mode_of(t / "outbox/pending"), 0700u);
  EXPECT_EQ(mode_of(t / "outbox/sent"), 0700u);
  const StoredMessage m = box.store(simple_message("Gr\xC3\xBC\xC3\x9F" "e"));
  EXPECT_EQ(m.eml, t / "outbox/pending" / (m.id + ".eml"));
  EXPECT_EQ(m.meta, t / "outbox/pending" / (m.id + ".json"));
  EXPECT_EQ(mode_of(m.eml), 0600u);
  EXPECT_EQ(mode_of(m.meta), 0600u);
  EXPECT_EQ(names_in(t / "outbox/pending"), (std::vector<std::string>{m.id + ".eml", m.id + ".json"}));
  const auto j = nlohmann::json::parse(testing::read_bytes(m.meta));
  EXPECT_EQ(j["from"], "alice@gpu041");
  EXPECT_EQ(j["to"], nlohmann::json::array({"bob@example.org"}));
  EXPECT_EQ(j["attempts"], 0);
  EXPECT_EQ(j["subject"], "Gr\xC3\xBC\xC3\x9F" "e");
  EXPECT_TRUE(j["created"].get<std::string>().ends_with("Z"));
  const std::string eml = testing::read_bytes(m.eml);
  EXPECT_NE(eml.find("Subject: =?UTF-8?B?R3LDvMOfZQ==?=\r\n"), std::string::npos);
  EXPECT_TRUE(eml.ends_with("--\r\n"));
  // id: 20261122T050323.123456Z-<host>-<pid>-<counter>
  EXPECT_EQ(m.id.size() > 24 && m.id[8] == 'T' && m.id[15] == '.' && m.id[22] == 'Z', true) << m.id;
  EXPECT_NE(m.id.find("-" + std::to_string(::getpid()) + "-"), std::string::npos) << m.id;
}

TEST(Outbox, ReplaceSwapsTheContentInPlace) {
  TempDir t;
  Outbox box(t / "outbox");
  const StoredMessage m = box.store(simple_message("quick"));
  Message fuller = simple_message("quick");
  fuller.body_text = "now with everything\n";
  box.replace(m, fuller);
  EXPECT_EQ(names_in(t / "outbox/pending"), (std::vector<std::string>{m.id + ".eml", m.id + ".json"}));  // no tmp left
  EXPECT_NE(testing::read_bytes(m.eml).find("now with everything"), std::string::npos);
  EXPECT_EQ(mode_of(m.eml), 0600u);
  ASSERT_EQ(box.pending().size(), 1u);
}

TEST(Outbox, PendingIsOldestFirstAndIdsAreUnique) {
  TempDir t;
  Outbox box(t.path());
  std::vector<std::string> ids;
  for (int i = 0; i < 25; ++i) ids.push_back(box.store(simple_message("m" + std::to_string(i))).id);
  const auto p = box.pending();
  ASSERT_EQ(p.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(p[i].id, ids[i]);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size());
  EXPECT_EQ(p[0].envelope.from, "alice@gpu041");
  EXPECT_EQ(p[0].envelope.to, std::vector<std::string>{"bob@example.org"});
}

TEST(Outbox, IdsAreUniqueAcrossConcurrentProcesses) {
  TempDir t;
  Outbox box(t.path());
  std::vector<pid_t> kids;
  for (int k = 0; k < 4; ++k) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        Outbox mine(t.path());
        for (int i = 0; i < 20; ++i) mine.store(simple_message());
      } catch (...) {
        rc = 1;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    ASSERT_EQ(::waitpid(k, &st, 0), k);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  const auto p = box.pending();
  EXPECT_EQ(p.size(), 80u);
  std::set<std::string> ids;
  for (const auto& m : p) ids.insert(m.id);
  EXPECT_EQ(ids.size(), 80u);
}

TEST(Outbox, CrashLeftoversAreIgnoredThenCleaned) {
  TempDir t;
  Outbox box(t.path());
  const StoredMessage real = box.store(simple_message());
  const fs::path pend = t / "pending";
  write_bytes(pend / "20200101T000000.000000Z-h-1-000000.eml.tmp.1", "partial message");
  write_bytes(pend / "20200101T000000.000000Z-h-1-000001.json", "{\"from\":\"x@y\",\"to\":[\"z@w\"]}");  // no .eml
  write_bytes(pend / "20200101T000000.000000Z-h-1-000002.json.tmp.9", "{");
  const auto p = box.pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].id, real.id);
  EXPECT_EQ(box.clean_garbage(std::chrono::hours(1)), 0u);  // young: could be a store() in progress
  EXPECT_EQ(box.clean_garbage(std::chrono::seconds(-5)), 3u);
  EXPECT_EQ(names_in(pend), (std::vector<std::string>{real.id + ".eml", real.id + ".json"}));
}

TEST(Outbox, MessageWithLostMetadataIsStillListed) {
  TempDir t;
  Outbox box(t.path());
  const StoredMessage m = box.store(simple_message());
  fs::remove(m.meta);
  const auto p = box.pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].id, m.id);
  EXPECT_NE(p[0].last_error.find("metadata unreadable"), std::string::npos);
}

// Found by fuzz_outbox_record: a record that is valid JSON of the wrong shape (a number,
// a field of another type) made deferring the message throw. Its message stays listed,
// and what is readable of the record is kept.
TEST(Outbox, ARecordOfTheWrongShapeNeitherHidesNorBlocksItsMessage) {
  TempDir t;
  Outbox box(t.path());
  const StoredMessage m = box.store(simple_message());
  for (const char* record : {"2", R"({"to": "not a list", "attempts": "x", "from": "a@b"})", "[]"}) {
    {
      std::ofstream(m.meta, std::ios::trunc) << record;
    }
    auto p = box.pending();
    ASSERT_EQ(p.size(), 1u) << record;
    box.defer(p[0], "451 later", 451, std::chrono::system_clock::now());
    p = box.pending();
    ASSERT_EQ(p.size(), 1u) << record;
    EXPECT_EQ(p[0].last_code, 451) << record;
  }
  EXPECT_TRUE(box.retry(m.id));
}

TEST(Outbox, MarkSentMovesBothFiles) {
  TempDir t;
  Outbox box(t.path());
  const StoredMessage a = box.store(simple_message("a"));
  const StoredMessage b = box.store(simple_message("b"));
  box.mark_sent(a);
  const auto p = box.pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].id, b.id);
  EXPECT_EQ(names_in(t / "sent"), (std::vector<std::string>{a.id + ".eml", a.id + ".json"}));
  const auto j = nlohmann::json::parse(testing::read_bytes(t / "sent" / (a.id + ".json")));
  EXPECT_TRUE(j.contains("sent"));
  EXPECT_EQ(mode_of(t / "sent" / (a.id + ".json")), 0600u);
  EXPECT_THROW(box.mark_sent(a), std::system_error);  // already moved
}

TEST(Outbox, RecordFailurePersistsAttemptsAndError) {
  TempDir t;
  Outbox box(t.path());
  StoredMessage m = box.store(simple_message());
  box.record_failure(m, "451 try later\r\nInjected: x");
  EXPECT_EQ(m.attempts, 1);
  box.record_failure(m, "timeout");
  auto p = box.pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].attempts, 2);
  EXPECT_EQ(p[0].last_error, "timeout");
  const auto j = nlohmann::json::parse(testing::read_bytes(m.meta));
  EXPECT_EQ(j["from"], "alice@gpu041");  // the rest of the metadata is kept
  EXPECT_TRUE(j.contains("last_attempt"));
  EXPECT_EQ(names_in(t / "pending").size(), 2u);  // no temp file left behind
}

TEST(Outbox, UnusableDirectoryThrowsAndLeavesNothing) {
  TempDir t;
  write_bytes(t / "afile", "x");
  EXPECT_THROW(Outbox(t / "afile" / "outbox"), std::system_error);
  Outbox box(t / "box");
  fs::remove_all(t / "box/pending");
  write_bytes(t / "box/pending", "not a directory");
  try {
    box.store(simple_message());
    FAIL() << "store() did not throw";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOTDIR);
    EXPECT_NE(std::string(e.what()).find("box/pending"), std::string::npos) << e.what();
  }
}

// "Disk full" without a full disk: RLIMIT_FSIZE makes write() fail (EFBIG)
// once the message passes 256 KiB, after the .json was already written.
TEST(Outbox, FullDiskThrowsAndLeavesNoPartialMessage) {
  TempDir t;
  Outbox box(t.path());
  write_bytes(t / "big.log", testing::random_bytes(2 * 1024 * 1024));
  Message msg = simple_message();
  msg.attachments = plan_attachments({{t / "big.log", "big.log"}}, 1ull << 30);
  ASSERT_EQ(msg.attachments.attached.size(), 1u);

  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit lim = old;
  lim.rlim_cur = 256 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  std::string what;
  int code = 0;
  try {
    box.store(msg);
  } catch (const std::system_error& e) {
    what = e.what();
    code = e.code().value();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);

  EXPECT_EQ(code, EFBIG) << what;
  EXPECT_NE(what.find("pending/"), std::string::npos) << what;
  EXPECT_TRUE(names_in(t / "pending").empty());
  EXPECT_TRUE(box.pending().empty());
  // And the outbox works again once there is room.
  EXPECT_NO_THROW(box.store(msg));
  EXPECT_EQ(box.pending().size(), 1u);
}

// A real full file system (a 2 MiB tmpfs, so root only): the reserve set aside
// earlier is what lets the message in.
TEST(Outbox, AFullDiskStillTakesAMessageFromTheReserve) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir t;
  const fs::path mnt = t / "small";
  fs::create_directories(mnt);
  if (::system(("mount -t tmpfs -o size=2m tmpfs " + mnt.string() + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here";
  {
    Outbox box(mnt / "outbox");
    box.keep_reserve(512 * 1024);
    EXPECT_TRUE(fs::exists(mnt / "outbox" / "reserve"));
    // Someone else's output fills every remaining byte.
    const int fd = ::open((mnt / "flood").c_str(), O_WRONLY | O_CREAT, 0600);
    std::string chunk(4096, 'x');
    while (::write(fd, chunk.data(), chunk.size()) > 0) {
    }
    ::close(fd);
    Message msg = simple_message("after the flood");
    msg.body_text = std::string(300 * 1024, 'b');  // fits the reserve once, not twice
    EXPECT_NO_THROW(box.store(msg));
    EXPECT_EQ(box.pending().size(), 1u);
    EXPECT_FALSE(fs::exists(mnt / "outbox" / "reserve")) << "the reserve was not what made room";
    // Without a reserve left, the next message is refused with the disk's own error, not lost silently.
    try {
      box.store(msg);
      ADD_FAILURE() << "stored with no room at all";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), ENOSPC) << e.what();
    }
  }
  EXPECT_EQ(::system(("umount " + mnt.string()).c_str()), 0);
}

}  // namespace
}  // namespace gpualert::notify
