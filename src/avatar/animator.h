// Animator: the avatar's state at any time t, as a pure function of
// (t, seed, viseme track). Any frame can be rendered in any order, on any
// thread, and comes out the same.
//
// - Mouth: the viseme track's shapes with a short cross-fade (`crossfade`) that
//   ends at each cue's start (the lips move ahead of the sound, as real lips do)
//   and never eats more than half of either cue, so short closures still close.
// - Blinks: one per slot of (min_gap + max_gap) / 2, at a random offset drawn
//   from a hash of (seed, slot), so any two blinks are between min_gap and
//   max_gap apart.
// - Idle life: breathing, a slow small head sway and occasional glances.
// - Expressions: `expressions` changes (from `@emotion` directives), each
//   blended in over `expression_transition` from wherever the face was.
// - Nods: a small nod (head pitch) at each phrase boundary: where the viseme
//   track rests (X) for at least `nod_min_rest` after speech, at the track's
//   end, and at any explicit `phrase_boundaries`.
#pragma once

#include <cstdint>
#include <vector>

#include "avatar/avatar_state.h"
#include "core/media_time.h"
#include "media/viseme.h"

namespace lingcast {

struct ExpressionChange {
  MediaTime at;
  Expression expression = Expression::kNeutral;
};

struct AnimatorOptions {
  uint64_t seed = 1;
  MediaTime crossfade = MediaTime::Millis(50);
  MediaTime blink_min_gap = MediaTime::Seconds(2);
  MediaTime blink_max_gap = MediaTime::Seconds(6);
  MediaTime blink_duration = MediaTime::Millis(150);
  MediaTime breath_period = MediaTime::Millis(4200);

  std::vector<ExpressionChange> expressions;  // by time; before the first: neutral
  MediaTime expression_transition = MediaTime::Millis(400);

  std::vector<MediaTime> phrase_boundaries;  // extra nods (e.g. sentence ends from the plan)
  MediaTime nod_min_rest = MediaTime::Millis(250);
  MediaTime nod_duration = MediaTime::Millis(600);
  float nod_pitch = 0.07f;  // radians at the bottom of a nod
};

// Immutable after construction: safe to query from several threads at once.
class Animator {
 public:
  explicit Animator(VisemeTrack track = {}, AnimatorOptions options = {});

  AvatarState StateAt(MediaTime t) const;

  // Mouth parameters alone (the cross-faded viseme track).
  MouthParams MouthAt(MediaTime t) const;
  // 1 open .. 0 closed.
  float EyeOpenAt(MediaTime t) const;
  // Start times of the blinks that start in [from, to), in order.
  std::vector<MediaTime> BlinksBetween(MediaTime from, MediaTime to) const;

  ExpressionWeights ExpressionAt(MediaTime t) const;
  // Head pitch from nods (radians, positive: chin down).
  float NodAt(MediaTime t) const;
  // Start times of the nods, in order.
  const std::vector<MediaTime>& nods() const { return nods_; }

  const AnimatorOptions& options() const { return options_; }

 private:
  MediaTime BlinkStartInSlot(int64_t slot) const;
  double Random(uint64_t stream, int64_t index) const;  // uniform [0, 1)

  std::vector<VisemeCue> cues_;  // contiguous: gaps filled with X
  AnimatorOptions options_;
  std::vector<ExpressionChange> expressions_;   // sorted by time
  std::vector<ExpressionWeights> blend_from_;   // the face when each change starts
  std::vector<MediaTime> nods_;                 // sorted, at least a nod apart
};

}  // namespace lingcast
