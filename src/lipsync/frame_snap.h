// Snapping mouth cues to the video frames that will show them.
//
// A renderer samples the cue track once per frame, so a cue that covers no
// frame centre is never seen and one that covers a single frame flickers. After
// snapping, every cue edge lies on a frame boundary (round(t * fps) / fps), a
// lip closure (A) covers at least one frame and every other cue at least
// `min_frames`; a shorter cue merges into the neighbour whose mouth pose is
// closest (a closure only when there is no other neighbour).
#pragma once

#include "core/media_time.h"
#include "media/viseme.h"

namespace lingcast {

// The time of frame boundary `index` at `fps`, in whole microseconds.
MediaTime FrameTime(int64_t index, double fps);

// Cues must be sorted and non-overlapping (gaps are X). fps > 0; min_frames >= 1.
// Gaps between cues stay gaps (X) and follow the same rules as X cues.
VisemeTrack SnapToFrames(const VisemeTrack& track, double fps, int min_frames = 2);

// Frames a non-closure cue must cover at `fps`: `min_hold` in frames, and
// never fewer than two (a shape seen for one frame is a flicker).
int MinFramesFor(MediaTime min_hold, double fps);

// How far apart two mouths look: the sum of |difference| of open, spread, round.
float PoseDistance(Viseme a, Viseme b);

}  // namespace lingcast
