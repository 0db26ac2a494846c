#include "lipsync/phonemes_to_visemes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "lipsync/frame_snap.h"
#include "lipsync/phoneme_shapes.h"

namespace lingcast {
namespace {

struct Segment {
  int64_t start = 0;  // microseconds
  int64_t end = 0;
  Viseme shape = Viseme::kX;
  bool closure = false;      // from m, b, p: must stay A
  bool transparent = false;  // h-like: shape still to be decided
  bool vowel = false;
  bool anticipated = false;  // took a following vowel's rounding
  int64_t length() const { return end - start; }
};

bool IsRest(const Segment& s) { return s.shape == Viseme::kX && !s.transparent; }

// Step 1: one segment per shape part; gaps and pauses become X segments.
std::vector<Segment> SegmentsOf(const PhonemeTrack& track, PhoneAlphabet alphabet) {
  std::vector<PhonemeEvent> events = track.phonemes;
  std::stable_sort(events.begin(), events.end(),
                   [](const PhonemeEvent& a, const PhonemeEvent& b) { return a.start < b.start; });
  std::vector<Segment> segments;
  bool have_cursor = false;
  int64_t cursor = 0;
  for (const PhonemeEvent& event : events) {
    int64_t start = event.start.micros();
    const int64_t end = start + std::max<int64_t>(0, event.duration.micros());
    if (have_cursor) {
      start = std::max(start, cursor);  // overlapping input: the earlier phoneme wins
      if (start > cursor) segments.push_back({cursor, start, Viseme::kX});
    }
    if (end <= start) continue;
    have_cursor = true;
    cursor = end;

    const PhonemeShape shape = ShapeOf(event.phoneme, alphabet);
    switch (shape.kind) {
      case PhonemeKind::kPause:
      case PhonemeKind::kMarker:
        segments.push_back({start, end, Viseme::kX});
        break;
      case PhonemeKind::kTransparent:
        segments.push_back({start, end, Viseme::kB, false, true});
        break;
      case PhonemeKind::kVowel:
      case PhonemeKind::kConsonant: {
        const int64_t length = end - start;
        int cumulative = 0;
        int64_t part_start = start;
        for (const ShapePart& part : shape.parts) {
          cumulative += part.share_permille;
          const int64_t part_end = start + length * cumulative / 1000;
          if (part_end > part_start) {
            segments.push_back({part_start, part_end, part.shape, shape.bilabial, false,
                                shape.kind == PhonemeKind::kVowel});
          }
          part_start = part_end;
        }
        break;
      }
    }
  }
  return segments;
}

// Step 1b: h-like sounds show the vowel they lead into (the lips are already
// shaped for it), else the shape before them, else B.
void ResolveTransparent(std::vector<Segment>& segments) {
  for (size_t i = segments.size(); i-- > 0;) {
    if (!segments[i].transparent) continue;
    if (i + 1 < segments.size() && !IsRest(segments[i + 1])) {
      segments[i].shape = segments[i + 1].shape;  // already resolved: we walk backwards
    } else if (i > 0 && !IsRest(segments[i - 1]) && !segments[i - 1].transparent) {
      segments[i].shape = segments[i - 1].shape;
    } else {
      segments[i].shape = Viseme::kB;
    }
  }
  for (Segment& s : segments) s.transparent = false;
}

// Step 1c: lips round ahead of a rounded vowel. Tongue-only consonants (B:
// t, s, k, n, tɕ ...) directly before E or F take that shape ("soon", "two",
// Mandarin "ju", "shu"); consonants with a visible shape of their own keep it.
void AnticipateRounding(std::vector<Segment>& segments) {
  for (size_t i = segments.size(); i-- > 1;) {
    const Segment& next = segments[i];
    const bool rounded = next.shape == Viseme::kE || next.shape == Viseme::kF;
    if (!rounded || !(next.vowel || next.anticipated)) continue;
    Segment& prev = segments[i - 1];
    if (prev.vowel || prev.closure || prev.shape != Viseme::kB || prev.end != next.start) continue;
    prev.shape = next.shape;
    prev.anticipated = true;  // lets the rounding spread through a cluster ("stew")
  }
}

void MergeEqualNeighbours(std::vector<Segment>& segments) {
  std::vector<Segment> merged;
  for (const Segment& s : segments) {
    if (!merged.empty() && merged.back().shape == s.shape && merged.back().end == s.start) {
      merged.back().end = s.end;
      merged.back().closure = merged.back().closure || s.closure;
    } else {
      merged.push_back(s);
    }
  }
  segments = std::move(merged);
}

// Step 2: a short silence holds the shape before it; a long one is X. Silence
// before the first and after the last articulated segment is dropped: a track's
// gaps already mean X.
void ResolvePauses(std::vector<Segment>& segments, int64_t rest_gap) {
  MergeEqualNeighbours(segments);  // joins gap + "_" + gap into one silence
  std::vector<Segment> out;
  for (const Segment& s : segments) {
    if (!IsRest(s)) {
      out.push_back(s);
    } else if (!out.empty() && s.length() < rest_gap) {
      out.back().end = s.end;
    } else if (!out.empty()) {
      out.push_back(s);
    }
  }
  while (!out.empty() && IsRest(out.back())) out.pop_back();
  segments = std::move(out);
}

struct Floors {
  int64_t min_hold;
  int64_t min_closure;
  int64_t Of(const Segment& s) const { return s.closure ? min_closure : min_hold; }
};

enum class BorrowMode {
  kAllOrNothing,  // only if the neighbours can spare all of it above their floors
  kWhatTheyCanSpare,
  kForce,         // neighbours may go below their floors (but not to nothing)
};

// Lengthens segments[i] by `deficit`, taking time from its neighbours (split
// evenly where both can give). The first and last segments may instead grow
// outward into the surrounding silence, which costs nobody anything. Returns the
// part it could not get.
int64_t Borrow(std::vector<Segment>& segments, size_t i, int64_t deficit, const Floors& floors,
               BorrowMode mode) {
  const bool has_left = i > 0;
  const bool has_right = i + 1 < segments.size();
  if (!has_right) {
    segments[i].end += deficit;
    return 0;
  }
  auto spare = [&](const Segment& n) {
    const int64_t floor = mode == BorrowMode::kForce ? 1 : floors.Of(n);
    return std::max<int64_t>(0, n.length() - floor);
  };
  const int64_t outward = has_left ? 0 : segments[i].start;  // down to time zero
  const int64_t left_spare = has_left ? spare(segments[i - 1]) : outward;
  const int64_t right_spare = spare(segments[i + 1]);
  if (mode == BorrowMode::kAllOrNothing && left_spare + right_spare < deficit) return deficit;

  int64_t from_left = std::min(left_spare, deficit / 2);
  const int64_t from_right = std::min(right_spare, deficit - from_left);
  from_left = std::min(left_spare, deficit - from_right);
  segments[i].start -= from_left;
  if (has_left) segments[i - 1].end -= from_left;
  segments[i].end += from_right;
  segments[i + 1].start += from_right;
  return deficit - from_left - from_right;
}

// Step 4: every closure lasts at least min_closure.
void LengthenClosures(std::vector<Segment>& segments, const Floors& floors) {
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!segments[i].closure || segments[i].length() >= floors.min_closure) continue;
    const int64_t deficit = floors.min_closure - segments[i].length();
    const int64_t missing = Borrow(segments, i, deficit, floors, BorrowMode::kWhatTheyCanSpare);
    if (missing > 0) Borrow(segments, i, missing, floors, BorrowMode::kForce);
  }
}

// Step 5: no cue other than a closure is shorter than min_hold.
void EnforceMinHold(std::vector<Segment>& segments, const Floors& floors) {
  while (true) {
    size_t shortest = segments.size();
    for (size_t i = 0; i < segments.size(); ++i) {
      const Segment& s = segments[i];
      if (s.closure || s.length() >= floors.min_hold) continue;
      if (shortest == segments.size() || s.length() < segments[shortest].length()) shortest = i;
    }
    if (shortest == segments.size()) return;
    const size_t i = shortest;
    const int64_t deficit = floors.min_hold - segments[i].length();

    // A shape held for under half the minimum is too brief to read: merge it.
    // A longer one is worth keeping if the neighbours can give all it lacks.
    if (segments[i].length() * 2 >= floors.min_hold &&
        Borrow(segments, i, deficit, floors, BorrowMode::kAllOrNothing) == 0) {
      continue;
    }
    // Merge into the neighbour with the closest mouth pose; a closure only if
    // there is no other choice (the lips would stay shut over the sound).
    auto cost = [&](size_t n) {
      return PoseDistance(segments[n].shape, segments[i].shape) + (segments[n].closure ? 10.0f : 0.0f);
    };
    if (segments.size() == 1) {
      segments[i].end += deficit;
      continue;
    }
    const size_t target =
        (i + 1 == segments.size() || (i > 0 && cost(i - 1) <= cost(i + 1))) ? i - 1 : i + 1;
    if (target < i) {
      segments[target].end = segments[i].end;
    } else {
      segments[target].start = segments[i].start;
    }
    segments.erase(segments.begin() + static_cast<std::ptrdiff_t>(i));
    MergeEqualNeighbours(segments);
  }
}

// The shape that looks most like halfway between `a` and `b` (other than
// those two, the closure and the rest shape).
Viseme InBetween(Viseme a, Viseme b) {
  const MouthPose pa = PoseOf(a), pb = PoseOf(b);
  const MouthPose mid{(pa.open + pb.open) / 2, (pa.spread + pb.spread) / 2, (pa.round + pb.round) / 2};
  Viseme best = Viseme::kC;
  float best_distance = 1e9f;
  for (Viseme v : {Viseme::kB, Viseme::kC, Viseme::kD, Viseme::kE, Viseme::kF}) {
    if (v == a || v == b) continue;
    const MouthPose p = PoseOf(v);
    const float d = std::abs(p.open - mid.open) + std::abs(p.spread - mid.spread) + std::abs(p.round - mid.round);
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  return best;
}

// Step 6: the jaw cannot snap from wide open to shut (or to a pucker) between
// two frames; show the in-between shape for `min_hold`, taken from the more
// open side when that side keeps at least twice `min_hold`.
void InsertInBetweens(std::vector<Segment>& segments, const Floors& floors) {
  constexpr float kBigJump = 0.6f;  // difference in opening: D next to A, B, G, X or F
  std::vector<Segment> out;
  for (size_t i = 0; i < segments.size(); ++i) {
    out.push_back(segments[i]);
    if (i + 1 == segments.size()) break;
    Segment& left = out.back();
    Segment right = segments[i + 1];
    if (left.end != right.start) continue;
    const float jump = std::abs(PoseOf(left.shape).open - PoseOf(right.shape).open);
    if (jump < kBigJump) continue;
    const bool left_opener = PoseOf(left.shape).open > PoseOf(right.shape).open;
    Segment& donor = left_opener ? left : segments[i + 1];
    if (donor.closure || donor.length() < 3 * floors.min_hold) continue;
    Segment tween;
    tween.shape = InBetween(left.shape, right.shape);
    if (left_opener) {
      tween.start = left.end - floors.min_hold;
      tween.end = left.end;
      left.end = tween.start;
    } else {
      tween.start = donor.start;
      tween.end = donor.start + floors.min_hold;
      donor.start = tween.end;
    }
    out.push_back(tween);
  }
  segments = std::move(out);
  MergeEqualNeighbours(segments);
}

}  // namespace

VisemeTrack PhonemesToVisemes(const PhonemeTrack& track, const VisemeOptions& opts) {
  std::vector<Segment> segments = SegmentsOf(track, opts.alphabet);
  ResolveTransparent(segments);
  AnticipateRounding(segments);
  ResolvePauses(segments, opts.rest_gap.micros());
  MergeEqualNeighbours(segments);
  const Floors floors{std::max<int64_t>(1, opts.min_hold.micros()),
                      std::max<int64_t>(1, opts.min_closure.micros())};
  LengthenClosures(segments, floors);
  EnforceMinHold(segments, floors);
  if (opts.tween) InsertInBetweens(segments, floors);

  VisemeTrack result;
  result.cues.reserve(segments.size());
  for (const Segment& s : segments) {
    result.cues.push_back({MediaTime::Micros(s.start), MediaTime::Micros(s.end), s.shape});
  }
  if (opts.frame_rate > 0) {
    result = SnapToFrames(result, opts.frame_rate, MinFramesFor(opts.min_hold, opts.frame_rate));
  }
  return result;
}

}  // namespace lingcast
