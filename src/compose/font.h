// Fonts for burned-in subtitles: finding Noto Sans CJK SC (fonts-noto-cjk) and
// opening a face at one pixel size for HarfBuzz shaping and FreeType rasterizing.
//
// Each FontLibrary owns its own FT_Library: FreeType's library object is not
// thread-safe, so one per compositor (one per render thread) avoids any
// process-global state and any lock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

struct FT_LibraryRec_;
struct FT_FaceRec_;
struct hb_font_t;

namespace lingcast::compose {

enum class FontWeight { kRegular, kBold };

// One face inside a font file (a .ttc collection holds several).
struct FontLocation {
  std::string path;
  int face_index = 0;
  std::string family;  // as the font names itself, e.g. "Noto Sans CJK SC"
  std::string style;   // e.g. "Regular", "Bold"
};

// The places fonts-noto-cjk (and other distributions' packages) install the fonts.
std::vector<std::string> NotoSansCjkCandidatePaths(FontWeight weight);

// Finds the Simplified Chinese face of Noto Sans CJK by its family name.
// NotFound, naming the paths tried and how to install, when absent.
absl::StatusOr<FontLocation> FindNotoSansCjkSc(FontWeight weight);
// The same search over `candidates` (for tests and for packagers' extra paths).
absl::StatusOr<FontLocation> FindNotoSansCjkSc(FontWeight weight,
                                               const std::vector<std::string>& candidates);

// An explicit font file: in a collection, the face whose family ends in " SC"
// (Simplified Chinese) is preferred, else face 0. NotFound when the file is
// missing, InvalidArgument when FreeType cannot read it.
absl::StatusOr<FontLocation> ResolveFontFile(const std::string& path);

class SizedFont;

class FontLibrary {
 public:
  static absl::StatusOr<std::unique_ptr<FontLibrary>> Create();

  // Opens `location` at `pixel_size` (the em size in pixels).
  absl::StatusOr<std::unique_ptr<SizedFont>> Open(const FontLocation& location, int pixel_size);

  FT_LibraryRec_* handle() const { return library_.get(); }

 private:
  explicit FontLibrary(std::shared_ptr<FT_LibraryRec_> library) : library_(std::move(library)) {}
  std::shared_ptr<FT_LibraryRec_> library_;
  uint32_t next_font_id_ = 1;
};

// A face at one pixel size, with its HarfBuzz font. Keeps its library alive.
class SizedFont {
 public:
  ~SizedFont();
  SizedFont(const SizedFont&) = delete;
  SizedFont& operator=(const SizedFont&) = delete;

  FT_FaceRec_* face() const { return face_; }
  hb_font_t* hb_font() const { return hb_font_; }
  int pixel_size() const { return pixel_size_; }
  // Unique per opened font within its library: part of glyph cache keys.
  uint32_t id() const { return id_; }
  const FontLocation& location() const { return location_; }
  // True when the font has a real glyph (not .notdef) for `codepoint`.
  bool HasGlyph(char32_t codepoint) const;

 private:
  friend class FontLibrary;
  SizedFont(std::shared_ptr<FT_LibraryRec_> library, FT_FaceRec_* face, hb_font_t* hb_font,
            int pixel_size, uint32_t id, FontLocation location)
      : library_(std::move(library)), face_(face), hb_font_(hb_font), pixel_size_(pixel_size),
        id_(id), location_(std::move(location)) {}

  std::shared_ptr<FT_LibraryRec_> library_;
  FT_FaceRec_* face_;     // owned: FT_Done_Face in the destructor
  hb_font_t* hb_font_;    // owned: hb_font_destroy in the destructor
  int pixel_size_;
  uint32_t id_;
  FontLocation location_;
};

}  // namespace lingcast::compose
