// Rig: an avatar described as data (docs/avatar-format.md). Layers of vector
// shapes or PNG images, each with a pivot, a transform, a parent (whose
// transform it follows), a z-order, and bindings that move, turn, scale, fade,
// show/hide or morph it as the avatar's parameters (mouth, blink, brows, head,
// breath, expression) change. RigRenderer (rig_renderer.h) draws one.
//
// Parsing checks everything once, so rendering never fails: every error names the
// file, the JSON path and what is wrong, e.g.
//   presenter.json: layers[3].bindings[0].param: unknown parameter "mouht" (...)
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "avatar/avatar_state.h"
#include "avatar/canvas.h"
#include "avatar/geometry.h"
#include "avatar/path.h"
#include "media/video_frame.h"

namespace lingcast::rig {

// The parameters a binding can follow. Names (as in JSON) in ParamName().
enum class Param : uint8_t {
  kMouthOpen, kMouthSpread, kMouthRound, kMouthTeeth, kMouthTongue, kMouthLipBite, kMouthPress,
  // Weight of each mouth shape (A..H, X), 0..1, summing to 1: a cross-fade
  // between two shapes has two non-zero weights. Path morphs keyed on these give
  // each shape its own drawing and tween between them.
  kMouthA, kMouthB, kMouthC, kMouthD, kMouthE, kMouthF, kMouthG, kMouthH, kMouthX,
  // The dominant shape (largest weight), for one-layer-per-shape rigs: only in
  // "visible" bindings with "shapes".
  kMouthShape,
  kEyeOpen, kBlink, kGazeX, kGazeY, kBrow,
  kHeadYaw, kHeadPitch, kHeadRoll, kHeadX, kHeadY, kBreath,
  kEmotionNeutral, kEmotionSmile, kEmotionSurprised, kEmotionThinking,
};
inline constexpr int kParamCount = static_cast<int>(Param::kEmotionThinking) + 1;
const char* ParamName(Param p);
std::optional<Param> ParamFromName(const std::string& name);

using ParamValues = std::array<float, kParamCount>;
// The parameter values of a state. Mouth shape weights come from the mouth
// parameters: the point on the nearest segment between two shapes' parameters
// (an Animator cross-fade lies exactly on one), so any MouthParams is drawn.
ParamValues ParamValuesOf(const AvatarState& state);

struct Binding {
  enum class Kind { kTranslate, kRotate, kScale, kOpacity, kVisible, kMorph };
  Kind kind = Kind::kTranslate;
  Param param = Param::kMouthOpen;
  // The parameter's range [in0, in1] maps linearly to the output range, clamped.
  float in0 = 0, in1 = 1;
  Vec2 from{}, to{};            // translate (offset), scale (factors)
  float from_value = 0, to_value = 0;  // rotate (degrees), opacity (factor), morph (weight)
  // visible: the parameter within [min, max]; for mouth.shape: one of `shapes`.
  float min = 0, max = 0;
  uint16_t shapes = 0;          // bit v: Viseme v
  Path target;                  // morph: this shape at full weight (same verbs as the layer's)

  // The output fraction 0..1 for a parameter value.
  float Fraction(float value) const;
};

struct Layer {
  enum class Kind { kGroup, kShape, kImage };
  std::string id;
  Kind kind = Kind::kGroup;
  int parent = -1;              // index into Rig::layers; -1: the rig itself
  float z = 0;
  Vec2 pivot{}, translate{};
  float rotate_degrees = 0;
  Vec2 scale{1, 1};
  float opacity = 1;
  bool visible = true;
  Path path;                    // shape: its outline; image: the image's rectangle
  std::optional<Paint> fill;    // shape fill, or the image paint
  std::optional<Paint> stroke;
  float stroke_width = 0;
  int clip = -1;                // drawn only inside this (shape) layer's outline
  std::vector<Binding> bindings;
};

struct Rig {
  enum class Anchor { kBottom, kCenter };
  std::string name;             // the file name, for messages
  float width = 1000, height = 1300;  // the drawing space, in rig units
  Anchor anchor = Anchor::kBottom;
  std::vector<Layer> layers;
  std::vector<int> transform_order;  // parents before children
  std::vector<int> draw_order;       // by z, then file order
  // Named regions (rig units) tools and tests crop: "mouth", "eyes".
  struct Region {
    std::string name;
    Vec2 top_left, bottom_right;
  };
  std::vector<Region> regions;
};

// Parses a rig. `name` is used in error messages; image paths are relative to
// `base_dir` (empty: image layers are an error, as for the built-in rig).
// `images_within`, when set, is the folder every image must lie in once links
// are followed (the server's --media-dir: a rig from a session may not read
// the server's other files); empty: anywhere.
absl::StatusOr<std::shared_ptr<const Rig>> ParseRig(const std::string& json_text, const std::string& name,
                                                    const std::string& base_dir, const std::string& images_within = "");
// Reads and parses a rig file; images are relative to its folder.
absl::StatusOr<std::shared_ptr<const Rig>> LoadRig(const std::string& path, const std::string& images_within = "");
// The built-in presenter (src/avatar/rigs/presenter.json, compiled in).
std::shared_ptr<const Rig> BuiltInPresenter();
// Its JSON text, as compiled in.
const char* BuiltInPresenterJson();

}  // namespace lingcast::rig
