// What a player must see across a live video switch (OutputSet::SwitchVideo),
// checked on what ReadBackAll decoded. For tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "output/read_back.h"

namespace lingcast::testing_util {

// Every picture decodes; before `switch_ms` they are `before`, from it on
// `after`, and the first from it on is a keyframe; times increase.
inline void ExpectPictures(const ReadStream& video, int64_t switch_ms, std::pair<int, int> before,
                    std::pair<int, int> after, size_t expected_before, size_t expected_after, const std::string& what) {
  EXPECT_EQ(video.decode_errors, 0) << what;
  EXPECT_EQ(video.corrupt_packets, 0) << what;
  size_t seen_before = 0, seen_after = 0;
  for (size_t i = 0; i < video.pictures.size(); ++i) {
    const DecodedPicture& p = video.pictures[i];
    if (i > 0) {
      EXPECT_GT(p.pts_ms, video.pictures[i - 1].pts_ms) << what << " picture " << i;
    }
    const bool later = p.pts_ms >= switch_ms;
    EXPECT_EQ(std::pair(p.width, p.height), later ? after : before) << what << " picture at " << p.pts_ms << " ms";
    if (later && seen_after++ == 0) {
      EXPECT_TRUE(p.key) << what << ": the first picture after the switch";
    }
    if (!later) ++seen_before;
  }
  EXPECT_EQ(seen_before, expected_before) << what;
  EXPECT_EQ(seen_after, expected_after) << what;
}

// AAC frames follow one another without a gap or an overlap.
inline void ExpectContinuousAudio(const ReadStream& audio, const std::string& what) {
  ASSERT_GT(audio.packets.size(), 2u) << what;
  for (size_t i = 1; i < audio.packets.size(); ++i) {
    const ReadPacket& previous = audio.packets[i - 1];
    ASSERT_GT(previous.duration, 0) << what;
    ASSERT_EQ(audio.packets[i].pts, previous.pts + previous.duration) << what << " audio packet " << i;
  }
}

// The same where the container does not give packet durations (FLV): AAC
// frames of 1024 samples at 48 kHz, 21.3 ms apart in whole milliseconds.
inline void ExpectContinuousAudioMs(const ReadStream& audio, const std::string& what) {
  ASSERT_GT(audio.packets.size(), 2u) << what;
  for (size_t i = 1; i < audio.packets.size(); ++i) {
    const int64_t step = audio.packets[i].dts_ms - audio.packets[i - 1].dts_ms;
    ASSERT_TRUE(step == 21 || step == 22) << what << " audio packet " << i << " comes " << step << " ms after";
  }
}

}  // namespace lingcast::testing_util
