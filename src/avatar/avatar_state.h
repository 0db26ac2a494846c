// What the avatar looks like at one instant: the output of the Animator, the
// input of the renderer. Plain numbers so states can be blended, logged and sent.
#pragma once

#include <optional>
#include <string>

#include "avatar/geometry.h"
#include "media/expression.h"
#include "media/viseme.h"

namespace lingcast {

// A mouth shape as continuous parameters: the media/viseme.h pose (open, spread,
// round) plus what the renderer shows inside the mouth.
struct MouthParams {
  float open = 0;      // 0 closed .. 1 wide open
  float spread = 0;    // corners pulled apart
  float round = 0;     // lips pushed forward and rounded
  float teeth = 0;     // upper teeth visible (B, C, G)
  float tongue = 0;    // tongue raised to the teeth (H)
  float lip_bite = 0;  // lower lip tucked under the upper teeth (G: f, v)
  float press = 0;     // lips pressed together (A: m, b, p)
};
MouthParams MouthParamsOf(Viseme v);
MouthParams Mix(const MouthParams& a, const MouthParams& b, float t);

// How much of each expression shows, each 0 .. 1; neutral is what is left
// (1 - the sum, at least 0). Transitions blend these.
struct ExpressionWeights {
  float smile = 0;
  float surprised = 0;
  float thinking = 0;
  float neutral() const;
  static ExpressionWeights Of(Expression e);
};
ExpressionWeights Mix(const ExpressionWeights& a, const ExpressionWeights& b, float t);

struct AvatarState {
  MouthParams mouth = MouthParamsOf(Viseme::kX);
  float eye_open = 1;    // 1 open .. 0 closed (blink)
  Vec2 gaze;             // pupil direction, each component in [-1, 1]
  float brow_raise = 0;  // -1 frown .. 1 raised
  float head_roll = 0;   // radians, about the base of the neck
  float head_pitch = 0;  // radians, positive: chin down (a nod)
  float head_yaw = 0;    // radians, positive: turned to the viewer's right
  Vec2 head_offset;      // head translation, in avatar widths
  float breath = 0;      // -1 .. 1: chest and shoulders rise with the breath
  ExpressionWeights expression;
};

}  // namespace lingcast
