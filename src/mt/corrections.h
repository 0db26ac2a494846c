// Corrections made during a show ("that line should say X", "this brand is
// spelled Y"): applied to the translation memory or the glossary at once, so the
// next occurrence is right, and kept in a file the user owns so the next show
// starts with them.
//
// The file is plain TSV, one correction per line, oldest first:
//   KIND<TAB>FROM<TAB>TO<TAB>SOURCE<TAB>TARGET
// KIND is "line" (a translation memory entry) or "term" (a glossary term); FROM/TO
// are "zh"/"en". Every correction rewrites the file atomically (a temporary file
// renamed over it), so a crash leaves the old or the new file, never half of one.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/language.h"
#include "text/script.h"

namespace lingcast {

class Glossary;
class TranslationMemory;

struct Correction {
  enum class Kind { kLine, kTerm };
  Kind kind = Kind::kLine;
  Language from = Language::kZh;
  Language to = Language::kEn;
  std::string source;
  std::string target;
};

// The correction of script line `line_number` (1-based, as the follower reports
// it): its spoken segment is the source. NotFound when the script has no spoken
// line there.
absl::StatusOr<Correction> CorrectScriptLine(const Script& script, int line_number, Language to,
                                             std::string target);

class CorrectionLog {
 public:
  // Reads the corrections already in `path` (a missing file is an empty log; it
  // is created by the first Record). InvalidArgument "FILE:LINE: ..." for a line
  // that is not a correction.
  static absl::StatusOr<CorrectionLog> Open(std::string path);

  // Applies every correction of the log, in order (later ones win).
  void ApplyTo(TranslationMemory& memory, Glossary* glossary) const;

  // Applies `correction` and persists the log with it. InvalidArgument for an
  // empty source or target, invalid UTF-8, a tab or newline inside a field, or a
  // term correction without a glossary; then nothing changes, in memory or on disk.
  absl::Status Record(const Correction& correction, TranslationMemory& memory, Glossary* glossary);

  const std::vector<Correction>& corrections() const { return corrections_; }
  const std::string& path() const { return path_; }

 private:
  explicit CorrectionLog(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::vector<Correction> corrections_;
};

}  // namespace lingcast
