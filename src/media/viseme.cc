#include "media/viseme.h"

#include <algorithm>

namespace lingcast {

char VisemeLetter(Viseme v) { return v == Viseme::kX ? 'X' : static_cast<char>('A' + static_cast<int>(v)); }

std::optional<Viseme> VisemeFromLetter(char c) {
  if (c == 'X') return Viseme::kX;
  if (c >= 'A' && c <= 'H') return static_cast<Viseme>(c - 'A');
  return std::nullopt;
}

MouthPose PoseOf(Viseme v) {
  switch (v) {
    case Viseme::kA: return {0.00f, 0.10f, 0.00f};
    case Viseme::kB: return {0.18f, 0.55f, 0.00f};
    case Viseme::kC: return {0.45f, 0.35f, 0.00f};
    case Viseme::kD: return {0.85f, 0.25f, 0.00f};
    case Viseme::kE: return {0.45f, 0.00f, 0.55f};
    case Viseme::kF: return {0.20f, 0.00f, 0.95f};
    case Viseme::kG: return {0.10f, 0.30f, 0.00f};
    case Viseme::kH: return {0.35f, 0.20f, 0.00f};
    case Viseme::kX: return {0.02f, 0.00f, 0.00f};
  }
  return {};
}

Viseme VisemeTrack::At(MediaTime t) const {
  auto it = std::upper_bound(cues.begin(), cues.end(), t,
                             [](MediaTime v, const VisemeCue& c) { return v < c.start; });
  if (it == cues.begin()) return Viseme::kX;
  --it;
  return t < it->end ? it->shape : Viseme::kX;
}

}  // namespace lingcast
