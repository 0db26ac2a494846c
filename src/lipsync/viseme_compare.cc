#include "lipsync/viseme_compare.h"

#include <cmath>
#include <cstdint>

namespace lingcast {

MouthClass ClassOf(Viseme v) {
  const MouthPose pose = PoseOf(v);
  if (pose.round >= 0.5f) return MouthClass::kRounded;
  return pose.open <= 0.2f ? MouthClass::kClosed : MouthClass::kOpen;
}

TrackAgreement CompareTracks(const VisemeTrack& reference, const VisemeTrack& other, MediaTime from, MediaTime to,
                             double fps) {
  TrackAgreement result;
  if (!(fps > 0) || to <= from) return result;
  int exact = 0, same_class = 0;
  const double period_us = 1e6 / fps;
  for (int64_t k = 0;; ++k) {
    const MediaTime t = from + MediaTime::Micros(static_cast<int64_t>(std::llround((static_cast<double>(k) + 0.5) * period_us)));
    if (t >= to) break;
    const Viseme a = reference.At(t), b = other.At(t);
    ++result.frames;
    if (a == b) ++exact;
    if (ClassOf(a) == ClassOf(b)) ++same_class;
  }
  if (result.frames > 0) {
    result.exact = static_cast<double>(exact) / result.frames;
    result.same_class = static_cast<double>(same_class) / result.frames;
  }
  return result;
}

}  // namespace lingcast
