// The two languages lingcast speaks.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lingcast {

enum class Language { kZh, kEn };

// "zh" / "en".
std::string_view LanguageCode(Language lang);
// Accepts "zh", "en" (and "cmn", "zh-CN", "en-US" ... by prefix).
absl::StatusOr<Language> ParseLanguage(std::string_view code);

}  // namespace lingcast
