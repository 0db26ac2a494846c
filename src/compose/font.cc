#include "compose/font.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb-ft.h>
#include <hb.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/share_paths.h"
#include "core/status.h"

namespace lingcast::compose {
namespace {

constexpr char kSimplifiedChineseFamily[] = "Noto Sans CJK SC";

struct FaceDeleter {
  void operator()(FT_Face face) const { FT_Done_Face(face); }
};
using FacePtr = std::unique_ptr<FT_FaceRec_, FaceDeleter>;

absl::StatusOr<std::shared_ptr<FT_LibraryRec_>> NewLibrary() {
  FT_Library library = nullptr;
  if (FT_Error error = FT_Init_FreeType(&library); error != 0) {
    return absl::InternalError(absl::StrCat("FreeType failed to initialize (error ", error, ")"));
  }
  return std::shared_ptr<FT_LibraryRec_>(library, [](FT_Library l) { FT_Done_FreeType(l); });
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Lists the faces of `path`; NotFound / InvalidArgument when it is not a readable font.
absl::StatusOr<std::vector<FontLocation>> ListFaces(FT_Library library, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat("font file '", path, "' does not exist"));
  }
  FT_Face probe = nullptr;
  if (FT_Error error = FT_New_Face(library, path.c_str(), -1, &probe); error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is not a font file FreeType can read (FreeType error ", error, ")"));
  }
  const long face_count = probe->num_faces;
  FT_Done_Face(probe);
  std::vector<FontLocation> faces;
  for (long i = 0; i < face_count; ++i) {
    FT_Face raw = nullptr;
    if (FT_New_Face(library, path.c_str(), i, &raw) != 0) continue;
    FacePtr face(raw);
    faces.push_back({path, static_cast<int>(i), face->family_name ? face->family_name : "",
                     face->style_name ? face->style_name : ""});
  }
  if (faces.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' holds no readable font face"));
  }
  return faces;
}

}  // namespace

std::vector<std::string> NotoSansCjkCandidatePaths(FontWeight weight) {
  const std::string w = weight == FontWeight::kBold ? "Bold" : "Regular";
  // SharePath: a relocatable bundle's copy first (core/share_paths.h).
  return {
      SharePath("/usr/share/fonts/opentype/noto/NotoSansCJK-" + w + ".ttc"),  // Debian, Ubuntu
      "/usr/share/fonts/noto-cjk/NotoSansCJK-" + w + ".ttc",             // Arch
      "/usr/share/fonts/google-noto-cjk/NotoSansCJK-" + w + ".ttc",      // Fedora
      "/usr/share/fonts/opentype/noto/NotoSansCJKsc-" + w + ".otf",      // older single-face packages
      "/usr/share/fonts/truetype/noto/NotoSansCJKsc-" + w + ".otf",
  };
}

absl::StatusOr<FontLocation> FindNotoSansCjkSc(FontWeight weight) {
  return FindNotoSansCjkSc(weight, NotoSansCjkCandidatePaths(weight));
}

absl::StatusOr<FontLocation> FindNotoSansCjkSc(FontWeight weight,
                                               const std::vector<std::string>& candidates) {
  LC_ASSIGN_OR_RETURN(auto library, NewLibrary());
  const std::string style = weight == FontWeight::kBold ? "Bold" : "Regular";
  for (const std::string& path : candidates) {
    auto faces = ListFaces(library.get(), path);
    if (!faces.ok()) continue;
    for (const FontLocation& face : *faces) {
      if (face.family == kSimplifiedChineseFamily && face.style == style) return face;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "font Noto Sans CJK SC ", style, " not found (looked in ", absl::StrJoin(candidates, ", "),
      "); install fonts-noto-cjk (scripts/install-deps.sh) or pass a font file path"));
}

absl::StatusOr<FontLocation> ResolveFontFile(const std::string& path) {
  LC_ASSIGN_OR_RETURN(auto library, NewLibrary());
  LC_ASSIGN_OR_RETURN(std::vector<FontLocation> faces, ListFaces(library.get(), path));
  for (const FontLocation& face : faces) {
    if (EndsWith(face.family, " SC")) return face;
  }
  return faces.front();
}

absl::StatusOr<std::unique_ptr<FontLibrary>> FontLibrary::Create() {
  LC_ASSIGN_OR_RETURN(auto library, NewLibrary());
  return std::unique_ptr<FontLibrary>(new FontLibrary(std::move(library)));
}

absl::StatusOr<std::unique_ptr<SizedFont>> FontLibrary::Open(const FontLocation& location,
                                                              int pixel_size) {
  if (pixel_size < 1 || pixel_size > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("font pixel size ", pixel_size, " is outside 1..1000"));
  }
  FT_Face raw = nullptr;
  if (FT_Error error = FT_New_Face(library_.get(), location.path.c_str(), location.face_index, &raw);
      error != 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot open face ", location.face_index, " of '",
                                                   location.path, "' (FreeType error ", error, ")"));
  }
  FacePtr face(raw);
  if (FT_Error error = FT_Set_Pixel_Sizes(face.get(), 0, static_cast<FT_UInt>(pixel_size));
      error != 0) {
    return absl::InvalidArgumentError(absl::StrCat("'", location.path, "' cannot be scaled to ",
                                                   pixel_size, " px (FreeType error ", error, ")"));
  }
  // hb_ft_font_create_referenced takes its own reference on the face.
  hb_font_t* hb_font = hb_ft_font_create_referenced(face.get());
  hb_ft_font_set_load_flags(hb_font, FT_LOAD_NO_HINTING);
  return std::unique_ptr<SizedFont>(new SizedFont(library_, face.release(), hb_font, pixel_size,
                                                  next_font_id_++, location));
}

SizedFont::~SizedFont() {
  hb_font_destroy(hb_font_);
  FT_Done_Face(face_);
}

bool SizedFont::HasGlyph(char32_t codepoint) const {
  return FT_Get_Char_Index(face_, codepoint) != 0;
}

}  // namespace lingcast::compose
