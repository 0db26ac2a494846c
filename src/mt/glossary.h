// Glossary: the terms (brands, product names, units) every translation must render
// one fixed way, whatever engine produced it.
//
// File format (docs/translation.md): one term per line, CHINESE<TAB>ENGLISH; empty
// lines and lines starting with '#' are skipped. The same term on both sides
// ("iPhone<TAB>iPhone") keeps a name from being translated at all.
//
// Terms are found with case and width folded (ｉＰｈｏｎｅ, IPHONE and iphone are all
// "iPhone"), and Latin terms only as whole words ("Pro" is not found in "Product").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "core/sync.h"
#include "media/language.h"

namespace lingcast {

struct GlossaryTerm {
  std::string zh;
  std::string en;
  std::string origin;  // "FILE:LINE" or "correction"

  const std::string& In(Language language) const { return language == Language::kZh ? zh : en; }
};

// What Enforce did to one translation.
struct GlossaryResult {
  std::string text;                 // the translation with the glossary applied
  int fixed = 0;                    // terms respelled or translated in place
  std::vector<std::string> missing; // terms of the source whose translation is absent
};

class Glossary {
 public:
  Glossary() = default;
  Glossary(const Glossary&) = delete;
  Glossary& operator=(const Glossary&) = delete;
  Glossary(Glossary&& other) noexcept;
  Glossary& operator=(Glossary&& other) noexcept;

  // NotFound naming the file; InvalidArgument "FILE:LINE: ..." for a malformed line
  // (then nothing is loaded). A term listed twice keeps its first translation and
  // adds a warning naming both lines.
  static absl::StatusOr<Glossary> LoadFile(const std::string& path, std::vector<std::string>* warnings = nullptr);
  static absl::StatusOr<Glossary> Parse(std::string_view text, const std::string& filename,
                                        std::vector<std::string>* warnings = nullptr);

  // Adds a term, or replaces the translation of a term already there (a correction).
  void Put(GlossaryTerm term);

  // Terms whose `from` side occurs in `source`, longest first, each occurrence
  // counted once (in "iPhone 15 Pro" the term "iPhone 15 Pro" wins over "iPhone").
  std::vector<GlossaryTerm> TermsIn(std::string_view source, Language from) const;

  // Applies the glossary to `translation` of `source`: every term of the source must
  // appear in the translation with its fixed spelling. A term found with another
  // case or width is respelled; a term left untranslated (its source form in the
  // translation) is replaced; a term that is nowhere is reported missing. Target
  // terms spelled otherwise are respelled wherever they occur.
  GlossaryResult Enforce(std::string_view source, Language from, std::string_view translation, Language to) const;

  size_t size() const;

 private:
  mutable Mutex mu_;
  std::vector<GlossaryTerm> terms_ ABSL_GUARDED_BY(mu_);
};

// Where `needle` occurs in `haystack` with case and width folded and, at an edge
// that is a Latin letter or digit, on a word boundary: byte ranges in `haystack`.
struct TextSpan {
  size_t offset = 0;
  size_t length = 0;
};
std::vector<TextSpan> FindTerm(std::string_view haystack, std::string_view needle);

}  // namespace lingcast
