#include "mt/corrections.h"

#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/atomic_file.h"
#include "core/status.h"
#include "mt/glossary.h"
#include "mt/translation_memory.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr char kHeader[] =
    "# lingcast corrections: KIND<TAB>FROM<TAB>TO<TAB>SOURCE<TAB>TARGET (KIND: line or term)\n";

absl::Status CheckField(const std::string& value, const char* name) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat("correction ", name, " is empty"));
  if (value.find_first_of("\t\n\r") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("correction ", name, " contains a tab or a line break"));
  }
  if (FindInvalidUtf8(value) >= 0) return absl::InvalidArgumentError(absl::StrCat("correction ", name, " is not UTF-8"));
  return absl::OkStatus();
}

std::string Serialize(const std::vector<Correction>& corrections) {
  std::string text = kHeader;
  for (const Correction& c : corrections) {
    absl::StrAppend(&text, c.kind == Correction::Kind::kTerm ? "term" : "line", "\t", std::string(LanguageCode(c.from)),
                    "\t", std::string(LanguageCode(c.to)), "\t", c.source, "\t", c.target, "\n");
  }
  return text;
}

void Apply(const Correction& c, TranslationMemory& memory, Glossary* glossary) {
  if (c.kind == Correction::Kind::kLine) {
    memory.Put(TmEntry{c.source, c.target, c.from, c.to, "correction"});
  } else if (glossary != nullptr) {
    const bool zh_first = c.from == Language::kZh;
    glossary->Put(GlossaryTerm{zh_first ? c.source : c.target, zh_first ? c.target : c.source, "correction"});
  }
}

}  // namespace

absl::StatusOr<Correction> CorrectScriptLine(const Script& script, int line_number, Language to,
                                             std::string target) {
  for (const ScriptItem& item : script.items) {
    const ScriptLine* line = std::get_if<ScriptLine>(&item);
    if (line == nullptr || line->line_number != line_number || line->segments.empty()) continue;
    Correction correction;
    correction.from = line->segments.front().language;
    correction.to = to;
    correction.source = line->segments.front().text;
    correction.target = std::move(target);
    return correction;
  }
  return absl::NotFoundError(absl::StrCat(script.filename, " has no spoken line ", line_number,
                                          " to correct (a comment, pause, blank line or past the end)"));
}

absl::StatusOr<CorrectionLog> CorrectionLog::Open(std::string path) {
  CorrectionLog log(std::move(path));
  // A folder or an unreadable file is refused here rather than taken for an empty
  // log: the first correction of the show would then fail, or replace a file whose
  // corrections were never read.
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(log.path_, error);
  if (std::filesystem::is_directory(status)) {
    return absl::InvalidArgumentError(absl::StrCat(log.path_, " is a directory, not a corrections file"));
  }
  std::ifstream in(log.path_, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(status)) return log;  // no corrections yet
    return absl::PermissionDeniedError(absl::StrCat("cannot read the corrections file ", log.path_));
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = absl::StrCat(log.path_, ":", number);
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 5) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected KIND<TAB>FROM<TAB>TO<TAB>SOURCE<TAB>TARGET, found ", fields.size(),
                       " fields"));
    }
    Correction c;
    if (fields[0] == "term") {
      c.kind = Correction::Kind::kTerm;
    } else if (fields[0] != "line") {
      return absl::InvalidArgumentError(absl::StrCat(where, ": kind \"", fields[0], "\" is not line or term"));
    }
    absl::StatusOr<Language> from = ParseLanguage(fields[1]);
    absl::StatusOr<Language> to = ParseLanguage(fields[2]);
    if (!from.ok() || !to.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": languages must be zh or en"));
    }
    c.from = *from;
    c.to = *to;
    c.source = fields[3];
    c.target = fields[4];
    for (const auto& [value, name] : {std::pair{&c.source, "source"}, std::pair{&c.target, "target"}}) {
      if (absl::Status s = CheckField(*value, name); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", std::string(s.message())));
      }
    }
    log.corrections_.push_back(std::move(c));
  }
  return log;
}

void CorrectionLog::ApplyTo(TranslationMemory& memory, Glossary* glossary) const {
  for (const Correction& c : corrections_) Apply(c, memory, glossary);
}

absl::Status CorrectionLog::Record(const Correction& correction, TranslationMemory& memory, Glossary* glossary) {
  LC_RETURN_IF_ERROR(CheckField(correction.source, "source"));
  LC_RETURN_IF_ERROR(CheckField(correction.target, "target"));
  if (correction.kind == Correction::Kind::kTerm && glossary == nullptr) {
    return absl::InvalidArgumentError("a term correction needs a glossary (--glossary)");
  }
  std::vector<Correction> updated = corrections_;
  updated.push_back(correction);
  // Disk first: if the file cannot be written, nothing changes anywhere.
  LC_RETURN_IF_ERROR(WriteFileAtomically(path_, Serialize(updated)));
  corrections_ = std::move(updated);
  Apply(correction, memory, glossary);
  return absl::OkStatus();
}

}  // namespace lingcast
