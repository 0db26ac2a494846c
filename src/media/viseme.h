// Mouth shapes: the Preston Blair / Rhubarb Lip Sync set.
//   A: closed (M, B, P)        B: slightly open, teeth (K, S, T, EE)
//   C: open (EH, AE)           D: wide open (AA)
//   E: rounded (AO, ER)        F: puckered (UW, OW, W)
//   G: teeth on lip (F, V)     H: tongue up (L)
//   X: rest / silence
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/media_time.h"

namespace lingcast {

enum class Viseme : uint8_t { kA, kB, kC, kD, kE, kF, kG, kH, kX };
inline constexpr int kVisemeCount = 9;

char VisemeLetter(Viseme v);                      // 'A'..'H', 'X'
std::optional<Viseme> VisemeFromLetter(char c);   // inverse; nullopt for others

// Continuous mouth parameters of a shape, for tweening between shapes.
struct MouthPose {
  float open = 0;    // jaw/lip opening, 0 closed .. 1 wide
  float spread = 0;  // lip corners pulled apart (smile-like, "EE"), 0 .. 1
  float round = 0;   // lips pushed forward and rounded ("OO"), 0 .. 1
};
MouthPose PoseOf(Viseme v);

struct VisemeCue {
  MediaTime start;
  MediaTime end;
  Viseme shape = Viseme::kX;
};

// A sequence of non-overlapping cues sorted by start; gaps are rest (X).
struct VisemeTrack {
  std::vector<VisemeCue> cues;
  // The shape at time t (X in gaps or outside the track).
  Viseme At(MediaTime t) const;
};

}  // namespace lingcast
