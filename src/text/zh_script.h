// Traditional <-> Simplified Chinese characters, by OpenCC (Debian's libopencc1.1;
// its configs and dictionaries come from libopencc-data, in /usr/share/opencc).
//
// Whisper writes Mandarin mostly in Traditional characters (甚至出現交易幾乎停滯的情況)
// and a mainland audience reads Simplified; a host's script may be in either. The
// converter is loaded once by whoever needs it (a recognizer, a translation
// memory, a script follower) and shared between sessions:
//
//   LC_ASSIGN_OR_RETURN(ZhScriptConverter to_simplified, ZhScriptConverter::Load(ZhScript::kSimplified));
//   to_simplified.Convert("喜歡的話記得點個關注");  // "喜欢的话记得点个关注"
//
// OpenCC converts phrase by phrase where its dictionaries know the phrase (頭髮 ->
// 头发, 乾隆 stays) and character by character elsewhere; text that is already in
// the target script, Latin letters, digits and punctuation come back as they were.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/statusor.h"

namespace opencc {
class Converter;
}  // namespace opencc

namespace lingcast {

enum class ZhScript { kSimplified, kTraditional };

// "simplified" / "traditional".
std::string_view ZhScriptName(ZhScript script);
// "simplified" or "traditional"; InvalidArgument for anything else, e.g.
// `unknown Chinese script "cursive" (use simplified or traditional)`.
absl::StatusOr<ZhScript> ParseZhScript(std::string_view name);

// Where the configs are looked for: the data directory of the OpenCC that this
// build linked (pkg-config opencc: PREFIX/share/opencc).
std::string DefaultOpenccDataDir();

class ZhScriptConverter {
 public:
  // Loads OpenCC's config for writing `target`: t2s.json for Simplified, s2t.json
  // for Traditional, from `data_dir`. A missing config is FailedPrecondition
  // naming the file and the package that provides it (libopencc-data); a config
  // OpenCC cannot read is FailedPrecondition with OpenCC's reason.
  static absl::StatusOr<ZhScriptConverter> Load(ZhScript target, const std::string& data_dir = DefaultOpenccDataDir());

  ZhScriptConverter(ZhScriptConverter&&) noexcept;
  ZhScriptConverter& operator=(ZhScriptConverter&&) noexcept;
  ~ZhScriptConverter();

  // `text` written in the target script. Any text is taken: malformed UTF-8 and
  // NUL bytes are copied as they are and the text around them converted (OpenCC
  // itself reads past the end of a truncated UTF-8 sequence and stops at a NUL).
  //
  // Thread-safe: many threads may convert at once with one converter, no lock.
  // OpenCC's conversion only reads what was loaded: Converter::Convert is const,
  // and every call makes its own segments and its own marisa-trie agents
  // (OpenCC 1.1.6: Converter.cpp, MaxMatchSegmentation.cpp, Conversion.cpp,
  // MarisaDict.cpp); marisa tries are safe for concurrent lookups with separate
  // agents. ZhScriptTest.ConvertsFromManyThreadsAtOnce exercises it.
  std::string Convert(std::string_view text) const;

  // Character by character, without phrases: each character becomes what it
  // becomes alone (乾隆 -> 干隆), whatever surrounds it. For matching, where two
  // texts must fold alike: a line and the first half of it heard, or a phrase
  // the dictionaries know and its characters said apart. A table lookup per
  // character, built at Load from the dictionaries' one-character entries (OpenCC
  // itself costs ~1 us a character here). Thread-safe.
  std::string ConvertCharacters(std::string_view text) const;

  ZhScript target() const { return target_; }
  // The config that was loaded ("/usr/share/opencc/t2s.json").
  const std::string& config_path() const { return config_path_; }

 private:
  ZhScriptConverter(ZhScript target, std::string config_path, std::shared_ptr<const opencc::Converter> converter,
                    std::unordered_map<char32_t, char32_t> characters);
  // OpenCC on one stretch of valid UTF-8 without NUL bytes.
  void ConvertValid(std::string_view text, std::string& out) const;

  ZhScript target_;
  std::string config_path_;
  std::shared_ptr<const opencc::Converter> converter_;
  std::unordered_map<char32_t, char32_t> characters_;  // what each character becomes alone, where it changes
};

}  // namespace lingcast
