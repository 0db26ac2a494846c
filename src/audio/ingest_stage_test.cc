#include "audio/ingest_stage.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "graph/harness.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

// Hands out the given chunks, one per read, then the end of the input.
AudioChunkReader ChunksOf(std::vector<AudioBuffer> chunks, int* reads = nullptr) {
  auto next = std::make_shared<size_t>(0);
  return [chunks = std::move(chunks), next, reads](AudioBuffer& chunk) -> absl::StatusOr<bool> {
    if (reads != nullptr) ++*reads;
    if (*next == chunks.size()) return false;
    chunk = chunks[(*next)++];
    return true;
  };
}

AudioBuffer Ramp(int samples, float from = 0) {
  AudioBuffer b{16000, 1, {}};
  for (int i = 0; i < samples; ++i) b.samples.push_back(from + static_cast<float>(i));
  return b;
}

IngestOptions Unpaced() {
  IngestOptions options;
  options.pace = false;
  return options;
}

TEST(IngestStageTest, SplitsReadsInto20MsPiecesOnOneTimeline) {
  // 50 ms, then 30 ms: pieces of 20, 20, 10, then 20, 10 ms, back to back.
  StageHarness<IngestStage> h(std::make_unique<IngestStage>(ChunksOf({Ramp(800), Ramp(480, 800)}), Unpaced()));
  auto out = h.Collect(h.stage().out);
  ASSERT_OK(h.Open());
  ASSERT_OK(h.RunUntilFinished());
  const auto packets = out.Packets();
  ASSERT_EQ(packets.size(), 5u);
  const std::vector<int64_t> ends_ms = {20, 40, 50, 70, 80};
  MediaTime expected_pts;
  float expected_sample = 0;
  for (size_t i = 0; i < packets.size(); ++i) {
    EXPECT_EQ(packets[i].pts, expected_pts) << i;
    EXPECT_EQ(packets[i].pts + packets[i].duration, MediaTime::Millis(ends_ms[i])) << i;
    // Origin from the timeline: the moment a live source would have delivered the piece.
    EXPECT_EQ(packets[i].origin, MediaTime::Millis(ends_ms[i])) << i;
    for (float s : packets[i].value.samples) EXPECT_EQ(s, expected_sample++);
    expected_pts = packets[i].pts + packets[i].duration;
  }
  EXPECT_EQ(h.stage().position(), MediaTime::Millis(80));
  EXPECT_TRUE(out.ended());
}

TEST(IngestStageTest, OriginIsTheClockReadingWhenNotFromTheTimeline) {
  IngestOptions options = Unpaced();
  options.origin_from_timeline = false;
  StageHarness<IngestStage> h(std::make_unique<IngestStage>(ChunksOf({Ramp(640)}), options),
                              MediaTime::Seconds(5));
  auto out = h.Collect(h.stage().out);
  ASSERT_OK(h.RunUntilFinished());
  const auto packets = out.Packets();
  ASSERT_EQ(packets.size(), 2u);
  for (const auto& p : packets) EXPECT_EQ(p.origin, MediaTime::Seconds(5));
}

TEST(IngestStageTest, PacedPiecesWaitForTheClockAsALiveSourceWould) {
  IngestOptions options;
  options.pace = true;
  options.session_start = MediaTime::Seconds(1);
  StageHarness<IngestStage> h(std::make_unique<IngestStage>(ChunksOf({Ramp(640)}), options), MediaTime::Seconds(1));
  auto out = h.Collect(h.stage().out);
  std::thread step([&] { ASSERT_OK(h.Step()); });
  // The first piece (0-20 ms) waits until 1.020 s on the clock.
  while (h.clock().sleepers() == 0) std::this_thread::yield();
  EXPECT_TRUE(out.Packets().empty());
  h.clock().AdvanceTo(MediaTime::Millis(1020));
  while (h.stage().position() < MediaTime::Millis(20)) std::this_thread::yield();
  while (h.clock().sleepers() == 0) std::this_thread::yield();  // now on the second piece
  h.clock().AdvanceTo(MediaTime::Millis(1040));
  step.join();
  EXPECT_EQ(out.Packets().size(), 2u);
}

TEST(IngestStageTest, ADrainEndsTheStreamWithoutReadingMore) {
  int reads = 0;
  StageHarness<IngestStage> h(
      std::make_unique<IngestStage>(ChunksOf({Ramp(320), Ramp(320), Ramp(320)}, &reads), Unpaced()));
  auto out = h.Collect(h.stage().out);
  ASSERT_OK(h.Step());
  h.Drain();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(out.Packets().size(), 1u);  // the piece read before the drain, and nothing after
  EXPECT_TRUE(out.ended());
}

TEST(IngestStageTest, AReadErrorEndsTheStageWithThatError) {
  AudioChunkReader failing = [](AudioBuffer&) -> absl::StatusOr<bool> {
    return absl::DataLossError("host.wav: truncated frame");
  };
  StageHarness<IngestStage> h(std::make_unique<IngestStage>(failing, Unpaced()));
  auto out = h.Collect(h.stage().out);
  const absl::Status status = h.RunUntilFinished();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(), "host.wav: truncated frame");
  EXPECT_TRUE(out.Packets().empty());
  EXPECT_TRUE(out.ended());
}

TEST(IngestStageTest, AudioAtAnotherRateIsRefusedAndNothingIsSent) {
  AudioBuffer stereo{48000, 2, std::vector<float>(960, 0.f)};
  StageHarness<IngestStage> h(std::make_unique<IngestStage>(ChunksOf({stereo}), Unpaced()));
  auto out = h.Collect(h.stage().out);
  const absl::Status status = h.RunUntilFinished();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(), "the live source must deliver 16 kHz mono audio");
  EXPECT_TRUE(out.Packets().empty());
}

}  // namespace
}  // namespace lingcast
