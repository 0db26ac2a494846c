#include "graph/harness.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/status.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

// Stamps each packet with the simulated time it was processed at.
class Stamper : public Stage {
 public:
  Stamper() : Stage("stamper") {}
  In<int> in{this, "in"};
  Out<int64_t> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    auto p = in.Pop();
    if (!p) return Flow::kFinished;
    LC_RETURN_IF_ERROR(out.Push(p->Derive(clock().Now().millis())));
    return Flow::kContinue;
  }
};

TEST(StageHarnessTest, DrivesAStageOnTheSimulatedClock) {
  StageHarness<Stamper> h(std::make_unique<Stamper>());
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  ASSERT_OK(h.Open());
  feed.Push(1, MediaTime::Zero());
  ASSERT_OK(h.Step());
  h.clock().Advance(MediaTime::Millis(250));
  feed.Push(2, MediaTime::Millis(10));
  ASSERT_OK(h.Step());
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_EQ(sink.Values(), (std::vector<int64_t>{0, 250}));
  EXPECT_TRUE(sink.ended());
  // Latency is measured from each packet's origin (its pts here) on the clock.
  EXPECT_EQ(h.latency().Summary("stamper.out").max, MediaTime::Millis(240));
}

TEST(StageHarnessTest, FlushBumpsGenerationDropsStaleAndForwards) {
  StageHarness<Stamper> h(std::make_unique<Stamper>());
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  feed.Push(1, MediaTime::Zero(), {}, /*generation=*/0);
  feed.Flush(3);  // overtakes the queued packet and purges it
  feed.Push(2, MediaTime::Zero(), {}, /*generation=*/3);
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_EQ(h.stage().generation(), 3u);
  EXPECT_EQ(sink.Flushes(), (std::vector<uint64_t>{3}));
  const auto packets = sink.Packets();
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].generation, 3u);
}

TEST(StageHarnessTest, LatePacketsOfAnOldGenerationAreDropped) {
  StageHarness<Stamper> h(std::make_unique<Stamper>());
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  feed.Flush(2);
  feed.Push(1, MediaTime::Zero(), {}, /*generation=*/1);  // arrives after the flush
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_TRUE(sink.Values().empty());
  EXPECT_EQ(h.stage().stale_dropped(), 1);
}

TEST(StageHarnessTest, ErrorsGoToTheBus) {
  class Failer : public Stage {
   public:
    Failer() : Stage("failer") {}
    absl::StatusOr<Flow> Process() override { return absl::InvalidArgumentError("bad packet"); }
  };
  StageHarness<Failer> h(std::make_unique<Failer>());
  EXPECT_FALSE(h.RunUntilFinished().ok());
  const auto messages = h.bus().Drain();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].source, "failer");
}

TEST(StageHarnessTest, WarningsGoToTheBusAndTheStageGoesOn) {
  // Drops odd packets, warning about each.
  class Picky : public Stage {
   public:
    Picky() : Stage("picky") {}
    In<int> in{this, "in"};
    Out<int> out{this, "out"};
    absl::StatusOr<Flow> Process() override {
      auto p = in.Pop();
      if (!p) return Flow::kFinished;
      if (p->value % 2 == 1) {
        Warn(absl::InvalidArgumentError("odd packet dropped"));
        return Flow::kContinue;
      }
      LC_RETURN_IF_ERROR(out.Push(std::move(*p)));
      return Flow::kContinue;
    }
  };
  StageHarness<Picky> h(std::make_unique<Picky>());
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  for (int i = 0; i < 4; ++i) feed.Push(i, MediaTime::Millis(i));
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_EQ(sink.Values(), (std::vector<int>{0, 2}));
  const auto messages = h.bus().Drain();
  ASSERT_EQ(messages.size(), 2u);
  for (const BusMessage& message : messages) {
    EXPECT_EQ(message.kind, BusMessage::Kind::kWarning);
    EXPECT_EQ(message.source, "picky");
    EXPECT_EQ(message.status.message(), "odd packet dropped");
  }
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(StageHarnessTest, ExceptionsBecomeStatusAndTheStageIsClosed) {
  class Thrower : public Stage {
   public:
    Thrower() : Stage("thrower") {}
    Out<int> out{this, "out"};
    absl::StatusOr<Flow> Process() override { throw std::runtime_error("boom"); }
    absl::Status Close() override {
      closed = true;
      return absl::OkStatus();
    }
    bool closed = false;
  };
  StageHarness<Thrower> h(std::make_unique<Thrower>());
  auto sink = h.Collect(h.stage().out);
  const absl::Status s = h.RunUntilFinished();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("boom"), absl::string_view::npos);
  EXPECT_TRUE(h.stage().closed);
  EXPECT_TRUE(sink.ended());
}

}  // namespace
}  // namespace lingcast
