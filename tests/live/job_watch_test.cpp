// The Slurm-side live watch on a real directory, with real processes standing in for
// slurmstepd (their name is checked like slurmstepd's): a silent job stalls once, a NaN
// loss is seen in a task's sample, an earlier run's sample is ignored, the end marker
// ends the watch.
#include "gpualert/live/job_watch.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

namespace gpualert::live {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A process named "sleep" that lives until killed.
struct Writer {
  pid_t pid = ::fork();
  Writer() {
    if (pid == 0) {
      ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(50ms);  // until exec has renamed it
  }
  ~Writer() { stop(); }
  void stop() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

struct JobDir {
  fs::path path = fs::temp_directory_path() / ("gpualert-jobwatch-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  int fd = -1;
  JobDir() {
    fs::create_directories(path);
    fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  }
  ~JobDir() {
    ::close(fd);
    fs::remove_all(path);
  }
  void append(const std::string& name, const std::string& text) {
    std::ofstream(path / name, std::ios::app) << text;
  }
};

struct Watching {
  std::mutex m;
  std::vector<Alert> alerts;
  std::thread t;
  Watching(const JobWatch& w) : t([this, w] { watch_job(w, [this](const Alert& a) { std::lock_guard l(m); alerts.push_back(a); }); }) {}
  std::vector<std::string> conditions() {
    std::lock_guard l(m);
    std::vector<std::string> out;
    for (const auto& a : alerts) out.push_back(a.condition);
    return out;
  }
  bool wait_for(std::size_t n, std::chrono::milliseconds within) {
    for (auto until = std::chrono::steady_clock::now() + within; std::chrono::steady_clock::now() < until;) {
      if (conditions().size() >= n) return true;
      std::this_thread::sleep_for(20ms);
    }
    return conditions().size() >= n;
  }
};

JobWatch watch_of(const JobDir& d) {
  JobWatch w;
  w.dir = d.fd;
  w.node = "n1";
  w.end_marker = "live-end.n1";
  w.started = Clock::now();
  w.give_up = w.started + 60s;
  w.stall_after = 400ms;
  w.interval = 50ms;
  w.stepd_name = "sleep";
  return w;
}

TEST(JobWatch, NamesOfSamples) {
  EXPECT_EQ(writer_pid("batch.task0.p4242.n1.live"), 4242);
  EXPECT_EQ(writer_pid("3.task12.p77.gpu-01.live.1"), 77);
  EXPECT_EQ(writer_pid("batch.task0.n1.live"), 0);
  EXPECT_TRUE(is_sample_of("batch.task0.p4242.n1.live", "n1"));
  EXPECT_TRUE(is_sample_of("batch.task0.p4242.n1.live.3", "n1"));
  EXPECT_FALSE(is_sample_of("batch.task0.p4242.n11.live", "n1"));
  EXPECT_FALSE(is_sample_of("batch.task0.p4242.n1.live.x", "n1"));
  EXPECT_FALSE(is_sample_of("batch.task0.p4242.log", "n1"));
}

TEST(JobWatch, ASilentJobStallsOnceAndTheEndMarkerEndsTheWatch) {
  JobDir d;
  Writer stepd;
  d.append("batch.task0.p" + std::to_string(stepd.pid) + ".n1.live", "step 10/100 loss 1.5\n");
  // A second task that never prints: silence is the job's, not each task's.
  d.append("batch.task1.p" + std::to_string(stepd.pid) + ".n1.live", "");
  Watching r(watch_of(d));
  ASSERT_TRUE(r.wait_for(1, 5s));
  std::this_thread::sleep_for(600ms);
  EXPECT_EQ(r.conditions(), std::vector<std::string>{"stall"}) << "said once while it stays silent";
  {
    std::lock_guard l(r.m);
    EXPECT_NE(r.alerts[0].facts[0].find("step 10/100 loss 1.5"), std::string::npos) << r.alerts[0].facts[0];
  }
  d.append("live-end.n1", "");
  r.t.join();  // returns: the marker ended it
}

TEST(JobWatch, ANonFiniteLossInAnyTaskIsSeenWhileItRuns) {
  JobDir d;
  Writer stepd;
  const std::string s0 = "batch.task0.p" + std::to_string(stepd.pid) + ".n1.live";
  auto w = watch_of(d);
  w.stall_after = 60s;
  Watching r(w);
  for (int i = 1; i <= 5; ++i) d.append(s0, "step " + std::to_string(i) + "/100 loss " + std::to_string(2.0 - 0.1 * i) + "\n");
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(r.conditions().empty());
  d.append(s0, "step 6/100 loss nan\n");
  ASSERT_TRUE(r.wait_for(1, 5s));
  EXPECT_EQ(r.conditions(), std::vector<std::string>{"nan"});
  d.append("live-end.n1", "");
  r.t.join();
}

TEST(JobWatch, AnEarlierRunsSampleAndAnotherNodesAreIgnored) {
  JobDir d;
  Writer gone;
  const pid_t dead = gone.pid;
  gone.stop();
  Writer other;
  d.append("batch.task0.p" + std::to_string(dead) + ".n1.live", "step 1/10 loss nan\n");
  d.append("batch.task0.p" + std::to_string(other.pid) + ".n2.live", "step 1/10 loss nan\n");
  Watching r(watch_of(d));
  std::this_thread::sleep_for(800ms);
  EXPECT_TRUE(r.conditions().empty()) << "no live task of this node: nothing to say, not even a stall";
  d.append("live-end.n1", "");
  r.t.join();
}

// A stand-in for the tee: a process that holds a shared lock on the sample until killed.
struct Tee {
  pid_t pid = -1;
  explicit Tee(const fs::path& sample) {
    int ready[2];
    if (::pipe(ready) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      const int fd = ::open(sample.c_str(), O_WRONLY | O_APPEND);
      ::flock(fd, LOCK_SH);
      [[maybe_unused]] const auto n = ::write(ready[1], "x", 1);
      ::pause();
      ::_exit(0);
    }
    char c;
    [[maybe_unused]] const auto n = ::read(ready[0], &c, 1);
    ::close(ready[0]);
    ::close(ready[1]);
  }
  void kill() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  ~Tee() {
    if (pid > 0) kill();
  }
};

TEST(JobWatch, ATeeThatDiesWhileItsStepRunsIsSaidOnce) {
  JobDir d;
  Writer stepd;
  const std::string name = "3.task1.p" + std::to_string(stepd.pid) + ".n1.live";
  d.append(name, "step 1/100 loss 2.0\n");
  Tee tee(d.path / name);
  // Another task's tee ends by itself (its sample turned read-only): not news.
  const std::string done = "3.task2.p" + std::to_string(stepd.pid) + ".n1.live";
  d.append(done, "bye\n");
  Tee finished(d.path / done);
  auto w = watch_of(d);
  w.stall_after = 60s;
  Watching r(w);
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(r.conditions().empty()) << "a tee that runs is not news";
  fs::permissions(d.path / done, fs::perms::owner_read);
  finished.kill();
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(r.conditions().empty()) << "a tee that ended by itself is not news";
  tee.kill();
  ASSERT_TRUE(r.wait_for(1, 5s));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(r.conditions(), std::vector<std::string>{"capture_lost"});
  {
    std::lock_guard l(r.m);
    EXPECT_NE(r.alerts[0].headline.find("3.task1"), std::string::npos) << r.alerts[0].headline;
  }
  d.append("live-end.n1", "");
  r.t.join();
}

TEST(JobWatch, EveryLookGivesThePictureOfTheJob) {
  JobDir d;
  Writer stepd;
  d.append("batch.task0.p" + std::to_string(stepd.pid) + ".n1.live",
           "step 1/50 | loss 2.0\nstep 2/50 | loss 1.8\nstep 3/50 | loss 1.7\n");
  auto w = watch_of(d);
  w.stall_after = 60s;
  std::mutex m;
  std::vector<JobRound> rounds;
  std::thread t([&] {
    watch_job(w, [](const Alert&) {}, [&](const JobRound& r) {
      std::lock_guard l(m);
      rounds.push_back(r);
    });
  });
  std::this_thread::sleep_for(300ms);
  d.append("live-end.n1", "");
  t.join();
  ASSERT_FALSE(rounds.empty());
  const JobRound& last = rounds.back();
  EXPECT_EQ(last.samples, 1u);
  EXPECT_TRUE(last.observation.alive);
  EXPECT_EQ(last.observation.snap.step, 3u);
  EXPECT_EQ(last.observation.snap.total_steps, 50u);
  EXPECT_EQ(last.observation.last_line, "step 3/50 | loss 1.7");
  EXPECT_TRUE(last.observation.cpu_s.has_value());
}

TEST(JobWatch, TheWatchEndsWhenItsTimeIsUp) {
  JobDir d;
  auto w = watch_of(d);
  w.give_up = Clock::now() + 200ms;
  const auto t0 = std::chrono::steady_clock::now();
  watch_job(w, [](const Alert&) {});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

}  // namespace
}  // namespace gpualert::live
