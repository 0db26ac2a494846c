#include "output/live_queue.h"

#include <vector>

#include "gtest/gtest.h"
#include "output/output_sink.h"

namespace lingcast {
namespace {

PacketPtr MakePacket(int stream, int64_t dts_ms, bool key = false) {
  PacketPtr packet(av_packet_alloc());
  packet->stream_index = stream;
  packet->dts = packet->pts = dts_ms * 1000;
  if (key) packet->flags |= AV_PKT_FLAG_KEY;
  return packet;
}

std::vector<int64_t> DrainDts(LivePacketQueue& queue, int stream) {
  queue.Close();
  std::vector<int64_t> dts;
  while (PacketPtr p = queue.Pop()) {
    if (p->stream_index == stream) dts.push_back(p->dts / 1000);
  }
  return dts;
}

TEST(LivePacketQueueTest, UnderCongestionDropsNonKeyVideoUntilAKeyframeAndNeverAudio) {
  LivePacketQueue queue(MediaTime::Millis(700), MediaTime::Seconds(2));
  queue.SetConnected(true, false);
  // Nothing is sent: the queue fills. Video every 100 ms (key every 1 s), audio every 20 ms.
  for (int64_t ms = 0; ms < 3000; ms += 20) {
    queue.Push(MakePacket(kAudioStreamIndex, ms));
    if (ms % 100 == 0) queue.Push(MakePacket(kVideoStreamIndex, ms, ms % 1000 == 0));
  }
  EXPECT_GT(queue.dropped_video(), 0);
  EXPECT_EQ(queue.discarded(), 0);
  const std::vector<int64_t> video = DrainDts(queue, kVideoStreamIndex);
  // Every frame until more than 700 ms of video is queued (0..800), then keyframes only.
  for (int64_t dts : video) {
    if (dts > 800) {
      EXPECT_EQ(dts % 1000, 0) << dts;
    }
  }
  EXPECT_EQ(video.size() + static_cast<size_t>(queue.dropped_video()), 30u);
}

TEST(LivePacketQueueTest, AudioIsNeverDroppedUnderCongestion) {
  LivePacketQueue queue(MediaTime::Millis(700), MediaTime::Seconds(2));
  queue.SetConnected(true, false);
  for (int64_t ms = 0; ms < 3000; ms += 20) {
    queue.Push(MakePacket(kAudioStreamIndex, ms));
    if (ms % 100 == 0) queue.Push(MakePacket(kVideoStreamIndex, ms, ms % 1000 == 0));
  }
  EXPECT_EQ(DrainDts(queue, kAudioStreamIndex).size(), 150u);
}

TEST(LivePacketQueueTest, ResumesVideoAtTheNextKeyframeOnceDrained) {
  LivePacketQueue queue(MediaTime::Millis(700), MediaTime::Seconds(2));
  queue.SetConnected(true, false);
  for (int64_t ms = 0; ms <= 800; ms += 100) queue.Push(MakePacket(kVideoStreamIndex, ms, ms == 0));
  queue.Push(MakePacket(kVideoStreamIndex, 900));  // over 700 ms: dropped
  EXPECT_EQ(queue.dropped_video(), 1);
  while (queue.span() > MediaTime::Zero()) queue.Pop();  // the network catches up
  queue.Push(MakePacket(kVideoStreamIndex, 1000));        // still waiting for a keyframe
  EXPECT_EQ(queue.dropped_video(), 2);
  queue.Push(MakePacket(kVideoStreamIndex, 1100, true));
  queue.Push(MakePacket(kVideoStreamIndex, 1200));
  EXPECT_EQ(queue.dropped_video(), 2);
  const std::vector<int64_t> video = DrainDts(queue, kVideoStreamIndex);
  EXPECT_EQ(video, (std::vector<int64_t>{800, 1100, 1200}));
}

TEST(LivePacketQueueTest, DisconnectedKeepsOnlyTheNewestMediaAndAReconnectStartsAtAKeyframe) {
  LivePacketQueue queue(MediaTime::Millis(700), MediaTime::Seconds(1));
  for (int64_t ms = 0; ms < 5000; ms += 100) {
    queue.Push(MakePacket(kAudioStreamIndex, ms));
    queue.Push(MakePacket(kVideoStreamIndex, ms, ms % 3000 == 0));
  }
  EXPECT_LE(queue.span(), MediaTime::Seconds(1));
  EXPECT_GT(queue.discarded(), 0);
  queue.SetConnected(true, /*reconnect=*/true);  // no keyframe in the last second: all discarded
  queue.Push(MakePacket(kAudioStreamIndex, 5000));
  queue.Push(MakePacket(kVideoStreamIndex, 5000));
  queue.Push(MakePacket(kVideoStreamIndex, 6000, true));
  queue.Push(MakePacket(kAudioStreamIndex, 6000));
  queue.Close();
  PacketPtr first = queue.Pop();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->stream_index, kVideoStreamIndex);
  EXPECT_TRUE(first->flags & AV_PKT_FLAG_KEY);
  EXPECT_EQ(first->dts, 6'000'000);
}

PacketPtr MakeSizedPacket(int stream, int64_t dts_ms, int size, bool key = false) {
  PacketPtr packet(av_packet_alloc());
  EXPECT_EQ(av_new_packet(packet.get(), size), 0);
  packet->stream_index = stream;
  packet->dts = packet->pts = dts_ms * 1000;
  if (key) packet->flags |= AV_PKT_FLAG_KEY;
  return packet;
}

TEST(LivePacketQueueTest, CountsQueuedBytesAndPacketsAndTheirHighWater) {
  LivePacketQueue queue(MediaTime::Millis(700), MediaTime::Seconds(2));
  queue.SetConnected(true, false);
  queue.Push(MakeSizedPacket(kVideoStreamIndex, 0, 5000, true));
  queue.Push(MakeSizedPacket(kAudioStreamIndex, 0, 300));
  queue.Push(MakeSizedPacket(kVideoStreamIndex, 33, 1000));
  EXPECT_EQ(queue.bytes(), 6300);
  EXPECT_EQ(queue.packets(), 3);
  queue.Pop();
  EXPECT_EQ(queue.bytes(), 1300);
  EXPECT_EQ(queue.packets(), 2);
  queue.Push(MakeSizedPacket(kAudioStreamIndex, 21, 200));
  EXPECT_EQ(queue.bytes(), 1500);
  EXPECT_EQ(queue.max_bytes(), 6300);
  EXPECT_EQ(queue.max_packets(), 3);
  // A congestion drop never enters the queue, so it is not counted.
  for (int64_t ms = 66; ms <= 900; ms += 33) queue.Push(MakeSizedPacket(kVideoStreamIndex, ms, 100));
  EXPECT_GT(queue.dropped_video(), 0);
  EXPECT_EQ(queue.bytes(), 1500 + 100 * (queue.packets() - 3));
  // A reconnect discards what precedes its keyframe: the count follows.
  queue.SetConnected(false, false);
  queue.SetConnected(true, /*reconnect=*/true);
  EXPECT_EQ(queue.packets(), 0);
  EXPECT_EQ(queue.bytes(), 0);
  EXPECT_EQ(queue.max_bytes(), 6300);
}

TEST(LivePacketQueueTest, AbortWakesAWaitingPop) {
  LivePacketQueue queue(MediaTime::Millis(700), MediaTime::Seconds(1));
  queue.Abort();
  EXPECT_EQ(queue.Pop(), nullptr);
}

}  // namespace
}  // namespace lingcast
