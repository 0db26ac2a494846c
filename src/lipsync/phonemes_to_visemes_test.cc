#include "lipsync/phonemes_to_visemes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lipsync/phoneme_shapes.h"

namespace lingcast {
namespace {

// Phonemes back to back from `start_ms`, each with its duration in ms.
PhonemeTrack Track(std::vector<std::pair<std::string, int>> phonemes, int start_ms = 0,
                   Language lang = Language::kEn) {
  PhonemeTrack track;
  track.language = lang;
  int64_t t = start_ms;
  for (auto& [ipa, ms] : phonemes) {
    track.phonemes.push_back({ipa, MediaTime::Millis(t), MediaTime::Millis(ms)});
    t += ms;
  }
  return track;
}

std::string Letters(const VisemeTrack& track) {
  std::string out;
  for (const VisemeCue& c : track.cues) out.push_back(VisemeLetter(c.shape));
  return out;
}

TEST(PhonemesToVisemesTest, EmptyTrackGivesNoCues) {
  EXPECT_TRUE(PhonemesToVisemes(PhonemeTrack{}).cues.empty());
  EXPECT_TRUE(PhonemesToVisemes(Track({{"_", 300}, {"", 0}})).cues.empty());
}

TEST(PhonemesToVisemesTest, Hello) {
  // espeak-ng's timing for "hello": h ə l oʊ.
  const VisemeTrack v = PhonemesToVisemes(Track({{"h", 51}, {"ə", 50}, {"l", 69}, {"ˈoʊ", 110}}, 11));
  EXPECT_EQ(Letters(v), "BHEF");
  EXPECT_EQ(v.cues.front().start, MediaTime::Millis(11));  // h already shows the schwa
}

TEST(PhonemesToVisemesTest, Welcome) {
  const VisemeTrack v = PhonemesToVisemes(
      Track({{"w", 102}, {"ˈɛ", 181}, {"l", 70}, {"k", 76}, {"ʌ", 76}, {"m", 87}}));
  EXPECT_EQ(Letters(v), "FCHBCA");
}

TEST(PhonemesToVisemesTest, MandarinDaJiaHao) {
  // 大家好 as espeak-ng's cmn-latn-pinyin voice times it (tones dropped as "").
  const PhonemeTrack track = Track(
      {{"t", 21}, {"ˈɑ5", 138}, {"", 39}, {"tɕ", 79}, {"iɑ5", 134}, {"", 12}, {"χ", 105}, {"ɑu2", 215}},
      38, Language::kZh);
  VisemeOptions no_tweens;
  no_tweens.tween = false;
  // da (the 21 ms d is too brief to show), j-ia (the i glide joins the j),
  // h-ao (h shows the a it leads into, then the lips round for the o).
  EXPECT_EQ(Letters(PhonemesToVisemes(track, no_tweens)), "DBDF");
  // With in-between shapes: the jaw passes C between wide-open D and narrow B,
  // and E between D and the pucker F.
  EXPECT_EQ(Letters(PhonemesToVisemes(track)), "DCBCDEF");
}

TEST(PhonemesToVisemesTest, LongPauseRestsShortPauseHolds) {
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"ɑ", 150}, {"_", 200}, {"ɑ", 150}}))), "DXD");
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"ɑ", 150}, {"_", 80}, {"ɑ", 150}}))), "D");
  // A gap between events counts as silence too.
  PhonemeTrack gap = Track({{"ɑ", 150}});
  gap.phonemes.push_back({"uː", MediaTime::Millis(450), MediaTime::Millis(150)});
  const VisemeTrack v = PhonemesToVisemes(gap);
  EXPECT_EQ(Letters(v), "DXF");
  EXPECT_EQ(v.cues[1].start, MediaTime::Millis(150));
  EXPECT_EQ(v.cues[1].end, MediaTime::Millis(450));
}

TEST(PhonemesToVisemesTest, ShortBilabialStillClosesTheLips) {
  const VisemeOptions opts;
  const VisemeTrack v = PhonemesToVisemes(Track({{"ɑ", 100}, {"p", 20}, {"ɑ", 100}}), opts);
  ASSERT_EQ(Letters(v), "DAD");
  EXPECT_GE(v.cues[1].end - v.cues[1].start, opts.min_closure);
  // The closure stays around the original p.
  EXPECT_LE(v.cues[1].start, MediaTime::Millis(100));
  EXPECT_GE(v.cues[1].end, MediaTime::Millis(120));
}

TEST(PhonemesToVisemesTest, OneFrameShapesAreAbsorbed) {
  // A 15 ms t between two long vowels must not flash B for one frame.
  const VisemeTrack v = PhonemesToVisemes(Track({{"ɑ", 200}, {"t", 15}, {"ɑ", 200}}));
  EXPECT_EQ(Letters(v), "D");
  // A short vowel between spare-rich neighbours borrows time instead of vanishing.
  const VisemeOptions opts;
  const VisemeTrack w = PhonemesToVisemes(Track({{"s", 200}, {"ɑ", 40}, {"s", 200}}), opts);
  ASSERT_EQ(Letters(w), "BDB");
  EXPECT_EQ(w.cues[1].end - w.cues[1].start, opts.min_hold);
}

TEST(PhonemesToVisemesTest, OptionsChangeTheResult) {
  const PhonemeTrack track = Track({{"ɑ", 150}, {"_", 100}, {"ɑ", 150}});
  VisemeOptions opts;
  opts.rest_gap = MediaTime::Millis(90);
  EXPECT_EQ(Letters(PhonemesToVisemes(track, opts)), "DXD");
  opts.rest_gap = MediaTime::Millis(120);
  EXPECT_EQ(Letters(PhonemesToVisemes(track, opts)), "D");
}

// A long pseudo-random utterance: the invariants must hold whatever the input.
PhonemeTrack RandomTrack(uint64_t seed, int count) {
  const std::vector<std::string> inventory = {"m", "b", "p", "ɑ", "iː", "oʊ", "s", "t", "l",
                                              "f", "w", "h", "_", "ə", "aɪ", "tɕh", "y", "ɹ"};
  PhonemeTrack track;
  uint64_t state = seed;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>(state >> 33);
  };
  int64_t t = 0;
  for (int i = 0; i < count; ++i) {
    const std::string& ipa = inventory[next() % inventory.size()];
    const int ms = 20 + next() % 180;
    t += (next() % 10 == 0) ? next() % 200 : 0;  // occasional gap between events
    track.phonemes.push_back({ipa, MediaTime::Millis(t), MediaTime::Millis(ms)});
    t += ms;
  }
  return track;
}

TEST(PhonemesToVisemesTest, InvariantsHoldOnLongRandomInput) {
  const VisemeOptions opts;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const PhonemeTrack track = RandomTrack(seed, 300);
    const VisemeTrack v = PhonemesToVisemes(track, opts);
    ASSERT_FALSE(v.cues.empty());
    for (size_t i = 0; i < v.cues.size(); ++i) {
      const VisemeCue& c = v.cues[i];
      const MediaTime length = c.end - c.start;
      if (c.shape == Viseme::kA) {
        EXPECT_GE(length, opts.min_closure) << "seed " << seed << " cue " << i;
      } else {
        EXPECT_GE(length, opts.min_hold) << "seed " << seed << " cue " << i;
      }
      if (i > 0) {
        EXPECT_EQ(c.start, v.cues[i - 1].end) << "seed " << seed << " cue " << i;
        EXPECT_NE(c.shape, v.cues[i - 1].shape) << "seed " << seed << " cue " << i;
      }
    }
    // Every bilabial's lips close during (or right at) its own time.
    for (const PhonemeEvent& e : track.phonemes) {
      if (!ShapeOfPhoneme(e.phoneme).bilabial) continue;
      const MediaTime mid = e.start + e.duration / 2;
      bool closed = false;
      for (const VisemeCue& c : v.cues) {
        if (c.shape == Viseme::kA && c.start <= mid + opts.min_closure && c.end >= mid - opts.min_closure) {
          closed = true;
        }
      }
      EXPECT_TRUE(closed) << "seed " << seed << " bilabial at " << e.start.ToString();
    }
    // Same input, same cues.
    const VisemeTrack again = PhonemesToVisemes(track, opts);
    ASSERT_EQ(again.cues.size(), v.cues.size());
    for (size_t i = 0; i < v.cues.size(); ++i) {
      EXPECT_EQ(again.cues[i].start, v.cues[i].start);
      EXPECT_EQ(again.cues[i].shape, v.cues[i].shape);
    }
  }
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(PhonemesToVisemesTest, UnsortedOrOverlappingInputIsTolerated) {
  PhonemeTrack sorted = Track({{"m", 80}, {"ɑ", 150}, {"p", 70}, {"iː", 120}});
  PhonemeTrack shuffled = sorted;
  std::swap(shuffled.phonemes[0], shuffled.phonemes[2]);
  const VisemeTrack a = PhonemesToVisemes(sorted), b = PhonemesToVisemes(shuffled);
  ASSERT_EQ(Letters(a), "ADAB");
  ASSERT_EQ(Letters(b), Letters(a));
  // An event that starts inside the previous one is cut to start where it ends.
  PhonemeTrack overlapping = sorted;
  overlapping.phonemes[2].start -= MediaTime::Millis(30);
  const VisemeTrack c = PhonemesToVisemes(overlapping);
  EXPECT_EQ(Letters(c), "ADAB");
  for (size_t i = 1; i < c.cues.size(); ++i) EXPECT_EQ(c.cues[i].start, c.cues[i - 1].end);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(PhonemesToVisemesTest, LipsRoundAheadOfRoundedVowels) {
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"s", 90}, {"uː", 150}, {"n", 80}}))), "FB");   // soon
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"s", 70}, {"t", 60}, {"uː", 150}}))), "F");    // stew
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"s", 90}, {"iː", 150}}))), "B");               // see
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"f", 90}, {"uː", 150}}))), "GF");              // food keeps f
  EXPECT_EQ(Letters(PhonemesToVisemes(Track({{"ʂ", 90}, {"u", 150}}, 0, Language::kZh))), "F");  // shu
}

}  // namespace
}  // namespace lingcast
