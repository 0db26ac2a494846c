// Frame-level agreement between two mouth-cue tracks, for tuning the audio-only
// tracker against the phoneme-driven one and for the benchmark.
#pragma once

#include "core/media_time.h"
#include "media/viseme.h"

namespace lingcast {

// Coarse classes, from the shapes' poses: closed (opening <= 0.2, not rounded:
// A B G X), rounded (E F), open (C D H).
enum class MouthClass { kClosed, kOpen, kRounded };
MouthClass ClassOf(Viseme v);

struct TrackAgreement {
  int frames = 0;           // frames compared
  double exact = 0;         // share of frames with the same shape
  double same_class = 0;    // share of frames with the same MouthClass
};

// Samples both tracks at the centre of every frame of `fps` in [from, to).
TrackAgreement CompareTracks(const VisemeTrack& reference, const VisemeTrack& other, MediaTime from, MediaTime to,
                             double fps);

}  // namespace lingcast
