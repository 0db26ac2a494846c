// `lingcast worker` for real: a Redis server started here on loopback, three
// worker processes of the built binary, thirty render jobs, one worker killed
// in the middle of a job. Every job is done exactly once, every output complete.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "app/render_queue.h"
#include "audio/audio_decoder.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;
namespace fs = std::filesystem;

constexpr char kRedisServer[] = "/usr/bin/redis-server";

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// A child process, killed at the end if still running.
class Child {
 public:
  explicit Child(std::vector<std::string> argv, const std::string& log) {
    pid_ = fork();
    if (pid_ == 0) {
      const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
      std::vector<char*> pointers;
      for (std::string& a : argv) pointers.push_back(a.data());
      pointers.push_back(nullptr);
      execv(pointers[0], pointers.data());
      _exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void Signal(int signal) { kill(pid_, signal); }
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
};

class WorkerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1); }

  void SetUp() override {
    if (access(kRedisServer, X_OK) != 0) GTEST_SKIP() << "redis-server is not installed (scripts/install-deps.sh)";
    port_ = FreePort();
    redis_ = std::make_unique<Child>(
        std::vector<std::string>{kRedisServer, "--port", absl::StrCat(port_), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", dir_.path()},
        dir_.File("redis.log"));
    options_.url = absl::StrCat("redis://127.0.0.1:", port_);
    options_.claim_idle = absl::Seconds(1);
    // Until the server answers (a bounded wait for it to start).
    for (int i = 0; i < 200 && queue_ == nullptr; ++i) {
      absl::StatusOr<std::unique_ptr<RenderQueue>> queue = RenderQueue::Connect(options_);
      if (queue.ok()) queue_ = std::move(*queue);
      if (queue_ == nullptr) usleep(25'000);
    }
    ASSERT_NE(queue_, nullptr) << "redis-server did not start";
    std::ofstream(dir_.File("show.script")) << "en: Hello and welcome | zh: 你好，欢迎\n";
  }

  std::unique_ptr<Child> Worker(const std::string& name) {
    return std::make_unique<Child>(
        std::vector<std::string>{LINGCAST_BINARY_DIR "/lingcast", "worker", "--redis", options_.url, "--claim-idle",
                                 "1", "--name", name},
        dir_.File(name + ".log"));
  }

  std::vector<std::string> Job(const std::string& out) {
    return {dir_.File("show.script"), "-o", dir_.File(out), "--size", "160x90", "--fps", "10", "--tts", "espeak",
            "--subtitles", "none"};
  }

  ScratchDir dir_;
  int port_ = 0;
  std::unique_ptr<Child> redis_;
  RenderQueueOptions options_;
  std::unique_ptr<RenderQueue> queue_;
};

TEST_F(WorkerTest, ThirtyJobsThreeWorkersOneKilledEveryJobDoneOnce) {
  std::set<std::string> submitted;
  for (int i = 0; i < 30; ++i) {
    absl::StatusOr<std::string> id = queue_->Submit(Job(absl::StrCat("out", i, ".mp4")));
    ASSERT_OK(id);
    submitted.insert(*id);
  }
  std::vector<std::unique_ptr<Child>> workers;
  for (const char* name : {"w1", "w2", "w3"}) workers.push_back(Worker(name));
  // Once w1 holds a job (and has done a few), it dies without a word.
  for (int i = 0; i < 2000 && !(queue_->Length(options_.stream + ":done") >= 3 && queue_->Pending("w1") == 1); ++i) {
    usleep(10'000);
  }
  ASSERT_EQ(queue_->Pending("w1"), 1) << "w1 never held a job";
  workers[0]->Signal(SIGKILL);
  workers[0]->Wait();

  for (int i = 0; i < 12000 && queue_->Length(options_.stream + ":done") < 30; ++i) usleep(10'000);
  const auto done = queue_->Entries(options_.stream + ":done");
  std::set<std::string> done_ids;
  for (const auto& entry : done) done_ids.insert(entry.at("job"));
  EXPECT_EQ(done.size(), 30u);
  EXPECT_EQ(done_ids, submitted);  // each exactly once
  EXPECT_EQ(queue_->Length(options_.stream + ":dead"), 0);
  EXPECT_EQ(queue_->Pending("w1"), 0);  // its job was taken over
  for (int i = 0; i < 30; ++i) {
    const std::string out = dir_.File(absl::StrCat("out", i, ".mp4"));
    absl::StatusOr<AudioFileReader> reader = AudioFileReader::Open(out, 16000);
    EXPECT_OK(reader) << out;
  }
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".tmp"))) << "a partial output is left";
  }
  for (size_t i = 1; i < workers.size(); ++i) {
    workers[i]->Signal(SIGTERM);
    EXPECT_EQ(workers[i]->Wait(), 0);
  }
}

TEST_F(WorkerTest, AJobThatCannotSucceedGoesToTheDeadLetterStreamWithItsError) {
  ASSERT_OK(queue_->Submit({dir_.File("missing.script"), "-o", dir_.File("never.mp4")}));
  std::unique_ptr<Child> worker = Worker("w1");
  for (int i = 0; i < 3000 && queue_->Length(options_.stream + ":dead") < 1; ++i) usleep(10'000);
  const auto dead = queue_->Entries(options_.stream + ":dead");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_THAT(dead[0].at("error"), HasSubstr("missing.script"));
  EXPECT_EQ(queue_->Length(options_.stream + ":done"), 0);
  EXPECT_FALSE(fs::exists(dir_.File("never.mp4")));
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(), 0);
}

TEST_F(WorkerTest, ALongRenderKeepsItsClaimAndIsDoneOnce) {
  // Paced at real time: a few seconds, longer than --claim-idle 1 many times over.
  std::vector<std::string> job = Job("long.mp4");
  job.push_back("--realtime");
  ASSERT_OK(queue_->Submit(job));
  std::unique_ptr<Child> w1 = Worker("w1");
  std::unique_ptr<Child> w2 = Worker("w2");
  for (int i = 0; i < 6000 && queue_->Length(options_.stream + ":done") < 1; ++i) usleep(10'000);
  ASSERT_EQ(queue_->Length(options_.stream + ":done"), 1);
  // Had the other worker taken it over while it ran, its render would end a
  // little later with a second entry.
  for (int i = 0; i < 300; ++i) usleep(10'000);
  EXPECT_EQ(queue_->Length(options_.stream + ":done"), 1);
  EXPECT_EQ(queue_->Pending("w1") + queue_->Pending("w2"), 0);
  w1->Signal(SIGTERM);
  w2->Signal(SIGTERM);
  EXPECT_EQ(w1->Wait(), 0);
  EXPECT_EQ(w2->Wait(), 0);
}

TEST(RenderQueueTest, ABadUrlOrNoServerIsOneClearError) {
  RenderQueueOptions options;
  options.url = "http://127.0.0.1:6379";
  EXPECT_THAT(RenderQueue::Connect(options),
              testing_util::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("redis://HOST")));
  options.url = absl::StrCat("redis://127.0.0.1:", FreePort());
  EXPECT_THAT(RenderQueue::Connect(options),
              testing_util::StatusIs(absl::StatusCode::kUnavailable, HasSubstr(options.url)));
}

}  // namespace
}  // namespace lingcast
