#include "mt/glossary.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

char32_t Fold(char32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E) c = c - 0xFF01 + 0x21;  // full-width ASCII
  if (c == 0x3000) c = U' ';
  if (c >= U'A' && c <= U'Z') c = c - U'A' + U'a';
  return c;
}

bool IsWordChar(char32_t c) { return IsLatinLetter(c) || IsAsciiDigit(c); }

// Folded code points with the byte range of each in the original text.
struct FoldedText {
  std::u32string chars;
  std::vector<CodePoint> source;
};

FoldedText FoldText(std::string_view text) {
  FoldedText folded;
  folded.source = DecodeUtf8(text);
  folded.chars.reserve(folded.source.size());
  for (const CodePoint& cp : folded.source) folded.chars.push_back(Fold(cp.value));
  return folded;
}

std::string Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r");
  return std::string(s.substr(begin, end - begin + 1));
}

// Replaces the spans (sorted, not overlapping) of `text` by `replacement`.
std::string ReplaceSpans(std::string_view text, const std::vector<TextSpan>& spans, const std::string& replacement) {
  std::string out;
  size_t at = 0;
  for (const TextSpan& span : spans) {
    out.append(text.substr(at, span.offset - at));
    out += replacement;
    at = span.offset + span.length;
  }
  out.append(text.substr(at));
  return out;
}

// FindTerm in a text folded once for every term looked for in it.
std::vector<TextSpan> FindFolded(const FoldedText& hay, std::string_view needle) {
  std::vector<TextSpan> spans;
  const FoldedText term = FoldText(needle);
  if (term.chars.empty() || term.chars.size() > hay.chars.size()) return spans;
  const bool word_start = IsWordChar(term.chars.front());
  const bool word_end = IsWordChar(term.chars.back());
  size_t from = 0;
  while (true) {
    const size_t at = hay.chars.find(term.chars, from);
    if (at == std::u32string::npos) break;
    const size_t end = at + term.chars.size();
    const bool starts_ok = !word_start || at == 0 || !IsWordChar(hay.chars[at - 1]);
    const bool ends_ok = !word_end || end == hay.chars.size() || !IsWordChar(hay.chars[end]);
    if (starts_ok && ends_ok) {
      const CodePoint& first = hay.source[at];
      const CodePoint& last = hay.source[end - 1];
      spans.push_back(TextSpan{static_cast<size_t>(first.offset),
                               static_cast<size_t>(last.offset + last.length - first.offset)});
      from = end;
    } else {
      from = at + 1;
    }
  }
  return spans;
}

}  // namespace

std::vector<TextSpan> FindTerm(std::string_view haystack, std::string_view needle) {
  return FindFolded(FoldText(haystack), needle);
}

Glossary::Glossary(Glossary&& other) noexcept {
  MutexLock lock(&other.mu_);
  terms_ = std::move(other.terms_);
}

Glossary& Glossary::operator=(Glossary&& other) noexcept {
  if (this == &other) return *this;
  std::vector<GlossaryTerm> moved;
  {
    MutexLock lock(&other.mu_);
    moved = std::move(other.terms_);
  }
  MutexLock lock(&mu_);
  terms_ = std::move(moved);
  return *this;
}

absl::StatusOr<Glossary> Glossary::LoadFile(const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open glossary ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path, warnings);
}

absl::StatusOr<Glossary> Glossary::Parse(std::string_view text, const std::string& filename,
                                         std::vector<std::string>* warnings) {
  Glossary glossary;
  std::vector<GlossaryTerm>& terms = glossary.terms_;  // not shared yet: no lock needed
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    const std::string where = absl::StrCat(filename, ":", number);
    if (const int64_t bad = FindInvalidUtf8(line); bad >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": invalid UTF-8 at byte ", bad));
    }
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected CHINESE<TAB>ENGLISH, found no tab in \"", trimmed, "\""));
    }
    if (line.find('\t', tab + 1) != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": more than two tab-separated fields"));
    }
    GlossaryTerm term{Trim(std::string_view(line).substr(0, tab)), Trim(std::string_view(line).substr(tab + 1)),
                      where};
    if (term.zh.empty() || term.en.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": empty ", term.zh.empty() ? "Chinese" : "English", " term"));
    }
    auto same = std::find_if(terms.begin(), terms.end(), [&](const GlossaryTerm& t) {
      return FoldText(t.zh).chars == FoldText(term.zh).chars;
    });
    if (same != terms.end()) {
      if (warnings != nullptr && same->en != term.en) {
        warnings->push_back(absl::StrCat(where, ": \"", term.zh, "\" is already in the glossary at ", same->origin,
                                         "; keeping \"", same->en, "\""));
      }
      continue;
    }
    terms.push_back(std::move(term));
  }
  return glossary;
}

void Glossary::Put(GlossaryTerm term) {
  MutexLock lock(&mu_);
  for (GlossaryTerm& existing : terms_) {
    if (FoldText(existing.zh).chars == FoldText(term.zh).chars) {
      existing = std::move(term);
      return;
    }
  }
  terms_.push_back(std::move(term));
}

size_t Glossary::size() const {
  MutexLock lock(&mu_);
  return terms_.size();
}

std::vector<GlossaryTerm> Glossary::TermsIn(std::string_view source, Language from) const {
  std::vector<GlossaryTerm> sorted;
  {
    MutexLock lock(&mu_);
    sorted = terms_;
  }
  std::stable_sort(sorted.begin(), sorted.end(), [from](const GlossaryTerm& a, const GlossaryTerm& b) {
    return a.In(from).size() > b.In(from).size();
  });
  std::vector<GlossaryTerm> found;
  std::vector<bool> taken(source.size(), false);
  const FoldedText folded_source = FoldText(source);
  for (GlossaryTerm& term : sorted) {
    bool used = false;
    for (const TextSpan& span : FindFolded(folded_source, term.In(from))) {
      if (std::any_of(taken.begin() + static_cast<std::ptrdiff_t>(span.offset),
                      taken.begin() + static_cast<std::ptrdiff_t>(span.offset + span.length),
                      [](bool b) { return b; })) {
        continue;
      }
      std::fill(taken.begin() + static_cast<std::ptrdiff_t>(span.offset),
                taken.begin() + static_cast<std::ptrdiff_t>(span.offset + span.length), true);
      used = true;
    }
    if (used) found.push_back(std::move(term));
  }
  return found;
}

GlossaryResult Glossary::Enforce(std::string_view source, Language from, std::string_view translation,
                                 Language to) const {
  GlossaryResult result{std::string(translation), 0, {}};
  std::vector<GlossaryTerm> all;
  {
    MutexLock lock(&mu_);
    all = terms_;
  }
  // Longest target terms first, so "iPhone 15 Pro" is respelled before "iPhone".
  std::stable_sort(all.begin(), all.end(), [to](const GlossaryTerm& a, const GlossaryTerm& b) {
    return a.In(to).size() > b.In(to).size();
  });
  auto respell = [&](const GlossaryTerm& term) {
    std::vector<TextSpan> spans = FindTerm(result.text, term.In(to));
    std::vector<TextSpan> wrong;
    for (const TextSpan& span : spans) {
      if (std::string_view(result.text).substr(span.offset, span.length) != term.In(to)) wrong.push_back(span);
    }
    if (!wrong.empty()) {
      result.text = ReplaceSpans(result.text, wrong, term.In(to));
      result.fixed += static_cast<int>(wrong.size());
    }
    return !spans.empty();
  };
  for (const GlossaryTerm& term : all) respell(term);

  for (const GlossaryTerm& term : TermsIn(source, from)) {
    if (!FindTerm(result.text, term.In(to)).empty()) continue;
    std::vector<TextSpan> untranslated = FindTerm(result.text, term.In(from));
    if (!untranslated.empty()) {
      result.text = ReplaceSpans(result.text, untranslated, term.In(to));
      result.fixed += static_cast<int>(untranslated.size());
      continue;
    }
    result.missing.push_back(term.In(from));
  }
  return result;
}

}  // namespace lingcast
