#include "avatar/rig.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "avatar/png_image.h"
#include "core/status.h"
#include "nlohmann/json.hpp"

namespace lingcast::rig {
namespace {

using Json = nlohmann::json;

constexpr const char* kParamNames[kParamCount] = {
    "mouth.open", "mouth.spread", "mouth.round", "mouth.teeth", "mouth.tongue", "mouth.lip_bite", "mouth.press",
    "mouth.A", "mouth.B", "mouth.C", "mouth.D", "mouth.E", "mouth.F", "mouth.G", "mouth.H", "mouth.X",
    "mouth.shape", "eye.open", "blink", "gaze.x", "gaze.y", "brow",
    "head.yaw", "head.pitch", "head.roll", "head.x", "head.y", "breath",
    "emotion.neutral", "emotion.smile", "emotion.surprised", "emotion.thinking",
};

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// ", did you mean "x"?" when a known word is close to the typo.
std::string Suggestion(const std::string& word, const std::vector<std::string>& known) {
  size_t best = 3;
  std::string pick;
  for (const std::string& k : known) {
    const size_t d = EditDistance(word, k);
    if (d < best) {
      best = d;
      pick = k;
    }
  }
  return pick.empty() ? "" : absl::StrCat("; did you mean \"", pick, "\"?");
}

// Reads one rig file: every error is "<file>: <json path>: <what is wrong>".
class Reader {
 public:
  Reader(std::string file, std::string base_dir, std::string images_within)
      : file_(std::move(file)), base_dir_(std::move(base_dir)), images_within_(std::move(images_within)) {}

  absl::Status Error(const std::string& where, const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(file_, ": ", where.empty() ? "(top level)" : where, ": ", what));
  }

  absl::Status CheckKeys(const Json& j, const std::string& where, const std::vector<std::string>& allowed) const {
    if (!j.is_object()) return Error(where, absl::StrCat("expected an object, got ", j.type_name()));
    for (const auto& [key, value] : j.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        return Error(Join(where, key), absl::StrCat("unknown field \"", key, "\"", Suggestion(key, allowed),
                                                    " (allowed here: ", absl::StrJoin(allowed, ", "), ")"));
      }
    }
    return absl::OkStatus();
  }

  static std::string Join(const std::string& where, const std::string& key) {
    return where.empty() ? key : absl::StrCat(where, ".", key);
  }
  static std::string Index(const std::string& where, size_t i) { return absl::StrCat(where, "[", i, "]"); }

  absl::StatusOr<float> Number(const Json& j, const std::string& where) const {
    if (!j.is_number()) return Error(where, absl::StrCat("expected a number, got ", j.type_name()));
    const double v = j.get<double>();
    if (!std::isfinite(v) || std::abs(v) > 1e7) return Error(where, "the number is not finite or too large");
    return static_cast<float>(v);
  }
  absl::StatusOr<float> NumberIn(const Json& j, const std::string& where, float lo, float hi) const {
    LC_ASSIGN_OR_RETURN(float v, Number(j, where));
    if (v < lo || v > hi) return Error(where, absl::StrCat(v, " is out of range (", lo, " .. ", hi, ")"));
    return v;
  }
  absl::StatusOr<Vec2> Point(const Json& j, const std::string& where) const {
    if (!j.is_array() || j.size() != 2) return Error(where, "expected [x, y]");
    LC_ASSIGN_OR_RETURN(float x, Number(j[0], Index(where, 0)));
    LC_ASSIGN_OR_RETURN(float y, Number(j[1], Index(where, 1)));
    return Vec2{x, y};
  }
  // [x, y], or one number for both.
  absl::StatusOr<Vec2> PointOrScalar(const Json& j, const std::string& where) const {
    if (j.is_number()) {
      LC_ASSIGN_OR_RETURN(float v, Number(j, where));
      return Vec2{v, v};
    }
    return Point(j, where);
  }
  absl::StatusOr<std::string> String(const Json& j, const std::string& where) const {
    if (!j.is_string()) return Error(where, absl::StrCat("expected a string, got ", j.type_name()));
    return j.get<std::string>();
  }

  absl::StatusOr<Color> ParseColor(const Json& j, const std::string& where) const {
    LC_ASSIGN_OR_RETURN(std::string s, String(j, where));
    const bool ok_length = s.size() == 7 || s.size() == 9;
    if (!ok_length || s[0] != '#' || s.find_first_not_of("0123456789abcdefABCDEF", 1) != std::string::npos) {
      return Error(where, absl::StrCat("colour \"", s, "\" is not #RRGGBB or #RRGGBBAA"));
    }
    const uint32_t v = static_cast<uint32_t>(std::stoul(s.substr(1), nullptr, 16));
    if (s.size() == 7) return Color::Hex(v);
    return Color::Hex(v >> 8, static_cast<float>(v & 0xFF) / 255.0f);
  }

  absl::StatusOr<std::vector<GradientStop>> Stops(const Json& j, const std::string& where) const {
    if (!j.is_array() || j.size() < 2) return Error(where, "expected at least two stops: [[offset, \"#RRGGBB\"], ...]");
    std::vector<GradientStop> stops;
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string w = Index(where, i);
      if (!j[i].is_array() || j[i].size() != 2) return Error(w, "expected [offset, \"#RRGGBB\"]");
      LC_ASSIGN_OR_RETURN(float offset, NumberIn(j[i][0], Index(w, 0), 0, 1));
      LC_ASSIGN_OR_RETURN(Color color, ParseColor(j[i][1], Index(w, 1)));
      if (!stops.empty() && offset < stops.back().offset) {
        return Error(Index(w, 0), absl::StrCat("offset ", offset, " is before the previous stop's ",
                                               stops.back().offset, "; stops go in increasing order"));
      }
      stops.push_back({offset, color});
    }
    return stops;
  }

  // "#RRGGBB" | {"color"|"linear"|"radial": ..., "opacity": o}
  absl::StatusOr<Paint> ParsePaint(const Json& j, const std::string& where) const {
    if (j.is_string()) {
      LC_ASSIGN_OR_RETURN(Color c, ParseColor(j, where));
      return Paint::Solid(c);
    }
    LC_RETURN_IF_ERROR(CheckKeys(j, where, {"color", "linear", "radial", "opacity"}));
    const int kinds = static_cast<int>(j.contains("color")) + static_cast<int>(j.contains("linear")) +
                      static_cast<int>(j.contains("radial"));
    if (kinds != 1) return Error(where, "a paint needs exactly one of \"color\", \"linear\", \"radial\"");
    Paint paint;
    if (j.contains("color")) {
      LC_ASSIGN_OR_RETURN(Color c, ParseColor(j["color"], Join(where, "color")));
      paint = Paint::Solid(c);
    } else if (j.contains("linear")) {
      const std::string w = Join(where, "linear");
      const Json& g = j["linear"];
      LC_RETURN_IF_ERROR(CheckKeys(g, w, {"from", "to", "stops"}));
      for (const char* key : {"from", "to", "stops"}) {
        if (!g.contains(key)) return Error(w, absl::StrCat("missing \"", key, "\""));
      }
      LC_ASSIGN_OR_RETURN(Vec2 from, Point(g["from"], Join(w, "from")));
      LC_ASSIGN_OR_RETURN(Vec2 to, Point(g["to"], Join(w, "to")));
      if (from.x == to.x && from.y == to.y) return Error(Join(w, "to"), "\"from\" and \"to\" are the same point");
      LC_ASSIGN_OR_RETURN(auto stops, Stops(g["stops"], Join(w, "stops")));
      paint = Paint::Linear(from, to, std::move(stops));
    } else {
      const std::string w = Join(where, "radial");
      const Json& g = j["radial"];
      LC_RETURN_IF_ERROR(CheckKeys(g, w, {"center", "radius", "stops"}));
      for (const char* key : {"center", "radius", "stops"}) {
        if (!g.contains(key)) return Error(w, absl::StrCat("missing \"", key, "\""));
      }
      LC_ASSIGN_OR_RETURN(Vec2 center, Point(g["center"], Join(w, "center")));
      LC_ASSIGN_OR_RETURN(Vec2 radius, PointOrScalar(g["radius"], Join(w, "radius")));
      if (!(radius.x > 0) || !(radius.y > 0)) return Error(Join(w, "radius"), "radii must be greater than 0");
      LC_ASSIGN_OR_RETURN(auto stops, Stops(g["stops"], Join(w, "stops")));
      paint = Paint::Radial(center, radius, std::move(stops));
    }
    if (j.contains("opacity")) {
      LC_ASSIGN_OR_RETURN(paint.opacity, NumberIn(j["opacity"], Join(where, "opacity"), 0, 1));
    }
    return paint;
  }

  // SVG-like path data with absolute commands: M x y, L x y, Q cx cy x y,
  // C c1x c1y c2x c2y x y, Z. A command letter may be followed by several
  // argument groups (as in SVG).
  absl::StatusOr<Path> ParsePathData(const std::string& d, const std::string& where) const {
    Path path;
    size_t i = 0;
    char command = 0;
    bool started = false;
    auto skip = [&] {
      while (i < d.size() && (d[i] == ' ' || d[i] == ',' || d[i] == '\n' || d[i] == '\t')) ++i;
    };
    auto number = [&](float* out) -> absl::Status {
      skip();
      const size_t begin = i;
      while (i < d.size() && (std::isdigit(static_cast<unsigned char>(d[i])) || d[i] == '.' || d[i] == '-' ||
                              d[i] == '+' || d[i] == 'e')) {
        ++i;
      }
      const std::string token = d.substr(begin, i - begin);
      char* end = nullptr;
      const float v = token.empty() ? 0 : std::strtof(token.c_str(), &end);
      if (token.empty() || end != token.c_str() + token.size() || !std::isfinite(v)) {
        return Error(where, absl::StrCat("at character ", begin + 1, ": expected a number after '",
                                         std::string(1, command), "', found \"", d.substr(begin, 8), "\""));
      }
      *out = v;
      return absl::OkStatus();
    };
    auto point = [&](Vec2* p) -> absl::Status {
      LC_RETURN_IF_ERROR(number(&p->x));
      return number(&p->y);
    };
    while (true) {
      skip();
      if (i >= d.size()) break;
      const char c = d[i];
      if (std::isalpha(static_cast<unsigned char>(c))) {
        if (std::string("MLQCZ").find(c) == std::string::npos) {
          return Error(where, absl::StrCat("at character ", i + 1, ": unknown path command '", std::string(1, c),
                                           "' (use absolute M, L, Q, C, Z)"));
        }
        command = c;
        ++i;
      } else if (command == 0) {
        return Error(where, absl::StrCat("at character ", i + 1, ": path data must start with a command (M)"));
      } else if (command == 'Z') {
        return Error(where, absl::StrCat("at character ", i + 1, ": a number after Z; start a new contour with M"));
      }
      if (!started && command != 'M') {
        return Error(where, absl::StrCat("at character ", i + 1, ": a path starts with M"));
      }
      started = true;
      switch (command) {
        case 'M': {
          Vec2 p;
          LC_RETURN_IF_ERROR(point(&p));
          path.MoveTo(p);
          command = 'L';  // further pairs are lines, as in SVG
          break;
        }
        case 'L': {
          Vec2 p;
          LC_RETURN_IF_ERROR(point(&p));
          path.LineTo(p);
          break;
        }
        case 'Q': {
          Vec2 c1, p;
          LC_RETURN_IF_ERROR(point(&c1));
          LC_RETURN_IF_ERROR(point(&p));
          path.QuadTo(c1, p);
          break;
        }
        case 'C': {
          Vec2 c1, c2, p;
          LC_RETURN_IF_ERROR(point(&c1));
          LC_RETURN_IF_ERROR(point(&c2));
          LC_RETURN_IF_ERROR(point(&p));
          path.CubicTo(c1, c2, p);
          break;
        }
        case 'Z':
          path.Close();
          break;
        default:
          break;
      }
    }
    if (path.empty()) return Error(where, "the path is empty");
    return path;
  }

  // {"ellipse": {...}} | {"rect": {...}} | {"path": "M ..."}
  absl::StatusOr<Path> ParseShape(const Json& j, const std::string& where) const {
    LC_RETURN_IF_ERROR(CheckKeys(j, where, {"ellipse", "rect", "path"}));
    if (j.size() != 1) return Error(where, "a shape is exactly one of \"ellipse\", \"rect\", \"path\"");
    if (j.contains("ellipse")) {
      const std::string w = Join(where, "ellipse");
      const Json& e = j["ellipse"];
      LC_RETURN_IF_ERROR(CheckKeys(e, w, {"center", "radius"}));
      if (!e.contains("center") || !e.contains("radius")) return Error(w, "needs \"center\" and \"radius\"");
      LC_ASSIGN_OR_RETURN(Vec2 c, Point(e["center"], Join(w, "center")));
      LC_ASSIGN_OR_RETURN(Vec2 r, PointOrScalar(e["radius"], Join(w, "radius")));
      if (r.x < 0 || r.y < 0) return Error(Join(w, "radius"), "radii cannot be negative");
      return Path::Ellipse(c, r.x, r.y);
    }
    if (j.contains("rect")) {
      const std::string w = Join(where, "rect");
      const Json& r = j["rect"];
      LC_RETURN_IF_ERROR(CheckKeys(r, w, {"x", "y", "width", "height", "radius"}));
      float v[5] = {0, 0, 0, 0, 0};
      const char* keys[5] = {"x", "y", "width", "height", "radius"};
      for (int k = 0; k < 5; ++k) {
        if (!r.contains(keys[k])) {
          if (k == 4) continue;
          return Error(w, absl::StrCat("missing \"", keys[k], "\""));
        }
        LC_ASSIGN_OR_RETURN(v[k], Number(r[keys[k]], Join(w, keys[k])));
      }
      if (v[2] < 0 || v[3] < 0 || v[4] < 0) return Error(w, "width, height and radius cannot be negative");
      return Path::RoundedRect(v[0], v[1], v[2], v[3], v[4]);
    }
    LC_ASSIGN_OR_RETURN(std::string d, String(j["path"], Join(where, "path")));
    return ParsePathData(d, Join(where, "path"));
  }

  absl::StatusOr<std::shared_ptr<const VideoFrame>> Image(const std::string& src, const std::string& where) {
    if (base_dir_.empty()) return Error(where, "image layers are not allowed in a built-in rig");
    if (src.empty()) return Error(where, "the image path is empty");
    if (auto it = images_.find(src); it != images_.end()) return it->second;
    const std::filesystem::path full = std::filesystem::path(base_dir_) / src;
    LC_RETURN_IF_ERROR(CheckWithin(full, src, where));
    auto decoded = DecodePngFile(full.string());
    if (!decoded.ok()) return Error(where, std::string(decoded.status().message()));
    auto image = std::make_shared<const VideoFrame>(std::move(*decoded));
    images_[src] = image;
    return image;
  }

  // An image outside images_within_ (after `..` and links) is refused before it is opened.
  absl::Status CheckWithin(const std::filesystem::path& full, const std::string& src, const std::string& where) const {
    if (images_within_.empty()) return absl::OkStatus();
    std::error_code error;
    const std::filesystem::path root = std::filesystem::weakly_canonical(images_within_, error);
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(full, error);
    const std::filesystem::path inside = resolved.lexically_relative(root);
    if (error || inside.empty() || *inside.begin() == "..") {
      return Error(where, absl::StrCat("the image \"", src, "\" lies outside ", root.string()));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Binding> ParseBinding(const Json& j, const std::string& where, const Layer& layer) const {
    LC_RETURN_IF_ERROR(
        CheckKeys(j, where, {"param", "in", "translate", "rotate", "scale", "opacity", "visible", "shapes", "morph"}));
    if (!j.contains("param")) return Error(where, "missing \"param\" (the parameter this binding follows)");
    Binding b;
    LC_ASSIGN_OR_RETURN(std::string name, String(j["param"], Join(where, "param")));
    const std::optional<Param> param = ParamFromName(name);
    if (!param) {
      std::vector<std::string> known(std::begin(kParamNames), std::end(kParamNames));
      return Error(Join(where, "param"), absl::StrCat("unknown parameter \"", name, "\"", Suggestion(name, known),
                                                      " (see docs/avatar-format.md for the list)"));
    }
    b.param = *param;
    int kinds = 0;
    for (const char* key : {"translate", "rotate", "scale", "opacity", "visible", "shapes", "morph"}) {
      kinds += j.contains(key) ? 1 : 0;
    }
    if (kinds != 1) {
      return Error(where, "a binding needs exactly one of \"translate\", \"rotate\", \"scale\", \"opacity\", "
                          "\"visible\", \"shapes\", \"morph\"");
    }
    const bool shape_param = b.param == Param::kMouthShape;
    if (shape_param != j.contains("shapes")) {
      return Error(where, shape_param ? "\"mouth.shape\" is only used with \"shapes\", e.g. \"shapes\": \"CD\""
                                      : "\"shapes\" needs \"param\": \"mouth.shape\"");
    }
    if (j.contains("in")) {
      const std::string w = Join(where, "in");
      if (!j["in"].is_array() || j["in"].size() != 2) return Error(w, "expected [from, to]");
      LC_ASSIGN_OR_RETURN(b.in0, Number(j["in"][0], Index(w, 0)));
      LC_ASSIGN_OR_RETURN(b.in1, Number(j["in"][1], Index(w, 1)));
      if (b.in0 == b.in1) return Error(w, "the two ends of the input range are equal");
    }
    // A pair [at in0, at in1] of points or numbers.
    auto pair_of_points = [&](const char* key, Vec2* a, Vec2* c) -> absl::Status {
      const std::string w = Join(where, key);
      const Json& v = j[key];
      if (!v.is_array() || v.size() != 2) return Error(w, "expected [[x, y] at the range's start, [x, y] at its end]");
      LC_ASSIGN_OR_RETURN(*a, PointOrScalar(v[0], Index(w, 0)));
      LC_ASSIGN_OR_RETURN(*c, PointOrScalar(v[1], Index(w, 1)));
      return absl::OkStatus();
    };
    auto pair_of_numbers = [&](const char* key, float* a, float* c) -> absl::Status {
      const std::string w = Join(where, key);
      const Json& v = j[key];
      if (!v.is_array() || v.size() != 2) return Error(w, "expected [value at the range's start, value at its end]");
      LC_ASSIGN_OR_RETURN(*a, Number(v[0], Index(w, 0)));
      LC_ASSIGN_OR_RETURN(*c, Number(v[1], Index(w, 1)));
      return absl::OkStatus();
    };
    if (j.contains("translate")) {
      b.kind = Binding::Kind::kTranslate;
      LC_RETURN_IF_ERROR(pair_of_points("translate", &b.from, &b.to));
    } else if (j.contains("scale")) {
      b.kind = Binding::Kind::kScale;
      LC_RETURN_IF_ERROR(pair_of_points("scale", &b.from, &b.to));
    } else if (j.contains("rotate")) {
      b.kind = Binding::Kind::kRotate;
      LC_RETURN_IF_ERROR(pair_of_numbers("rotate", &b.from_value, &b.to_value));
    } else if (j.contains("opacity")) {
      b.kind = Binding::Kind::kOpacity;
      LC_RETURN_IF_ERROR(pair_of_numbers("opacity", &b.from_value, &b.to_value));
      for (float v : {b.from_value, b.to_value}) {
        if (v < 0 || v > 1) return Error(Join(where, "opacity"), absl::StrCat(v, " is out of range (0 .. 1)"));
      }
    } else if (j.contains("visible")) {
      b.kind = Binding::Kind::kVisible;
      LC_RETURN_IF_ERROR(pair_of_numbers("visible", &b.min, &b.max));
      if (b.min > b.max) return Error(Join(where, "visible"), "expected [min, max] with min <= max");
    } else if (j.contains("shapes")) {
      b.kind = Binding::Kind::kVisible;
      LC_ASSIGN_OR_RETURN(std::string letters, String(j["shapes"], Join(where, "shapes")));
      if (letters.empty()) return Error(Join(where, "shapes"), "list at least one mouth shape letter (A-H, X)");
      for (char c : letters) {
        const std::optional<Viseme> v = VisemeFromLetter(c);
        if (!v) {
          return Error(Join(where, "shapes"),
                       absl::StrCat("'", std::string(1, c), "' is not a mouth shape (A, B, C, D, E, F, G, H, X)"));
        }
        b.shapes |= static_cast<uint16_t>(1u << static_cast<int>(*v));
      }
    } else {
      b.kind = Binding::Kind::kMorph;
      const std::string w = Join(where, "morph");
      if (layer.kind != Layer::Kind::kShape) return Error(w, "only shape layers can morph");
      LC_ASSIGN_OR_RETURN(b.target, ParseShape(j["morph"], w));
      if (!b.target.SameVerbsAs(layer.path)) {
        return Error(w, absl::StrCat("the target's path commands are ", b.target.VerbLetters(), ", the layer's shape's ",
                                     layer.path.VerbLetters(),
                                     ": a morph target must use the same commands in the same order (an ellipse "
                                     "morphs into an ellipse, a rect into a rect)"));
      }
      b.from_value = 0;
      b.to_value = 1;
    }
    return b;
  }

  absl::StatusOr<Layer> ParseLayer(const Json& j, const std::string& where) {
    LC_RETURN_IF_ERROR(CheckKeys(j, where, {"id", "parent", "z", "pivot", "translate", "rotate", "scale", "opacity",
                                            "visible", "shape", "image", "fill", "stroke", "clip", "bindings",
                                            "comment"}));
    Layer layer;
    if (!j.contains("id")) return Error(where, "missing \"id\" (every layer has a unique name)");
    LC_ASSIGN_OR_RETURN(layer.id, String(j["id"], Join(where, "id")));
    if (layer.id.empty()) return Error(Join(where, "id"), "the id is empty");
    if (j.contains("z")) {
      LC_ASSIGN_OR_RETURN(layer.z, Number(j["z"], Join(where, "z")));
    }
    if (j.contains("pivot")) {
      LC_ASSIGN_OR_RETURN(layer.pivot, Point(j["pivot"], Join(where, "pivot")));
    }
    if (j.contains("translate")) {
      LC_ASSIGN_OR_RETURN(layer.translate, Point(j["translate"], Join(where, "translate")));
    }
    if (j.contains("rotate")) {
      LC_ASSIGN_OR_RETURN(layer.rotate_degrees, Number(j["rotate"], Join(where, "rotate")));
    }
    if (j.contains("scale")) {
      LC_ASSIGN_OR_RETURN(layer.scale, PointOrScalar(j["scale"], Join(where, "scale")));
    }
    if (j.contains("opacity")) {
      LC_ASSIGN_OR_RETURN(layer.opacity, NumberIn(j["opacity"], Join(where, "opacity"), 0, 1));
    }
    if (j.contains("visible")) {
      if (!j["visible"].is_boolean()) return Error(Join(where, "visible"), "expected true or false");
      layer.visible = j["visible"].get<bool>();
    }
    if (j.contains("shape") && j.contains("image")) {
      return Error(where, "a layer has a \"shape\" or an \"image\", not both (use two layers)");
    }
    if (j.contains("shape")) {
      layer.kind = Layer::Kind::kShape;
      LC_ASSIGN_OR_RETURN(layer.path, ParseShape(j["shape"], Join(where, "shape")));
      if (!j.contains("fill") && !j.contains("stroke")) {
        return Error(where, "a shape layer needs a \"fill\", a \"stroke\" or both");
      }
      if (j.contains("fill")) {
        LC_ASSIGN_OR_RETURN(layer.fill, ParsePaint(j["fill"], Join(where, "fill")));
      }
      if (j.contains("stroke")) {
        const std::string w = Join(where, "stroke");
        LC_RETURN_IF_ERROR(CheckKeys(j["stroke"], w, {"width", "paint"}));
        if (!j["stroke"].contains("width") || !j["stroke"].contains("paint")) {
          return Error(w, "needs \"width\" and \"paint\"");
        }
        LC_ASSIGN_OR_RETURN(layer.stroke_width, NumberIn(j["stroke"]["width"], Join(w, "width"), 0, 1e6f));
        LC_ASSIGN_OR_RETURN(layer.stroke, ParsePaint(j["stroke"]["paint"], Join(w, "paint")));
      }
    } else if (j.contains("image")) {
      layer.kind = Layer::Kind::kImage;
      const std::string w = Join(where, "image");
      const Json& im = j["image"];
      LC_RETURN_IF_ERROR(CheckKeys(im, w, {"src", "x", "y", "width", "height"}));
      if (!im.contains("src")) return Error(w, "missing \"src\" (a PNG path, relative to the rig file)");
      LC_ASSIGN_OR_RETURN(std::string src, String(im["src"], Join(w, "src")));
      LC_ASSIGN_OR_RETURN(auto image, Image(src, Join(w, "src")));
      float v[4] = {0, 0, static_cast<float>(image->width), static_cast<float>(image->height)};
      const char* keys[4] = {"x", "y", "width", "height"};
      for (int k = 0; k < 4; ++k) {
        if (im.contains(keys[k])) {
          LC_ASSIGN_OR_RETURN(v[k], Number(im[keys[k]], Join(w, keys[k])));
        }
      }
      if (!(v[2] > 0) || !(v[3] > 0)) return Error(w, "width and height must be greater than 0");
      layer.path = Path::RoundedRect(v[0], v[1], v[2], v[3], 0);
      layer.fill = Paint::Image(std::move(image), {v[0], v[1]}, {v[2], v[3]});
    } else if (j.contains("fill") || j.contains("stroke")) {
      return Error(where, "\"fill\" and \"stroke\" need a \"shape\"");
    }
    return layer;
  }

  absl::StatusOr<std::shared_ptr<const Rig>> ParseRig(const std::string& text) {
    Json root;
    try {
      root = Json::parse(text);
    } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number beyond a double
      return absl::InvalidArgumentError(absl::StrCat(file_, ": not valid JSON: ", e.what()));
    }
    LC_RETURN_IF_ERROR(CheckKeys(root, "", {"lingcast_rig", "name", "canvas", "regions", "layers", "comment"}));
    if (!root.contains("lingcast_rig")) {
      return Error("", "missing \"lingcast_rig\": 1 (the format version; is this a rig file?)");
    }
    if (!root["lingcast_rig"].is_number_integer() || root["lingcast_rig"].get<int>() != 1) {
      return Error("lingcast_rig", "unsupported format version (this build reads version 1)");
    }
    auto rig = std::make_shared<Rig>();
    rig->name = file_;
    if (!root.contains("canvas")) return Error("", "missing \"canvas\": {\"width\": W, \"height\": H}");
    const Json& canvas = root["canvas"];
    LC_RETURN_IF_ERROR(CheckKeys(canvas, "canvas", {"width", "height", "anchor"}));
    if (!canvas.contains("width") || !canvas.contains("height")) return Error("canvas", "needs \"width\" and \"height\"");
    LC_ASSIGN_OR_RETURN(rig->width, NumberIn(canvas["width"], "canvas.width", 1e-3f, 1e6f));
    LC_ASSIGN_OR_RETURN(rig->height, NumberIn(canvas["height"], "canvas.height", 1e-3f, 1e6f));
    if (canvas.contains("anchor")) {
      LC_ASSIGN_OR_RETURN(std::string anchor, String(canvas["anchor"], "canvas.anchor"));
      if (anchor == "bottom") {
        rig->anchor = Rig::Anchor::kBottom;
      } else if (anchor == "center") {
        rig->anchor = Rig::Anchor::kCenter;
      } else {
        return Error("canvas.anchor", absl::StrCat("unknown anchor \"", anchor, "\" (bottom or center)"));
      }
    }
    if (root.contains("regions")) {
      const Json& regions = root["regions"];
      if (!regions.is_object()) return Error("regions", "expected an object of name: [x0, y0, x1, y1]");
      for (const auto& [name, box] : regions.items()) {
        const std::string w = Join("regions", name);
        if (!box.is_array() || box.size() != 4) return Error(w, "expected [x0, y0, x1, y1]");
        float v[4];
        for (int k = 0; k < 4; ++k) {
          LC_ASSIGN_OR_RETURN(v[k], Number(box[k], Index(w, k)));
        }
        rig->regions.push_back({name, {v[0], v[1]}, {v[2], v[3]}});
      }
    }
    if (!root.contains("layers") || !root["layers"].is_array() || root["layers"].empty()) {
      return Error("layers", "expected a non-empty array of layers");
    }
    const Json& layers = root["layers"];
    std::map<std::string, int> index_of;
    for (size_t i = 0; i < layers.size(); ++i) {
      const std::string w = Index("layers", i);
      LC_ASSIGN_OR_RETURN(Layer layer, ParseLayer(layers[i], w));
      if (index_of.count(layer.id)) {
        return Error(Join(w, "id"), absl::StrCat("duplicate id \"", layer.id, "\" (first used by layers[",
                                                 index_of[layer.id], "])"));
      }
      index_of[layer.id] = static_cast<int>(i);
      rig->layers.push_back(std::move(layer));
    }
    // References and bindings, now that every id is known.
    std::vector<std::string> ids;
    for (const Layer& l : rig->layers) ids.push_back(l.id);
    auto reference = [&](const Json& j, const std::string& w, int self) -> absl::StatusOr<int> {
      LC_ASSIGN_OR_RETURN(std::string id, String(j, w));
      auto it = index_of.find(id);
      if (it == index_of.end()) return Error(w, absl::StrCat("no layer has the id \"", id, "\"", Suggestion(id, ids)));
      if (it->second == self) return Error(w, "a layer cannot refer to itself");
      return it->second;
    };
    for (size_t i = 0; i < layers.size(); ++i) {
      const std::string w = Index("layers", i);
      Layer& layer = rig->layers[i];
      if (layers[i].contains("parent")) {
        LC_ASSIGN_OR_RETURN(layer.parent, reference(layers[i]["parent"], Join(w, "parent"), static_cast<int>(i)));
      }
      if (layers[i].contains("clip")) {
        LC_ASSIGN_OR_RETURN(layer.clip, reference(layers[i]["clip"], Join(w, "clip"), static_cast<int>(i)));
        if (rig->layers[layer.clip].kind == Layer::Kind::kGroup) {
          return Error(Join(w, "clip"), absl::StrCat("\"", rig->layers[layer.clip].id,
                                                     "\" is a group; a clip must be a shape or image layer"));
        }
      }
      if (layers[i].contains("bindings")) {
        const Json& bindings = layers[i]["bindings"];
        const std::string bw = Join(w, "bindings");
        if (!bindings.is_array()) return Error(bw, "expected an array of bindings");
        for (size_t k = 0; k < bindings.size(); ++k) {
          LC_ASSIGN_OR_RETURN(Binding b, ParseBinding(bindings[k], Index(bw, k), layer));
          layer.bindings.push_back(std::move(b));
        }
      }
    }
    // Parents before children; a cycle is an error naming its layers.
    std::vector<int> state(rig->layers.size(), 0);  // 0 new, 1 visiting, 2 done
    for (size_t start = 0; start < rig->layers.size(); ++start) {
      std::vector<int> chain;
      int at = static_cast<int>(start);
      while (at >= 0 && state[at] == 0) {
        state[at] = 1;
        chain.push_back(at);
        at = rig->layers[at].parent;
      }
      if (at >= 0 && state[at] == 1) {
        std::vector<std::string> names;
        for (int c : chain) names.push_back(rig->layers[c].id);
        return Error(absl::StrCat(Index("layers", static_cast<size_t>(at)), ".parent"),
                     absl::StrCat("parents form a cycle: ", absl::StrJoin(names, " -> ")));
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        state[*it] = 2;
        rig->transform_order.push_back(*it);
      }
    }
    rig->draw_order.resize(rig->layers.size());
    for (size_t i = 0; i < rig->layers.size(); ++i) rig->draw_order[i] = static_cast<int>(i);
    std::stable_sort(rig->draw_order.begin(), rig->draw_order.end(),
                     [&](int a, int b) { return rig->layers[a].z < rig->layers[b].z; });
    return std::shared_ptr<const Rig>(std::move(rig));
  }

 private:
  std::string file_;
  std::string base_dir_;
  std::string images_within_;
  std::map<std::string, std::shared_ptr<const VideoFrame>> images_;
};

}  // namespace

const char* ParamName(Param p) { return kParamNames[static_cast<int>(p)]; }

std::optional<Param> ParamFromName(const std::string& name) {
  for (int i = 0; i < kParamCount; ++i) {
    if (name == kParamNames[i]) return static_cast<Param>(i);
  }
  return std::nullopt;
}

float Binding::Fraction(float value) const {
  return std::clamp((value - in0) / (in1 - in0), 0.0f, 1.0f);
}

ParamValues ParamValuesOf(const AvatarState& s) {
  ParamValues v{};
  auto set = [&v](Param p, float x) { v[static_cast<int>(p)] = x; };
  const MouthParams& m = s.mouth;
  set(Param::kMouthOpen, m.open);
  set(Param::kMouthSpread, m.spread);
  set(Param::kMouthRound, m.round);
  set(Param::kMouthTeeth, m.teeth);
  set(Param::kMouthTongue, m.tongue);
  set(Param::kMouthLipBite, m.lip_bite);
  set(Param::kMouthPress, m.press);
  // The nearest point on a segment between two shapes' parameters.
  auto vec = [](const MouthParams& p) {
    return std::array<float, 7>{p.open, p.spread, p.round, p.teeth, p.tongue, p.lip_bite, p.press};
  };
  const std::array<float, 7> x = vec(m);
  float best = INFINITY, best_t = 0;
  int best_a = static_cast<int>(Viseme::kX), best_b = best_a;
  for (int a = 0; a < kVisemeCount; ++a) {
    for (int b = a + 1; b < kVisemeCount; ++b) {
      const auto pa = vec(MouthParamsOf(static_cast<Viseme>(a))), pb = vec(MouthParamsOf(static_cast<Viseme>(b)));
      float dot = 0, len2 = 0;
      for (int k = 0; k < 7; ++k) {
        dot += (x[k] - pa[k]) * (pb[k] - pa[k]);
        len2 += (pb[k] - pa[k]) * (pb[k] - pa[k]);
      }
      const float t = len2 > 0 ? std::clamp(dot / len2, 0.0f, 1.0f) : 0.0f;
      float d2 = 0;
      for (int k = 0; k < 7; ++k) {
        const float e = x[k] - (pa[k] + (pb[k] - pa[k]) * t);
        d2 += e * e;
      }
      if (d2 < best) {
        best = d2;
        best_a = a;
        best_b = b;
        best_t = t;
      }
    }
  }
  const int first = static_cast<int>(Param::kMouthA);
  v[first + best_a] += 1 - best_t;
  v[first + best_b] += best_t;
  set(Param::kMouthShape, static_cast<float>(best_t > 0.5f ? best_b : best_a));
  set(Param::kEyeOpen, s.eye_open);
  set(Param::kBlink, 1 - s.eye_open);
  set(Param::kGazeX, s.gaze.x);
  set(Param::kGazeY, s.gaze.y);
  set(Param::kBrow, s.brow_raise);
  set(Param::kHeadYaw, s.head_yaw);
  set(Param::kHeadPitch, s.head_pitch);
  set(Param::kHeadRoll, s.head_roll);
  set(Param::kHeadX, s.head_offset.x);
  set(Param::kHeadY, s.head_offset.y);
  set(Param::kBreath, s.breath);
  set(Param::kEmotionNeutral, s.expression.neutral());
  set(Param::kEmotionSmile, s.expression.smile);
  set(Param::kEmotionSurprised, s.expression.surprised);
  set(Param::kEmotionThinking, s.expression.thinking);
  return v;
}

absl::StatusOr<std::shared_ptr<const Rig>> ParseRig(const std::string& json_text, const std::string& name,
                                                    const std::string& base_dir, const std::string& images_within) {
  Reader reader(name, base_dir, images_within);
  return reader.ParseRig(json_text);
}

absl::StatusOr<std::shared_ptr<const Rig>> LoadRig(const std::string& path, const std::string& images_within) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot open rig file \"", path, "\""));
  std::stringstream text;
  text << in.rdbuf();
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return ParseRig(text.str(), std::filesystem::path(path).filename().string(), dir, images_within);
}

std::shared_ptr<const Rig> BuiltInPresenter() {
  // Parsed once; the embedded JSON is checked by the build's tests, so a parse
  // failure here is a bug in this build, not a user error.
  static const std::shared_ptr<const Rig> presenter = [] {
    auto rig = ParseRig(BuiltInPresenterJson(), "presenter.json (built in)", "");
    if (!rig.ok()) {
      std::fprintf(stderr, "lingcast: the built-in avatar does not parse: %s\n",
                   std::string(rig.status().message()).c_str());
      std::abort();
    }
    return *rig;
  }();
  return presenter;
}

}  // namespace lingcast::rig
