// Coarticulation rules of PhonemesToVisemes on ARPAbet input, in-between
// shapes, and snapping to video frames (frame_snap.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lipsync/frame_snap.h"
#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {
namespace {

PhonemeTrack Arpabet(std::vector<std::pair<std::string, int>> phones, int start_ms = 0) {
  PhonemeTrack track;
  int64_t t = start_ms;
  for (auto& [phone, ms] : phones) {
    track.phonemes.push_back({phone, MediaTime::Millis(t), MediaTime::Millis(ms)});
    t += ms;
  }
  return track;
}

VisemeOptions ArpabetOptions() {
  VisemeOptions opts;
  opts.alphabet = PhoneAlphabet::kArpabet;
  return opts;
}

std::string Letters(const VisemeTrack& track) {
  std::string out;
  for (const VisemeCue& c : track.cues) out.push_back(VisemeLetter(c.shape));
  return out;
}

TEST(CoarticulationTest, ArpabetWords) {
  // hello: HH AH0 L OW1 (the h shows the schwa it leads into).
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"HH", 50}, {"AH0", 60}, {"L", 70}, {"OW1", 180}}), ArpabetOptions())),
            "BHEF");
  // map: M AE1 P -- both closures are kept around the vowel.
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"M", 70}, {"AE1", 150}, {"P", 80}}), ArpabetOptions())), "ACA");
  // food: F UW1 D; f keeps its own shape, d is rounded by nothing after it.
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"F", 90}, {"UW1", 160}, {"D", 70}}), ArpabetOptions())), "GFB");
}

TEST(CoarticulationTest, RoundingAnticipatesTheVowelAcrossAConsonantCluster) {
  // stew: S T UW1 -- the lips are already rounded during s and t.
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"S", 80}, {"T", 60}, {"UW1", 160}}), ArpabetOptions())), "F");
  // steep: S T IY1 P -- no rounding to anticipate.
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"S", 80}, {"T", 60}, {"IY1", 160}, {"P", 70}}), ArpabetOptions())),
            "BA");
}

TEST(CoarticulationTest, BigJumpsGetAnInBetweenShape) {
  // father -> mop: a long wide-open AA straight into a closure passes through C.
  const VisemeTrack v = PhonemesToVisemes(Arpabet({{"AA1", 300}, {"M", 80}, {"AA1", 300}}), ArpabetOptions());
  EXPECT_EQ(Letters(v), "DCACD");
  const VisemeOptions opts = ArpabetOptions();
  EXPECT_EQ(v.cues[1].end - v.cues[1].start, opts.min_hold);
  EXPECT_EQ(v.cues[2].end - v.cues[2].start, MediaTime::Millis(80));  // the closure is not shortened
  // Too short to give up time: no in-between.
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"AA1", 120}, {"M", 80}, {"AA1", 120}}), ArpabetOptions())), "DAD");
  VisemeOptions no_tweens = ArpabetOptions();
  no_tweens.tween = false;
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"AA1", 300}, {"M", 80}, {"AA1", 300}}), no_tweens)), "DAD");
  // Wide open to a pucker goes through the rounded-open E.
  EXPECT_EQ(Letters(PhonemesToVisemes(Arpabet({{"AA1", 300}, {"UW1", 300}}), ArpabetOptions())), "DEF");
}

TEST(FrameSnapTest, EdgesOnFramesAndNoOneFrameShapes) {
  VisemeTrack track;
  // 40 ms of B is under two frames at 30 fps: it must go. 20 ms of A is a
  // closure: it keeps one frame.
  track.cues = {{MediaTime::Millis(0), MediaTime::Millis(200), Viseme::kD},
                {MediaTime::Millis(200), MediaTime::Millis(240), Viseme::kB},
                {MediaTime::Millis(240), MediaTime::Millis(400), Viseme::kC},
                {MediaTime::Millis(400), MediaTime::Millis(420), Viseme::kA},
                {MediaTime::Millis(420), MediaTime::Millis(600), Viseme::kD}};
  const VisemeTrack snapped = SnapToFrames(track, 30, 2);
  EXPECT_EQ(Letters(snapped), "DCAD");
  for (const VisemeCue& c : snapped.cues) {
    const double start_frames = c.start.seconds() * 30, end_frames = c.end.seconds() * 30;
    EXPECT_NEAR(start_frames, std::round(start_frames), 1e-4);
    EXPECT_NEAR(end_frames, std::round(end_frames), 1e-4);
    EXPECT_GE(std::lround(end_frames - start_frames), c.shape == Viseme::kA ? 1 : 2);
  }
}

// Pseudo-random phone strings: at 30 and 24 fps, every edge on a frame, no
// shape but a closure under two frames, and every bilabial still closes.
TEST(FrameSnapTest, InvariantsOnRandomArpabetInput) {
  const std::vector<std::string> inventory = {"M", "B", "P", "AA1", "IY1", "OW1", "S", "T", "L", "F",
                                              "W", "HH", "SIL", "AH0", "AY1", "UW1", "R", "ER0"};
  for (double fps : {30.0, 24.0}) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      uint64_t state = seed;
      auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int>(state >> 33);
      };
      PhonemeTrack track;
      int64_t t = 0;
      for (int i = 0; i < 200; ++i) {
        const int ms = 20 + next() % 160;
        track.phonemes.push_back({inventory[static_cast<size_t>(next()) % inventory.size()], MediaTime::Millis(t),
                                  MediaTime::Millis(ms)});
        t += ms;
      }
      VisemeOptions opts = ArpabetOptions();
      opts.frame_rate = fps;
      const VisemeTrack v = PhonemesToVisemes(track, opts);
      ASSERT_FALSE(v.cues.empty());
      for (size_t i = 0; i < v.cues.size(); ++i) {
        const VisemeCue& c = v.cues[i];
        const double frames = (c.end - c.start).seconds() * fps;
        EXPECT_NEAR(c.start.seconds() * fps, std::round(c.start.seconds() * fps), 1e-4);
        EXPECT_GE(std::lround(frames), c.shape == Viseme::kA ? 1 : 2) << "fps " << fps << " seed " << seed << " cue " << i;
        if (i > 0) {
          EXPECT_NE(c.shape, v.cues[i - 1].shape);
        }
      }
      for (const PhonemeEvent& e : track.phonemes) {
        if (e.phoneme != "M" && e.phoneme != "B" && e.phoneme != "P") continue;
        bool closed = false;
        for (const VisemeCue& c : v.cues) {
          closed |= c.shape == Viseme::kA && c.start < e.start + e.duration + MediaTime::Millis(70) &&
                    c.end > e.start - MediaTime::Millis(70);
        }
        EXPECT_TRUE(closed) << "fps " << fps << " seed " << seed << " bilabial at " << e.start.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace lingcast
