// Rig parsing: every kind of error names the file, the JSON path and what is
// wrong, and yields no rig at all (nothing half-parsed is ever used).
#include "avatar/rig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "avatar/png_image.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"

namespace lingcast::rig {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;
using testing_util::StatusIs;

// A valid rig with `layers` (a JSON array body) in it.
std::string RigWith(const std::string& layers) {
  return R"({"lingcast_rig": 1, "canvas": {"width": 100, "height": 100}, "layers": [)" + layers + "]}";
}

const char kRect[] = R"("shape": {"rect": {"x": 0, "y": 0, "width": 10, "height": 10}}, "fill": "#FF0000")";

std::string ErrorOf(const std::string& json, const std::string& base_dir = "/nonexistent") {
  auto rig = ParseRig(json, "test.json", base_dir);
  EXPECT_FALSE(rig.ok()) << "parsed, but should not have: " << json;
  if (rig.ok()) return "";
  EXPECT_EQ(rig.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(rig.status().message());
}

TEST(RigTest, TheBuiltInPresenterParses) {
  auto rig = ParseRig(BuiltInPresenterJson(), "presenter.json", "");
  ASSERT_OK(rig);
  EXPECT_GT((*rig)->layers.size(), 50u);
  EXPECT_EQ((*rig)->width, 1000);
  EXPECT_EQ((*rig)->height, 1300);
  EXPECT_EQ(BuiltInPresenter()->layers.size(), (*rig)->layers.size());
}

TEST(RigTest, AMinimalRigParses) {
  auto rig = ParseRig(RigWith(std::string(R"({"id": "box", )") + kRect + "}"), "test.json", "");
  ASSERT_OK(rig);
  ASSERT_EQ((*rig)->layers.size(), 1u);
  EXPECT_EQ((*rig)->layers[0].kind, Layer::Kind::kShape);
  EXPECT_EQ((*rig)->anchor, Rig::Anchor::kBottom);
}

TEST(RigTest, NamesEveryParameterBothWays) {
  for (int i = 0; i < kParamCount; ++i) {
    const Param p = static_cast<Param>(i);
    ASSERT_EQ(ParamFromName(ParamName(p)), p) << ParamName(p);
  }
  EXPECT_FALSE(ParamFromName("mouht").has_value());
}

TEST(RigTest, UnknownParameterNamesTheBindingPath) {
  const std::string e = ErrorOf(RigWith(std::string(R"({"id": "a", )") + kRect + "}, {\"id\": \"b\", " + kRect +
                                        R"(, "bindings": [{"param": "mouht", "translate": [[0, 0], [1, 1]]}]})"));
  EXPECT_THAT(e, HasSubstr("test.json: layers[1].bindings[0].param: unknown parameter \"mouht\""));
}

TEST(RigTest, ANearTypoGetsASuggestion) {
  const std::string e = ErrorOf(
      RigWith(std::string(R"({"id": "a", )") + kRect + R"(, "bindings": [{"param": "blnk", "opacity": [1, 0]}]})"));
  EXPECT_THAT(e, HasSubstr("did you mean \"blink\"?"));
}

TEST(RigTest, SyntaxErrorsSayItIsNotJson) {
  EXPECT_THAT(ErrorOf("{\"lingcast_rig\": 1,"), HasSubstr("test.json: not valid JSON"));
}

TEST(RigTest, ANumberBeyondADoubleSaysItIsNotJson) {
  // nlohmann throws out_of_range, not parse_error, for it (found by fuzz_rig).
  EXPECT_THAT(ErrorOf(R"({"lingcast_rig": 1, "canvas": {"width": 7E343, "height": 1}, "layers": []})"),
              HasSubstr("test.json: not valid JSON"));
}

TEST(RigTest, VersionAndCanvasAreChecked) {
  EXPECT_THAT(ErrorOf(R"({"canvas": {"width": 1, "height": 1}, "layers": []})"), HasSubstr("missing \"lingcast_rig\""));
  EXPECT_THAT(ErrorOf(R"({"lingcast_rig": 2, "canvas": {"width": 1, "height": 1}, "layers": []})"),
              HasSubstr("lingcast_rig: unsupported format version"));
  EXPECT_THAT(ErrorOf(R"({"lingcast_rig": 1, "canvas": {"width": 0, "height": 1}, "layers": []})"),
              HasSubstr("canvas.width: 0 is out of range"));
  EXPECT_THAT(ErrorOf(R"({"lingcast_rig": 1, "canvas": {"width": 1, "height": 1, "anchor": "top"}, "layers": []})"),
              HasSubstr("canvas.anchor: unknown anchor \"top\""));
  EXPECT_THAT(ErrorOf(R"({"lingcast_rig": 1, "canvas": {"width": 1, "height": 1}, "layers": []})"),
              HasSubstr("layers: expected a non-empty array"));
}

TEST(RigTest, UnknownFieldsAreTyposNotIgnored) {
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"rect": {"x": 0, "y": 0, "width": 1, "height": 1}}, "fil": "#FFFFFF"})")),
              HasSubstr("layers[0].fil: unknown field \"fil\"; did you mean \"fill\"?"));
}

TEST(RigTest, LayerIdsAreRequiredAndUnique) {
  EXPECT_THAT(ErrorOf(RigWith(std::string("{") + kRect + "}")), HasSubstr("layers[0]: missing \"id\""));
  EXPECT_THAT(ErrorOf(RigWith(std::string(R"({"id": "a", )") + kRect + R"(}, {"id": "a", )" + kRect + "}")),
              HasSubstr("layers[1].id: duplicate id \"a\" (first used by layers[0])"));
}

TEST(RigTest, ReferencesMustExistAndNotLoop) {
  EXPECT_THAT(ErrorOf(RigWith(std::string(R"({"id": "a", "parent": "haed", )") + kRect + "}")),
              HasSubstr("layers[0].parent: no layer has the id \"haed\""));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "parent": "b"}, {"id": "b", "parent": "a"})")),
              HasSubstr("parents form a cycle"));
  EXPECT_THAT(ErrorOf(RigWith(std::string(R"({"id": "g"}, {"id": "a", "clip": "g", )") + kRect + "}")),
              HasSubstr("layers[1].clip: \"g\" is a group"));
  EXPECT_THAT(ErrorOf(RigWith(std::string(R"({"id": "a", "clip": "a", )") + kRect + "}")),
              HasSubstr("layers[0].clip: a layer cannot refer to itself"));
}

TEST(RigTest, PaintsAreChecked) {
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"ellipse": {"center": [1, 1], "radius": 1}}, "fill": "red"})")),
              HasSubstr("layers[0].fill: colour \"red\" is not #RRGGBB or #RRGGBBAA"));
  EXPECT_THAT(
      ErrorOf(RigWith(R"({"id": "a", "shape": {"ellipse": {"center": [1, 1], "radius": 1}},
                          "fill": {"linear": {"from": [0, 0], "to": [0, 1], "stops": [[0.5, "#000000"], [0.2, "#FFFFFF"]]}}})")),
      HasSubstr("layers[0].fill.linear.stops[1][0]: offset 0.2 is before the previous stop's 0.5"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"ellipse": {"center": [1, 1], "radius": 1}},
                                  "fill": {"color": "#000000", "opacity": 1.5}})")),
              HasSubstr("layers[0].fill.opacity: 1.5 is out of range (0 .. 1)"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"ellipse": {"center": [1, 1], "radius": 1}}})")),
              HasSubstr("layers[0]: a shape layer needs a \"fill\", a \"stroke\" or both"));
}

TEST(RigTest, PathDataErrorsSayWhere) {
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"path": "M 0 0 L 5 5 A 1 1"}, "fill": "#000000"})")),
              HasSubstr("layers[0].shape.path: at character 13: unknown path command 'A'"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"path": "M 0 0 C 1 1 2"}, "fill": "#000000"})")),
              HasSubstr("layers[0].shape.path: at character 14: expected a number after 'C'"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"path": "L 1 1"}, "fill": "#000000"})")),
              HasSubstr("a path starts with M"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"path": "M 0 0 L 1 1 Z 4 4"}, "fill": "#000000"})")),
              HasSubstr("at character 15: a number after Z; start a new contour with M"));
}

TEST(RigTest, MorphTargetsMustMatchTheShape) {
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "shape": {"path": "M 0 0 L 5 0 L 5 5 Z"}, "fill": "#000000",
                                 "bindings": [{"param": "mouth.open", "morph": {"path": "M 0 0 Q 5 0 5 5 Z"}}]})")),
              HasSubstr("layers[0].bindings[0].morph: the target's path commands are MQZ, the layer's shape's MLLZ"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "g", "bindings": [{"param": "mouth.open", "morph": {"path": "M 0 0 Z"}}]})")),
              HasSubstr("layers[0].bindings[0].morph: only shape layers can morph"));
}

TEST(RigTest, BindingsAreChecked) {
  const std::string base = std::string(R"({"id": "a", )") + kRect + R"(, "bindings": [)";
  EXPECT_THAT(ErrorOf(RigWith(base + R"({"param": "blink"}]})")),
              HasSubstr("layers[0].bindings[0]: a binding needs exactly one of"));
  EXPECT_THAT(ErrorOf(RigWith(base + R"({"param": "blink", "in": [1, 1], "opacity": [0, 1]}]})")),
              HasSubstr("layers[0].bindings[0].in: the two ends of the input range are equal"));
  EXPECT_THAT(ErrorOf(RigWith(base + R"({"param": "mouth.shape", "shapes": "AZ"}]})")),
              HasSubstr("layers[0].bindings[0].shapes: 'Z' is not a mouth shape"));
  EXPECT_THAT(ErrorOf(RigWith(base + R"({"param": "blink", "shapes": "A"}]})")),
              HasSubstr("\"shapes\" needs \"param\": \"mouth.shape\""));
  EXPECT_THAT(ErrorOf(RigWith(base + R"({"param": "blink", "visible": [1, 0]}]})")),
              HasSubstr("layers[0].bindings[0].visible: expected [min, max] with min <= max"));
  EXPECT_THAT(ErrorOf(RigWith(base + R"({"param": "blink", "translate": [1, 2, 3]}]})")),
              HasSubstr("layers[0].bindings[0].translate: expected [[x, y] at the range's start"));
}

TEST(RigTest, ImageErrorsNameTheFile) {
  ScratchDir dir;
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "image": {"src": "missing.png"}})"), dir.path()),
              HasSubstr("test.json: layers[0].image.src: cannot read PNG"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "image": {"src": "a.png"}})"), ""),
              HasSubstr("layers[0].image.src: image layers are not allowed in a built-in rig"));
  VideoFrame image;
  image.Allocate(4, 4);
  ASSERT_OK(EncodePngFile(image, dir.File("a.png")));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "image": {"src": "a.png", "width": 0}})"), dir.path()),
              HasSubstr("layers[0].image: width and height must be greater than 0"));
  EXPECT_THAT(ErrorOf(RigWith(R"({"id": "a", "image": {"src": "a.png"}, "shape": {"ellipse": {"center": [0, 0], "radius": 1}}})"),
                      dir.path()),
              HasSubstr("layers[0]: a layer has a \"shape\" or an \"image\", not both"));
}

TEST(RigTest, ImagesOutsideTheConfiningFolderAreRefusedBeforeTheyAreRead) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("media/rig"));
  std::filesystem::create_directories(dir.File("private"));
  VideoFrame image;
  image.Allocate(4, 4);
  ASSERT_OK(EncodePngFile(image, dir.File("media/rig/a.png")));
  ASSERT_OK(EncodePngFile(image, dir.File("private/secret.png")));
  std::filesystem::create_symlink(dir.File("private/secret.png"), dir.File("media/rig/link.png"));
  const std::string base = dir.File("media/rig"), media = dir.File("media");
  auto inside = ParseRig(RigWith(R"({"id": "a", "image": {"src": "a.png"}})"), "test.json", base, media);
  EXPECT_OK(inside.status());
  const std::vector<std::string> outside_media = {"../../private/secret.png", dir.File("private/secret.png"), "link.png"};
  for (const std::string& src : outside_media) {
    auto outside = ParseRig(RigWith(R"({"id": "a", "image": {"src": ")" + src + R"("}})"), "test.json", base, media);
    EXPECT_THAT(outside.status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lies outside")))
        << src;
  }
  // Without a confining folder (the CLI), an image beside the rig's folder is read.
  EXPECT_OK(ParseRig(RigWith(R"({"id": "a", "image": {"src": "../../private/secret.png"}})"), "test.json", base)
                .status());
}

TEST(RigTest, TheDocumentedExampleParses) {
  std::ifstream in(LINGCAST_SOURCE_DIR "/docs/avatar-format.md");
  ASSERT_TRUE(in) << "docs/avatar-format.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  // Its images are the PNGtuber example's.
  auto rig = ParseRig(doc.substr(begin + 8, end - begin - 8), "avatar-format.md",
                      LINGCAST_SOURCE_DIR "/examples/avatars/pngtuber");
  ASSERT_OK(rig);
  EXPECT_EQ((*rig)->layers.size(), 6u);
}

TEST(PngImageTest, BadFilesAreClearErrorsAndNothingIsHalfWritten) {
  ScratchDir dir;
  {
    std::ofstream(dir.File("not.png")) << "hello";
  }
  auto decoded = DecodePngFile(dir.File("not.png"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(std::string(decoded.status().message()), HasSubstr("cannot read PNG \"" + dir.File("not.png") + "\""));
  VideoFrame image;
  image.Allocate(3, 2);
  image.rgba[3] = 255;
  EXPECT_FALSE(EncodePngFile(image, dir.File("missing/out.png")).ok());
  EXPECT_FALSE(EncodePngFile(VideoFrame{}, dir.File("empty.png")).ok());
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"not.png"});  // no temp or partial files
  // And a good round trip keeps premultiplied pixels.
  image.rgba[4] = 64, image.rgba[7] = 128;  // pixel 1: red 0.5 at alpha 0.5
  ASSERT_OK(EncodePngFile(image, dir.File("ok.png")));
  auto back = DecodePngFile(dir.File("ok.png"));
  ASSERT_OK(back);
  EXPECT_EQ(back->rgba[4], 64);
  EXPECT_EQ(back->rgba[7], 128);
  EXPECT_EQ(back->rgba[3], 255);
}

TEST(RigTest, LoadRigReportsAMissingFile) {
  auto rig = LoadRig("/nonexistent/rig.json");
  ASSERT_FALSE(rig.ok());
  EXPECT_THAT(std::string(rig.status().message()), HasSubstr("cannot open rig file \"/nonexistent/rig.json\""));
}

TEST(RigTest, MouthWeightsAreOneHotAtEachShapeAndSplitInACrossfade) {
  for (int v = 0; v < kVisemeCount; ++v) {
    AvatarState state;
    state.mouth = MouthParamsOf(static_cast<Viseme>(v));
    const ParamValues p = ParamValuesOf(state);
    for (int k = 0; k < kVisemeCount; ++k) {
      EXPECT_NEAR(p[static_cast<int>(Param::kMouthA) + k], k == v ? 1.0f : 0.0f, 1e-5f) << v << " " << k;
    }
    EXPECT_EQ(p[static_cast<int>(Param::kMouthShape)], static_cast<float>(v));
  }
  AvatarState state;
  state.mouth = Mix(MouthParamsOf(Viseme::kB), MouthParamsOf(Viseme::kD), 0.25f);
  const ParamValues p = ParamValuesOf(state);
  EXPECT_NEAR(p[static_cast<int>(Param::kMouthB)], 0.75f, 1e-4f);
  EXPECT_NEAR(p[static_cast<int>(Param::kMouthD)], 0.25f, 1e-4f);
  EXPECT_EQ(p[static_cast<int>(Param::kMouthShape)], static_cast<float>(Viseme::kB));
}

}  // namespace
}  // namespace lingcast::rig
