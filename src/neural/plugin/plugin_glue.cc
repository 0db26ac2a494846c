#include "neural/plugin/plugin_glue.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace lingcast::plugin {

void CopyOut(std::string_view text, char* buffer, std::size_t capacity) {
  if (buffer == nullptr || capacity == 0) return;
  const std::size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

lc_status_code Report(const absl::Status& status, lc_status* out) {
  const auto code = static_cast<lc_status_code>(status.code());
  if (out != nullptr) {
    out->code = code;
    CopyOut(std::string(status.message()), out->message, sizeof(out->message));
  }
  return code;
}

absl::Status FromC(lc_status_code code, const lc_status& status) {
  if (code == LC_OK) return absl::OkStatus();
  const std::size_t length = strnlen(status.message, sizeof(status.message));
  return absl::Status(static_cast<absl::StatusCode>(code), std::string(status.message, length));
}

Language FromC(lc_language language) { return language == LC_LANGUAGE_ZH ? Language::kZh : Language::kEn; }
lc_language ToC(Language language) { return language == Language::kZh ? LC_LANGUAGE_ZH : LC_LANGUAGE_EN; }

std::string StringOr(const char* text, const char* fallback) { return text != nullptr ? text : fallback; }

absl::Status CheckStructSize(const void* request, std::uint32_t struct_size, std::size_t needed, const char* what) {
  if (request == nullptr) return absl::InvalidArgumentError(absl::StrCat("no ", what, " given"));
  if (struct_size < needed) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " of ", struct_size, " bytes; this plug-in needs at least ", needed));
  }
  return absl::OkStatus();
}

absl::Status HandOver(const SynthesisResult& result, lc_synthesis_sink sink, void* user) {
  std::vector<lc_phoneme> phonemes;
  phonemes.reserve(result.track.phonemes.size());
  for (const PhonemeEvent& event : result.track.phonemes) {
    phonemes.push_back({event.phoneme.c_str(), event.phoneme.size(), event.start.micros(), event.duration.micros()});
  }
  std::vector<lc_word_boundary> words;
  words.reserve(result.track.words.size());
  for (const WordBoundary& word : result.track.words) {
    words.push_back({word.start.micros(), word.text_offset, word.text_length});
  }
  lc_synthesis part{};
  part.struct_size = sizeof(part);
  part.samples = result.audio.samples.data();
  part.sample_count = result.audio.samples.size();
  part.sample_rate = result.audio.sample_rate;
  part.channels = result.audio.channels;
  part.track_language = ToC(result.track.language);
  part.phonemes = phonemes.data();
  part.phoneme_count = phonemes.size();
  part.words = words.data();
  part.word_count = words.size();
  lc_status status{};
  const lc_status_code code = sink(user, &part, &status);
  return FromC(code, status);
}

}  // namespace lingcast::plugin
