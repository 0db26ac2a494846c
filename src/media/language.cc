#include "media/language.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace lingcast {

std::string_view LanguageCode(Language lang) { return lang == Language::kZh ? "zh" : "en"; }

absl::StatusOr<Language> ParseLanguage(std::string_view code) {
  const std::string c = absl::AsciiStrToLower(std::string(code));
  if (c == "zh" || c == "cmn" || absl::StartsWith(c, "zh-") || absl::StartsWith(c, "zh_")) return Language::kZh;
  if (c == "en" || absl::StartsWith(c, "en-") || absl::StartsWith(c, "en_")) return Language::kEn;
  return absl::InvalidArgumentError(absl::StrCat("unknown language '", c, "' (expected zh or en)"));
}

}  // namespace lingcast
