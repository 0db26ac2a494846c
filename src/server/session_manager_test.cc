// The session table on its own: states, limits, stop, shutdown and the event
// fan-out, over jobs that run until they are told to stop (the live shows these
// stand for have their tests in src/app/serve_test.cc).
#include "server/session_manager.h"

#include <atomic>
#include <future>
#include <mutex>
#include <set>

#include "core/sync.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;

// Runs until RequestStop(); its report counts the corrections it took.
class UntilStopped : public SessionJob {
 public:
  explicit UntilStopped(EventHub& events) : events_(events) {}
  absl::StatusOr<nlohmann::json> Run() override {
    events_.Publish({{"type", "decision"}, {"line", 0}});
    stopped_.WaitForNotification();
    return nlohmann::json{{"summary", {{"lines", 1}, {"corrections", corrections_.load()}}}};
  }
  void RequestStop() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_.HasBeenNotified()) stopped_.Notify();
  }
  nlohmann::json Progress() const override { return {{"summary", {{"lines", 1}}}}; }
  absl::Status SubmitCorrection(const std::string& command) override {
    if (command.empty()) return absl::InvalidArgumentError("empty command");
    corrections_.fetch_add(1);
    return absl::OkStatus();
  }
  void SetDegradationFloor(int level) override {
    floor_.store(level);
    events_.Publish({{"type", "floor"}, {"level", level}});
  }

 private:
  EventHub& events_;
  std::mutex mu_;
  Notification stopped_;
  std::atomic<int> corrections_{0};
  std::atomic<int> floor_{0};
};

SessionFactory Factory() {
  SessionFactory factory;
  factory.check = [](const nlohmann::json& settings) {
    return settings.contains("bad") ? absl::InvalidArgumentError("--fps 500 is outside 1..120") : absl::OkStatus();
  };
  factory.create = [](const nlohmann::json& settings,
                      EventHub& events) -> absl::StatusOr<std::unique_ptr<SessionJob>> {
    if (settings.contains("unreachable")) return absl::UnavailableError("rtmp://nowhere: connection refused");
    return std::make_unique<UntilStopped>(events);
  };
  return factory;
}

class Recorder : public EventClient {
 public:
  explicit Recorder(size_t room = 1000) : room_(room) {}
  bool Send(std::string text) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (texts_.size() >= room_) return false;
    texts_.push_back(std::move(text));
    return true;
  }
  bool open() const override { return true; }
  void Close() override {}
  std::vector<std::string> texts() {
    std::lock_guard<std::mutex> lock(mu_);
    return texts_;
  }

 private:
  const size_t room_;
  std::mutex mu_;
  std::vector<std::string> texts_;
};

TEST(SessionManagerTest, ASessionRunsUntilStoppedAndKeepsItsReport) {
  SessionManager sessions(Factory(), {});
  absl::StatusOr<std::string> id = sessions.Create({{"in", "a.wav"}});
  ASSERT_OK(id);
  EXPECT_EQ(*id, "s1");
  EXPECT_THAT(sessions.Report(*id), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("when it ends")));
  EXPECT_EQ(sessions.active(), 1);
  ASSERT_OK(sessions.Stop(*id));
  ASSERT_TRUE(sessions.WaitAll(absl::Seconds(30)));
  absl::StatusOr<SessionSummary> summary = sessions.Get(*id);
  ASSERT_OK(summary);
  EXPECT_EQ(summary->state, SessionState::kFinished);
  EXPECT_EQ(summary->settings, (nlohmann::json{{"in", "a.wav"}}));
  absl::StatusOr<nlohmann::json> report = sessions.Report(*id);
  ASSERT_OK(report);
  EXPECT_EQ((*report)["summary"]["lines"], 1);
  EXPECT_OK(sessions.Stop(*id));  // again: nothing more happens
  EXPECT_EQ(sessions.active(), 0);
}

TEST(SessionManagerTest, BadSettingsStartNothing) {
  SessionManager sessions(Factory(), {});
  EXPECT_THAT(sessions.Create({{"bad", 1}}), StatusIs(absl::StatusCode::kInvalidArgument, "--fps 500 is outside 1..120"));
  EXPECT_TRUE(sessions.List().empty());
  EXPECT_THAT(sessions.Get("s1"), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

TEST(SessionManagerTest, ASessionThatCannotStartFailsAloneWithItsReason) {
  SessionManager sessions(Factory(), {});
  absl::StatusOr<std::string> good = sessions.Create({});
  absl::StatusOr<std::string> bad = sessions.Create({{"unreachable", true}});
  ASSERT_OK(good);
  ASSERT_OK(bad);
  // The failed one ends by itself; the good one runs on.
  ASSERT_TRUE(sessions.WaitForState(*bad, SessionState::kFailed, absl::Seconds(30)));
  absl::StatusOr<SessionSummary> failed = sessions.Get(*bad);
  ASSERT_OK(failed);
  EXPECT_EQ(failed->state, SessionState::kFailed);
  EXPECT_EQ(failed->error, "rtmp://nowhere: connection refused");
  EXPECT_THAT(sessions.Report(*bad), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("connection refused")));
  absl::StatusOr<SessionSummary> running = sessions.Get(*good);
  ASSERT_OK(running);
  EXPECT_THAT(running->state, ::testing::AnyOf(SessionState::kStarting, SessionState::kRunning));
}

TEST(SessionManagerTest, TheLimitCountsActiveSessionsOnly) {
  SessionManager sessions(Factory(), {.max_sessions = 2, .keep_ended = 64});
  ASSERT_OK(sessions.Create({}));
  ASSERT_OK(sessions.Create({}));
  EXPECT_EQ(sessions.capacity_left(), 0);
  EXPECT_THAT(sessions.Create({}), StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--max-sessions")));
  ASSERT_OK(sessions.Stop("s1"));
  ASSERT_TRUE(sessions.WaitForActive(1, absl::Seconds(30)));
  EXPECT_OK(sessions.Create({}));
}

TEST(SessionManagerTest, OnlyTheNewestEndedSessionsAreKept) {
  SessionManager sessions(Factory(), {.max_sessions = 1, .keep_ended = 2});
  for (int n = 1; n <= 4; ++n) {
    absl::StatusOr<std::string> id = sessions.Create({});
    ASSERT_OK(id);
    ASSERT_OK(sessions.Stop(*id));
    ASSERT_TRUE(sessions.WaitForActive(0, absl::Seconds(30)));
  }
  std::vector<std::string> kept;
  for (const SessionSummary& s : sessions.List()) kept.push_back(s.id);
  EXPECT_EQ(kept, (std::vector<std::string>{"s3", "s4"}));
}

TEST(SessionManagerTest, ShutdownStopsEverySessionAndRefusesNewOnes) {
  SessionManager sessions(Factory(), {.max_sessions = 3, .keep_ended = 64});
  ASSERT_OK(sessions.Create({}));
  ASSERT_OK(sessions.Create({}));
  sessions.BeginShutdown();
  EXPECT_TRUE(sessions.shutting_down());
  EXPECT_EQ(sessions.capacity_left(), 0);
  EXPECT_THAT(sessions.Create({}), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("shutting down")));
  ASSERT_TRUE(sessions.WaitAll(absl::Seconds(30)));
  for (const SessionSummary& s : sessions.List()) EXPECT_EQ(s.state, SessionState::kFinished) << s.id;
}

TEST(SessionManagerTest, CorrectionsReachTheRunningJob) {
  SessionManager sessions(Factory(), {});
  absl::StatusOr<std::string> id = sessions.Create({});
  ASSERT_OK(id);
  EXPECT_THAT(sessions.SubmitCorrection("s9", "line 1 = x"), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  // Before the job exists a correction is refused, never silently lost.
  const absl::Status early = sessions.SubmitCorrection(*id, "line 1 = x");
  if (!early.ok()) {
    EXPECT_THAT(early, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no corrections now")));
  }
  ASSERT_TRUE(sessions.WaitForState(*id, SessionState::kRunning, absl::Seconds(30)));
  if (!early.ok()) {
    ASSERT_OK(sessions.SubmitCorrection(*id, "line 1 = x"));
  }
  EXPECT_THAT(sessions.SubmitCorrection(*id, ""), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  ASSERT_OK(sessions.Stop(*id));
  ASSERT_TRUE(sessions.WaitAll(absl::Seconds(30)));
  EXPECT_EQ((*sessions.Report(*id))["summary"]["corrections"], 1);
  EXPECT_THAT(sessions.SubmitCorrection(*id, "line 1 = x"), StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
}

// The server's watchdog: its level reaches every running session and every one
// started while it holds; at its last rung no session is started, with the
// reason, until it is lifted.
TEST(SessionManagerTest, TheServersDegradationReachesEverySessionAndCanRefuseNewOnes) {
  SessionManager manager(Factory(), {.max_sessions = 4});
  absl::StatusOr<std::string> first = manager.Create(nlohmann::json::object());
  ASSERT_OK(first);
  ASSERT_TRUE(manager.WaitForState(*first, SessionState::kRunning, absl::Seconds(10)));
  auto first_events = std::make_shared<Recorder>();
  ASSERT_OK(manager.JoinEvents(*first, first_events));

  manager.SetDegradation(2, /*refuse_new=*/false, "");
  EXPECT_FALSE(manager.refusing_new());
  absl::StatusOr<std::string> second = manager.Create(nlohmann::json::object());
  ASSERT_OK(second);
  ASSERT_TRUE(manager.WaitForState(*second, SessionState::kRunning, absl::Seconds(10)));
  auto second_events = std::make_shared<Recorder>();
  ASSERT_OK(manager.JoinEvents(*second, second_events));
  EXPECT_THAT(first_events->texts(), ::testing::Contains(HasSubstr(R"("level":2,"type":"floor")")));
  EXPECT_THAT(second_events->texts(), ::testing::Contains(HasSubstr(R"("level":2,"type":"floor")")))
      << "a session started under pressure starts degraded";

  manager.SetDegradation(3, /*refuse_new=*/true, "the server is under pressure (memory 1900 MB above 1800 MB)");
  EXPECT_TRUE(manager.refusing_new());
  EXPECT_THAT(manager.Create(nlohmann::json::object()),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("memory 1900 MB above 1800 MB")));
  EXPECT_EQ(manager.active(), 2) << "nothing started";
  manager.SetDegradation(0, /*refuse_new=*/false, "");
  EXPECT_FALSE(manager.refusing_new());
  EXPECT_OK(manager.Create(nlohmann::json::object()).status());
  EXPECT_THAT(first_events->texts(), ::testing::Contains(HasSubstr(R"("level":0,"type":"floor")")));
}

TEST(EventHubTest, LateClientsGetTheLatestOfEachKindThenTheRest) {
  EventHub hub;
  hub.Publish({{"type", "subtitle"}, {"primary", "one"}});
  hub.Publish({{"type", "subtitle"}, {"primary", "two"}});
  hub.Publish({{"type", "decision"}, {"line", 1}});
  auto late = std::make_shared<Recorder>();
  hub.Join(late);
  hub.Publish({{"type", "subtitle"}, {"primary", "three"}});
  hub.CloseAll();
  hub.Publish({{"type", "subtitle"}, {"primary", "after the end"}});
  // In the order they happened.
  EXPECT_EQ(late->texts(), (std::vector<std::string>{R"({"primary":"two","type":"subtitle"})",
                                                     R"({"line":1,"type":"decision"})",
                                                     R"({"primary":"three","type":"subtitle"})", R"({"type":"end"})"}));
  EXPECT_EQ(hub.clients(), 0);
}

TEST(EventHubTest, WhatIsNoLongerTrueIsNotSentToALateClient) {
  EventHub hub;
  hub.Publish({{"type", "subtitle"}, {"primary", "gone from the screen"}}, absl::ZeroDuration());
  hub.Publish({{"type", "caption"}, {"stable", "still there"}});
  auto late = std::make_shared<Recorder>();
  hub.Join(late);
  EXPECT_EQ(late->texts(), (std::vector<std::string>{R"({"stable":"still there","type":"caption"})"}));
}

TEST(SessionManagerTest, EachSessionHasItsOwnViewTokenThatAdmitsOnlyItself) {
  SessionManager manager(Factory(), {});
  absl::StatusOr<std::string> created_a = manager.Create({});
  absl::StatusOr<std::string> created_b = manager.Create({});
  ASSERT_OK(created_a);
  ASSERT_OK(created_b);
  const std::string a = *created_a, b = *created_b;
  absl::StatusOr<SessionSummary> got_a = manager.Get(a);
  absl::StatusOr<SessionSummary> got_b = manager.Get(b);
  ASSERT_OK(got_a);
  ASSERT_OK(got_b);
  const SessionSummary first = *got_a, second = *got_b;
  EXPECT_EQ(first.view_token.size(), 32u);
  EXPECT_NE(first.view_token, second.view_token);
  EXPECT_TRUE(manager.AdmitsViewer(a, first.view_token));
  EXPECT_FALSE(manager.AdmitsViewer(a, second.view_token));
  EXPECT_FALSE(manager.AdmitsViewer(b, first.view_token));
  EXPECT_FALSE(manager.AdmitsViewer(a, ""));
  EXPECT_FALSE(manager.AdmitsViewer(a, first.view_token.substr(0, 31)));
  EXPECT_FALSE(manager.AdmitsViewer("s99", first.view_token));
}

// Ends at once; its destructor waits until the test lets it go, standing for a
// job that takes long to close its outputs.
class SlowToClose : public SessionJob {
 public:
  explicit SlowToClose(Notification& release) : release_(release) {}
  ~SlowToClose() override { release_.WaitForNotification(); }
  absl::StatusOr<nlohmann::json> Run() override { return nlohmann::json::object(); }
  void RequestStop() override {}
  nlohmann::json Progress() const override { return nlohmann::json::object(); }
  absl::Status SubmitCorrection(const std::string&) override { return absl::OkStatus(); }

 private:
  Notification& release_;
};

TEST(SessionManagerTest, AJobClosingSlowlyHoldsNobodyElseUp) {
  Notification release;  // lets the slow job's destructor return
  Notification at_once;  // already given: that job closes at once
  at_once.Notify();
  SessionFactory factory;
  factory.check = [](const nlohmann::json&) { return absl::OkStatus(); };
  factory.create = [&](const nlohmann::json& settings, EventHub&) -> absl::StatusOr<std::unique_ptr<SessionJob>> {
    return std::make_unique<SlowToClose>(settings.contains("slow") ? release : at_once);
  };
  SessionManagerOptions options;
  options.keep_ended = 1;
  SessionManager manager(factory, options);
  absl::StatusOr<std::string> created = manager.Create({{"slow", true}});
  ASSERT_OK(created);
  const std::string slow = *created;
  ASSERT_TRUE(manager.WaitForState(slow, SessionState::kFinished, absl::Seconds(60)));
  // The slow session's thread is still closing its job. The next session to end
  // drops it from the table (keep_ended 1) and joins its thread: not under the
  // table's lock, or every status request would wait for the close.
  ASSERT_OK(manager.Create({}).status());
  std::future<size_t> listed = std::async(std::launch::async, [&manager] {
    manager.WaitForActive(0, absl::Seconds(60));
    return manager.List().size();
  });
  const bool answered = listed.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  release.Notify();
  ASSERT_TRUE(answered) << "the session table stayed locked while a job closed";
  EXPECT_EQ(listed.get(), 1u);  // the slow one was dropped
}

TEST(EventHubTest, TextThatIsNotUtf8IsReplacedNotThrown) {
  EventHub hub;
  auto client = std::make_shared<Recorder>();
  hub.Join(client);
  hub.Publish({{"type", "caption"}, {"source", std::string("caf\xe9")}});
  ASSERT_EQ(client->texts().size(), 1u);
  EXPECT_EQ(client->texts()[0], "{\"source\":\"caf\xef\xbf\xbd\",\"type\":\"caption\"}");
}

TEST(EventHubTest, AClientThatCannotKeepUpIsDroppedNotWaitedFor) {
  EventHub hub;
  auto slow = std::make_shared<Recorder>(/*room=*/2);
  auto fast = std::make_shared<Recorder>();
  hub.Join(slow);
  hub.Join(fast);
  for (int i = 0; i < 5; ++i) hub.Publish({{"type", "caption"}, {"update", i}});
  EXPECT_EQ(slow->texts().size(), 2u);
  EXPECT_EQ(fast->texts().size(), 5u);
  EXPECT_EQ(hub.clients(), 1);
}

}  // namespace
}  // namespace lingcast
