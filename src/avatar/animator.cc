#include "avatar/animator.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace lingcast {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

float SmoothStep(float x) {
  x = std::clamp(x, 0.0f, 1.0f);
  return x * x * (3 - 2 * x);
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b) < 0) --q;
  return q;
}

}  // namespace

float ExpressionWeights::neutral() const { return std::max(0.0f, 1 - smile - surprised - thinking); }

ExpressionWeights ExpressionWeights::Of(Expression e) {
  ExpressionWeights w;
  if (e == Expression::kSmile) w.smile = 1;
  if (e == Expression::kSurprised) w.surprised = 1;
  if (e == Expression::kThinking) w.thinking = 1;
  return w;
}

ExpressionWeights Mix(const ExpressionWeights& a, const ExpressionWeights& b, float t) {
  auto l = [t](float x, float y) { return x + (y - x) * t; };
  return {l(a.smile, b.smile), l(a.surprised, b.surprised), l(a.thinking, b.thinking)};
}

MouthParams MouthParamsOf(Viseme v) {
  const MouthPose p = PoseOf(v);
  MouthParams m{p.open, p.spread, p.round};
  switch (v) {
    case Viseme::kA: m.press = 1; break;
    case Viseme::kB: m.teeth = 1; break;
    case Viseme::kC: m.teeth = 0.7f; break;
    case Viseme::kG: m.teeth = 1; m.lip_bite = 1; break;
    case Viseme::kH: m.tongue = 1; m.teeth = 0.3f; break;
    default: break;
  }
  return m;
}

MouthParams Mix(const MouthParams& a, const MouthParams& b, float t) {
  auto l = [t](float x, float y) { return x + (y - x) * t; };
  return {l(a.open, b.open),   l(a.spread, b.spread), l(a.round, b.round),  l(a.teeth, b.teeth),
          l(a.tongue, b.tongue), l(a.lip_bite, b.lip_bite), l(a.press, b.press)};
}

Animator::Animator(VisemeTrack track, AnimatorOptions options) : options_(options) {
  for (const VisemeCue& c : track.cues) {
    if (c.end <= c.start) continue;
    if (!cues_.empty() && c.start > cues_.back().end) {
      cues_.push_back({cues_.back().end, c.start, Viseme::kX});
    }
    VisemeCue cue = c;
    if (!cues_.empty()) cue.start = std::max(cue.start, cues_.back().end);
    if (cue.end > cue.start) cues_.push_back(cue);
  }
  expressions_ = options_.expressions;
  std::stable_sort(expressions_.begin(), expressions_.end(),
                   [](const ExpressionChange& a, const ExpressionChange& b) { return a.at < b.at; });
  ExpressionWeights face;  // neutral before the first change
  for (size_t k = 0; k < expressions_.size(); ++k) {
    if (k > 0) face = ExpressionAt(expressions_[k].at - MediaTime::Micros(1));
    blend_from_.push_back(face);
  }
  // Phrase boundaries: speech followed by a long enough rest, or by the end.
  std::vector<MediaTime> boundaries = options_.phrase_boundaries;
  for (size_t i = 0; i < cues_.size(); ++i) {
    if (cues_[i].shape == Viseme::kX) continue;
    const bool last = i + 1 == cues_.size();
    if (last || (cues_[i + 1].shape == Viseme::kX && cues_[i + 1].end - cues_[i + 1].start >= options_.nod_min_rest)) {
      boundaries.push_back(cues_[i].end);
    }
  }
  std::sort(boundaries.begin(), boundaries.end());
  for (MediaTime b : boundaries) {
    if (nods_.empty() || b - nods_.back() >= options_.nod_duration) nods_.push_back(b);
  }
}

ExpressionWeights Animator::ExpressionAt(MediaTime t) const {
  auto it = std::upper_bound(expressions_.begin(), expressions_.end(), t,
                             [](MediaTime v, const ExpressionChange& c) { return v < c.at; });
  if (it == expressions_.begin()) return {};
  const size_t k = static_cast<size_t>(it - expressions_.begin()) - 1;
  const float span = static_cast<float>(std::max<int64_t>(1, options_.expression_transition.micros()));
  const float f = SmoothStep(static_cast<float>((t - expressions_[k].at).micros()) / span);
  return Mix(blend_from_[k], ExpressionWeights::Of(expressions_[k].expression), f);
}

float Animator::NodAt(MediaTime t) const {
  auto it = std::upper_bound(nods_.begin(), nods_.end(), t);
  if (it == nods_.begin()) return 0;
  const MediaTime start = *(it - 1);
  const float p = static_cast<float>((t - start).micros()) /
                  static_cast<float>(std::max<int64_t>(1, options_.nod_duration.micros()));
  if (p >= 1) return 0;
  const float s = static_cast<float>(std::sin(std::numbers::pi * p));
  return options_.nod_pitch * s * s;
}

MouthParams Animator::MouthAt(MediaTime t) const {
  const MouthParams rest = MouthParamsOf(Viseme::kX);
  if (cues_.empty()) return rest;
  // i: the cue containing t; -1 before the first, n after the last.
  const int n = static_cast<int>(cues_.size());
  auto it = std::upper_bound(cues_.begin(), cues_.end(), t,
                             [](MediaTime v, const VisemeCue& c) { return v < c.start; });
  int i = static_cast<int>(it - cues_.begin()) - 1;
  if (i == n - 1 && t >= cues_.back().end) i = n;
  if (i == n) return rest;

  auto length = [&](int k) {
    return (k < 0 || k >= n) ? MediaTime::Max() : cues_[k].end - cues_[k].start;
  };
  auto params = [&](int k) { return (k < 0 || k >= n) ? rest : MouthParamsOf(cues_[k].shape); };
  const MediaTime next_start = i + 1 < n ? cues_[i + 1].start : cues_.back().end;
  const MediaTime window =
      std::min({options_.crossfade, length(i) / 2, length(i + 1) / 2});
  const MediaTime fade_from = next_start - window;
  if (window > MediaTime::Zero() && t >= fade_from) {
    const float f = static_cast<float>((t - fade_from).micros()) / static_cast<float>(window.micros());
    return Mix(params(i), params(i + 1), SmoothStep(f));
  }
  return params(i);
}

double Animator::Random(uint64_t stream, int64_t index) const {
  const uint64_t h = SplitMix64(SplitMix64(options_.seed ^ (stream * 0xD1B54A32D192ED03ULL)) +
                                static_cast<uint64_t>(index));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

MediaTime Animator::BlinkStartInSlot(int64_t slot) const {
  const int64_t lo = options_.blink_min_gap.micros(), hi = options_.blink_max_gap.micros();
  const int64_t slot_len = (lo + hi) / 2;
  const int64_t jitter = (hi - lo) / 2;  // consecutive blinks are slot_len +- jitter apart
  const auto offset = lo / 2 + static_cast<int64_t>(Random(1, slot) * static_cast<double>(jitter));
  return MediaTime::Micros(slot * slot_len + offset);
}

std::vector<MediaTime> Animator::BlinksBetween(MediaTime from, MediaTime to) const {
  std::vector<MediaTime> out;
  const int64_t slot_len =
      std::max<int64_t>(1, (options_.blink_min_gap.micros() + options_.blink_max_gap.micros()) / 2);
  for (int64_t s = FloorDiv(from.micros(), slot_len); s <= FloorDiv(to.micros(), slot_len); ++s) {
    const MediaTime b = BlinkStartInSlot(s);
    if (b >= from && b < to) out.push_back(b);
  }
  return out;
}

float Animator::EyeOpenAt(MediaTime t) const {
  const int64_t slot_len =
      std::max<int64_t>(1, (options_.blink_min_gap.micros() + options_.blink_max_gap.micros()) / 2);
  const int64_t slot = FloorDiv(t.micros(), slot_len);
  const float duration = static_cast<float>(std::max<int64_t>(1, options_.blink_duration.micros()));
  for (int64_t s = slot - 1; s <= slot; ++s) {
    const MediaTime start = BlinkStartInSlot(s);
    if (t < start || t >= start + options_.blink_duration) continue;
    // Lids drop fast, rest shut a moment, and lift more slowly.
    const float p = static_cast<float>((t - start).micros()) / duration;
    if (p < 0.35f) return 1 - SmoothStep(p / 0.35f);
    if (p < 0.5f) return 0;
    return SmoothStep((p - 0.5f) / 0.5f);
  }
  return 1;
}

AvatarState Animator::StateAt(MediaTime t) const {
  AvatarState s;
  s.mouth = MouthAt(t);
  s.eye_open = EyeOpenAt(t);
  const double sec = t.seconds();
  const double phase = Random(2, 0) * kTwoPi;
  const double breath_period = std::max(0.5, options_.breath_period.seconds());
  s.breath = static_cast<float>(std::sin(kTwoPi * sec / breath_period + phase));
  // Two slow incommensurate sways read as natural rather than mechanical.
  s.head_roll = static_cast<float>(0.018 * std::sin(kTwoPi * sec / 7.3 + phase * 1.7) +
                                   0.010 * std::sin(kTwoPi * sec / 11.9 + phase * 0.6));
  s.head_offset = {static_cast<float>(0.004 * std::sin(kTwoPi * sec / 9.1 + phase * 2.3)),
                   static_cast<float>(-0.0025 * s.breath - 0.006 * s.mouth.open)};
  s.brow_raise = 0.35f * s.mouth.open;
  s.expression = ExpressionAt(t);
  s.head_pitch = NodAt(t);
  s.head_yaw = static_cast<float>(0.03 * std::sin(kTwoPi * sec / 13.7 + phase * 0.9));
  // A glance now and then: a new gaze target every 2.7 s slot, reached in 0.12 s.
  constexpr int64_t kGazeSlot = 2'700'000;
  const int64_t g = FloorDiv(t.micros(), kGazeSlot);
  auto target = [&](int64_t k) -> Vec2 {
    if (Random(3, k) < 0.5) return {0, 0};  // back to the camera half the time
    return {static_cast<float>(Random(4, k) * 0.7 - 0.35), static_cast<float>(Random(5, k) * 0.4 - 0.2)};
  };
  const float f = SmoothStep(static_cast<float>(t.micros() - g * kGazeSlot) / 120'000.0f);
  s.gaze = Lerp(target(g - 1), target(g), f);
  return s;
}

}  // namespace lingcast
