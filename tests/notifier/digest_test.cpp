// Folding into digests and their assembly, on a real outbox directory.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "gpualert/notifier/digest.hpp"
#include "decode_helpers.hpp"
#include "test_support.hpp"

using namespace gpualert::notify;
namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

namespace {

Message failure(const std::string& array = "", const std::string& task = "", const std::string& cls = "cuda_oom",
                const std::string& attribution = "job") {
  Message m;
  m.envelope = {"gpualert@n1", {"alice@example.org"}};
  m.subject = "failed";
  m.body_text = "body\n";
  m.record = {{"status", "FAILED"}, {"class", cls}, {"attribution", attribution}, {"exit", "exit 1"},
              {"elapsed", "5s"}, {"node", "n1"}, {"evidence", "line 9: " + cls + " happened\nWhat to do: fix"}};
  if (!array.empty()) m.record["array"] = array;
  if (!task.empty()) m.record["task"] = task;
  return m;
}

struct Box {
  gpualert::notify::testing::TempDir t;
  Outbox box{t.path()};
};

// An outbox a sender serves, so failures may be held for a digest.
class Served : public ::testing::Test {
 protected:
  Served() { b.box.mark_sender_pass(); }
  Box b;
  DigestPolicy p;
};

}  // namespace

TEST(Digest, NothingIsHeldWhereNoSenderRuns) {
  Box b;
  DigestPolicy p;
  p.burst = 1;
  for (int i = 0; i < 4; ++i) {
    const StoredMessage m = b.box.store(failure());
    EXPECT_FALSE(fold_key(b.box, m, p, Clock::now())) << i;
  }
}

TEST(Digest, ABurstPastItsLimitIsHeldAndOneDigestCarriesIt) {
  Box b;
  b.box.mark_sender_pass();
  DigestPolicy p;
  p.burst = 2;
  int held = 0;
  for (int i = 0; i < 5; ++i) {
    StoredMessage m = b.box.store(failure("", "", i == 3 ? "gpu_hardware" : "cuda_oom", i == 3 ? "infra" : "job"));
    if (const auto key = fold_key(b.box, m, p, Clock::now())) {
      EXPECT_EQ(*key, "burst:alice@example.org");
      b.box.fold(m, *key);
      ++held;
    }
  }
  EXPECT_EQ(held, 3);  // the first two went out by themselves
  p.quiet = std::chrono::seconds(3600);
  EXPECT_TRUE(assemble_digests(b.box, p, Clock::now()).empty());  // the burst is not over
  p.quiet = std::chrono::seconds(1);
  const auto made = assemble_digests(b.box, p, Clock::now() + std::chrono::seconds(5));
  ASSERT_EQ(made.size(), 1u);
  const std::string raw = gpualert::notify::testing::read_bytes(made[0].eml);
  const std::string marker = "quoted-printable\r\n\r\n";
  const auto at = raw.find(marker) + marker.size();
  const std::string text = gpualert::notify::testing::qp_decode(raw.substr(at, raw.find("\r\n--", at) - at));
  EXPECT_NE(text.find("3 more of your jobs ended badly"), std::string::npos) << text;
  // The cluster's fault is the case shown first, though the job's class is more common.
  EXPECT_NE(text.find(", gpu_hardware)"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu_hardware happened"), std::string::npos) << text;
  // What was held is in sent/, naming its digest; only the digest is pending.
  const auto pending = b.box.pending();
  ASSERT_EQ(pending.size(), 3u);  // the first two (never sent here) and the digest
  std::size_t folded = 0;
  for (const auto& e : fs::directory_iterator(b.t.path() / "sent"))
    if (e.path().extension() == ".json" && gpualert::notify::testing::read_bytes(e.path()).find(made[0].id) != std::string::npos)
      ++folded;
  EXPECT_EQ(folded, 3u);
}

TEST_F(Served, AnArraysFirstFailingTaskGoesAtOnceTheRestJoinItsDigest) {
  const StoredMessage first = b.box.store(failure("65", "65_1"));
  EXPECT_FALSE(fold_key(b.box, first, p, Clock::now()));
  const StoredMessage second = b.box.store(failure("65", "65_2"));
  EXPECT_EQ(fold_key(b.box, second, p, Clock::now()).value_or(""), "array:65:alice@example.org");
  const StoredMessage other = b.box.store(failure("66", "66_1"));
  EXPECT_FALSE(fold_key(b.box, other, p, Clock::now()));  // another array
  p.array_per_task = true;  // the user asked for every task's own message
  EXPECT_FALSE(fold_key(b.box, second, p, Clock::now()));
}

// Two tasks end together: the one whose id is older lands in pending/ last. Exactly one
// of them goes at once, whichever order they decide in.
TEST_F(Served, TasksEndingTogetherSendExactlyOneAtOnce) {
  const StoredMessage early = b.box.store(failure("70", "70_1"));
  const fs::path aside = b.t.path() / "aside";
  fs::create_directory(aside);
  for (const auto& f : {early.eml, early.meta}) fs::rename(f, aside / f.filename());  // not landed yet
  const StoredMessage late = b.box.store(failure("70", "70_2"));
  ASSERT_LT(early.id, late.id);
  const bool late_at_once = !fold_key(b.box, late, p, Clock::now());
  for (const auto& f : {early.eml, early.meta}) fs::rename(aside / f.filename(), f);
  const bool early_at_once = !fold_key(b.box, early, p, Clock::now());
  EXPECT_TRUE(late_at_once);  // it decided first
  EXPECT_FALSE(early_at_once);
  EXPECT_FALSE(fold_key(b.box, late, p, Clock::now()));  // asking again gives the same answer
}

// Many real processes store and decide at once: one message goes by itself.
TEST_F(Served, ManyProcessesEndingTogetherSendOneAtOnce) {
  const int n = 12;
  std::vector<pid_t> kids;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      Outbox box(b.t.path());
      const StoredMessage m = box.store(failure("71", "71_" + std::to_string(i)));
      ::_exit(fold_key(box, m, p, Clock::now()) ? 1 : 0);
    }
    kids.push_back(pid);
  }
  int at_once = 0;
  for (const pid_t k : kids) {
    int st = 0;
    ASSERT_EQ(::waitpid(k, &st, 0), k);
    ASSERT_TRUE(WIFEXITED(st));
    if (WEXITSTATUS(st) == 0) ++at_once;
  }
  EXPECT_EQ(at_once, 1);
}

// An array id Slurm hands out again a day later starts afresh.
TEST_F(Served, AStaleClaimIsTakenAfresh) {
  const StoredMessage old = b.box.store(failure("72", "72_1"));
  EXPECT_FALSE(fold_key(b.box, old, p, Clock::now()));
  for (const auto& e : fs::directory_iterator(b.t.path() / "firsts"))
    fs::last_write_time(e.path(), fs::file_time_type::clock::now() - std::chrono::hours(30));
  fs::remove(old.eml);  // a day on, the old task's message has left
  fs::remove(old.meta);
  const StoredMessage fresh = b.box.store(failure("72", "72_1"));
  EXPECT_FALSE(fold_key(b.box, fresh, p, Clock::now()));
  // The sender's sweep removes claims two days old, and only those.
  EXPECT_EQ(b.box.clean_garbage(), 0u);
  for (const auto& e : fs::directory_iterator(b.t.path() / "firsts"))
    fs::last_write_time(e.path(), fs::file_time_type::clock::now() - std::chrono::hours(50));
  EXPECT_EQ(b.box.clean_garbage(), 1u);
  EXPECT_TRUE(fs::is_empty(b.t.path() / "firsts"));
}

TEST(Digest, ASuccessIsNeverHeld) {
  Box b;
  b.box.mark_sender_pass();
  DigestPolicy p;
  p.burst = 0;
  Message ok = failure();
  ok.record["status"] = "OK";
  const StoredMessage m = b.box.store(ok);
  EXPECT_FALSE(fold_key(b.box, m, p, Clock::now()));
}
