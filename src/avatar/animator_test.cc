#include "avatar/animator.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(AnimatorTest, BlinksAreReproducibleFromTheSeed) {
  AnimatorOptions a;
  a.seed = 42;
  const Animator first({}, a), second({}, a);
  EXPECT_EQ(first.BlinksBetween(MediaTime::Zero(), MediaTime::Seconds(120)),
            second.BlinksBetween(MediaTime::Zero(), MediaTime::Seconds(120)));
  AnimatorOptions b = a;
  b.seed = 43;
  EXPECT_NE(first.BlinksBetween(MediaTime::Zero(), MediaTime::Seconds(120)),
            Animator({}, b).BlinksBetween(MediaTime::Zero(), MediaTime::Seconds(120)));
}

TEST(AnimatorTest, BlinkIntervalsStayInRange) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    AnimatorOptions o;
    o.seed = seed;
    const Animator animator({}, o);
    const auto blinks = animator.BlinksBetween(MediaTime::Zero(), MediaTime::Seconds(600));
    ASSERT_GT(blinks.size(), 90u);
    MediaTime shortest = MediaTime::Max(), longest;
    for (size_t i = 1; i < blinks.size(); ++i) {
      const MediaTime gap = blinks[i] - blinks[i - 1];
      EXPECT_GE(gap, o.blink_min_gap);
      EXPECT_LE(gap, o.blink_max_gap);
      shortest = std::min(shortest, gap);
      longest = std::max(longest, gap);
    }
    // Natural, not metronomic: the gaps really vary.
    EXPECT_GT(longest - shortest, MediaTime::Seconds(1.5));
  }
}

TEST(AnimatorTest, EyesCloseDuringABlinkOnly) {
  const Animator animator;
  const auto blinks = animator.BlinksBetween(MediaTime::Seconds(10), MediaTime::Seconds(30));
  ASSERT_FALSE(blinks.empty());
  const MediaTime b = blinks.front();
  const MediaTime d = animator.options().blink_duration;
  EXPECT_FLOAT_EQ(animator.EyeOpenAt(b - MediaTime::Millis(10)), 1.0f);
  EXPECT_LT(animator.EyeOpenAt(b + d * 2 / 5), 0.05f);
  EXPECT_FLOAT_EQ(animator.EyeOpenAt(b + d + MediaTime::Millis(1)), 1.0f);
  // Any frame, in any order, gives the same state.
  EXPECT_EQ(animator.StateAt(b + d / 2).eye_open, animator.StateAt(b + d / 2).eye_open);
}

TEST(AnimatorTest, MouthFollowsTheTrackWithCrossfade) {
  VisemeTrack track;
  track.cues = {{MediaTime::Millis(1000), MediaTime::Millis(1200), Viseme::kD},
                {MediaTime::Millis(1200), MediaTime::Millis(1260), Viseme::kA},
                {MediaTime::Millis(1260), MediaTime::Millis(1500), Viseme::kE}};
  const Animator animator(track);
  EXPECT_FLOAT_EQ(animator.MouthAt(MediaTime::Millis(500)).open, MouthParamsOf(Viseme::kX).open);
  EXPECT_FLOAT_EQ(animator.MouthAt(MediaTime::Millis(1100)).open, MouthParamsOf(Viseme::kD).open);
  // The short closure is fully reached at its start and held for at least half of it.
  EXPECT_FLOAT_EQ(animator.MouthAt(MediaTime::Millis(1200)).open, 0.0f);
  EXPECT_FLOAT_EQ(animator.MouthAt(MediaTime::Millis(1229)).open, 0.0f);
  // Halfway through a fade the mouth is between the two shapes.
  const float mid = animator.MouthAt(MediaTime::Millis(1175)).open;
  EXPECT_GT(mid, 0.0f);
  EXPECT_LT(mid, MouthParamsOf(Viseme::kD).open);
  EXPECT_FLOAT_EQ(animator.MouthAt(MediaTime::Millis(1400)).round, MouthParamsOf(Viseme::kE).round);
  EXPECT_FLOAT_EQ(animator.MouthAt(MediaTime::Millis(2000)).open, MouthParamsOf(Viseme::kX).open);
}

TEST(AnimatorTest, IdleMotionIsSmallAndDeterministic) {
  const Animator animator;
  for (int i = 0; i < 300; ++i) {
    const MediaTime t = MediaTime::FromFrameIndex(i * 7, 30);
    const AvatarState s = animator.StateAt(t);
    EXPECT_LE(std::abs(s.head_roll), 0.03f);
    EXPECT_LE(std::abs(s.breath), 1.0f);
    EXPECT_LE(std::abs(s.gaze.x), 1.0f);
    EXPECT_EQ(s.head_roll, animator.StateAt(t).head_roll);
  }
}

}  // namespace
}  // namespace lingcast

#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {
namespace {

TEST(AnimatorTest, PhonemesDriveTheMouthEndToEnd) {
  // "mama": the lips close on each m and open wide on each a.
  PhonemeTrack phonemes;
  const char* ipa[] = {"m", "ˈɑː", "m", "ə"};
  const int ms[] = {90, 180, 80, 140};
  int64_t t = 200;
  for (int i = 0; i < 4; ++i) {
    phonemes.phonemes.push_back({ipa[i], MediaTime::Millis(t), MediaTime::Millis(ms[i])});
    t += ms[i];
  }
  const Animator animator(PhonemesToVisemes(phonemes));
  EXPECT_EQ(animator.MouthAt(MediaTime::Millis(100)).open, MouthParamsOf(Viseme::kX).open);  // before speech
  EXPECT_EQ(animator.MouthAt(MediaTime::Millis(240)).open, 0.0f);                            // first m
  EXPECT_GT(animator.MouthAt(MediaTime::Millis(360)).open, 0.8f);                            // ɑː
  EXPECT_EQ(animator.MouthAt(MediaTime::Millis(490)).open, 0.0f);                            // second m
  EXPECT_EQ(animator.MouthAt(MediaTime::Millis(1000)).open, MouthParamsOf(Viseme::kX).open); // after
}

TEST(AnimatorTest, ExpressionsBlendInSmoothlyFromWhereTheFaceWas) {
  AnimatorOptions options;
  options.expression_transition = MediaTime::Millis(400);
  options.expressions = {{MediaTime::Seconds(1), Expression::kSmile}, {MediaTime::Millis(1200), Expression::kSurprised}};
  const Animator animator({}, options);
  EXPECT_EQ(animator.ExpressionAt(MediaTime::Millis(999)).smile, 0);
  EXPECT_FLOAT_EQ(animator.ExpressionAt(MediaTime::Millis(999)).neutral(), 1);
  // Smile rises monotonically, without a jump, until surprise takes over.
  float last = 0;
  for (int ms = 1000; ms < 1200; ms += 10) {
    const float smile = animator.ExpressionAt(MediaTime::Millis(ms)).smile;
    EXPECT_GE(smile, last);
    EXPECT_LT(smile - last, 0.1f) << ms;
    last = smile;
  }
  // Surprise starts from the half-made smile, not from neutral.
  const ExpressionWeights at_switch = animator.ExpressionAt(MediaTime::Millis(1200));
  EXPECT_NEAR(at_switch.smile, last, 0.05f);
  EXPECT_EQ(at_switch.surprised, 0);
  const ExpressionWeights after = animator.ExpressionAt(MediaTime::Millis(1700));
  EXPECT_FLOAT_EQ(after.surprised, 1);
  EXPECT_FLOAT_EQ(after.smile, 0);
  EXPECT_FLOAT_EQ(animator.StateAt(MediaTime::Millis(1700)).expression.surprised, 1);
}

TEST(AnimatorTest, NodsAtPhraseBoundariesOnly) {
  // Speech, a short gap (100 ms: mid-phrase), speech, a long rest (500 ms), speech.
  VisemeTrack track;
  track.cues = {{MediaTime::Millis(0), MediaTime::Millis(300), Viseme::kC},
                {MediaTime::Millis(400), MediaTime::Millis(700), Viseme::kD},
                {MediaTime::Millis(1200), MediaTime::Millis(1500), Viseme::kB}};
  AnimatorOptions options;
  options.phrase_boundaries = {MediaTime::Seconds(5)};
  const Animator animator(track, options);
  const std::vector<MediaTime> expected = {MediaTime::Millis(700), MediaTime::Millis(1500), MediaTime::Seconds(5)};
  EXPECT_EQ(animator.nods(), expected);
  EXPECT_EQ(animator.NodAt(MediaTime::Millis(300)), 0);  // no nod in the short gap
  EXPECT_GT(animator.NodAt(MediaTime::Millis(1000)), 0.05f);  // mid-nod
  EXPECT_EQ(animator.NodAt(MediaTime::Millis(1350)), 0);
  EXPECT_GT(animator.StateAt(MediaTime::Millis(1000)).head_pitch, 0.05f);
  // Reproducible: the same inputs give the same state.
  const Animator again(track, options);
  EXPECT_EQ(again.StateAt(MediaTime::Millis(1000)).head_pitch, animator.StateAt(MediaTime::Millis(1000)).head_pitch);
}

TEST(AnimatorTest, ExpressionNamesRoundTrip) {
  for (int e = 0; e < kExpressionCount; ++e) {
    EXPECT_EQ(ExpressionFromName(ExpressionName(static_cast<Expression>(e))), static_cast<Expression>(e));
  }
  EXPECT_FALSE(ExpressionFromName("angry").has_value());
}

}  // namespace
}  // namespace lingcast
