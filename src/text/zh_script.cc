#include "text/zh_script.h"

#include <opencc/Config.hpp>
#include <opencc/Conversion.hpp>
#include <opencc/ConversionChain.hpp>
#include <opencc/Converter.hpp>
#include <opencc/Dict.hpp>
#include <opencc/DictEntry.hpp>
#include <opencc/DictGroup.hpp>
#include <opencc/Exception.hpp>
#include <opencc/Lexicon.hpp>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <list>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/share_paths.h"
#include "text/utf8.h"

#ifndef LINGCAST_OPENCC_DATA_DIR
#define LINGCAST_OPENCC_DATA_DIR "/usr/share/opencc"
#endif

namespace lingcast {
namespace {

bool HasNonAscii(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

const char* ConfigFileFor(ZhScript target) {
  return target == ZhScript::kSimplified ? "t2s.json" : "s2t.json";
}

// The code point of a one-character UTF-8 string, or nullopt.
std::optional<char32_t> SingleCharacter(std::string_view text) {
  const std::vector<CodePoint> cps = DecodeUtf8(text);
  if (cps.size() != 1 || (cps[0].value == 0xFFFD && cps[0].length == 1)) return std::nullopt;
  return cps[0].value;
}

// What each character the conversion chain's dictionaries have as a key of its
// own becomes when converted alone (through every conversion of the chain, as
// Convert would take it), where that differs from the character.
void LeafDicts(const opencc::DictPtr& dict, std::vector<opencc::DictPtr>& leaves) {
  // A group's own lexicon would be a sorted copy of all of its dictionaries'
  // (STPhrases' 50,000 phrases for s2t): read the dictionaries themselves.
  if (const auto* group = dynamic_cast<const opencc::DictGroup*>(dict.get())) {
    for (const opencc::DictPtr& member : group->GetDicts()) LeafDicts(member, leaves);
  } else {
    leaves.push_back(dict);
  }
}

std::unordered_map<char32_t, char32_t> CharacterTable(const opencc::Converter& converter) {
  std::unordered_map<char32_t, char32_t> table;
  const std::list<opencc::ConversionPtr> conversions = converter.GetConversionChain()->GetConversions();
  std::vector<opencc::DictPtr> dicts;
  for (const opencc::ConversionPtr& conversion : conversions) LeafDicts(conversion->GetDict(), dicts);
  for (const opencc::DictPtr& dict : dicts) {
    const opencc::LexiconPtr lexicon = dict->GetLexicon();
    for (const std::unique_ptr<opencc::DictEntry>& entry : *lexicon) {
      const std::optional<char32_t> key = SingleCharacter(entry->Key());
      if (!key || table.count(*key) > 0) continue;
      std::string converted = entry->Key();
      for (const opencc::ConversionPtr& step : conversions) converted = step->Convert(converted);
      const std::optional<char32_t> value = SingleCharacter(converted);
      if (value && *value != *key) table.emplace(*key, *value);
    }
  }
  return table;
}

}  // namespace

std::string_view ZhScriptName(ZhScript script) {
  return script == ZhScript::kSimplified ? "simplified" : "traditional";
}

absl::StatusOr<ZhScript> ParseZhScript(std::string_view name) {
  if (name == "simplified") return ZhScript::kSimplified;
  if (name == "traditional") return ZhScript::kTraditional;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown Chinese script \"", std::string(name), "\" (use simplified or traditional)"));
}

// A bundle's copy first (core/share_paths.h).
std::string DefaultOpenccDataDir() { return SharePath(LINGCAST_OPENCC_DATA_DIR); }

absl::StatusOr<ZhScriptConverter> ZhScriptConverter::Load(ZhScript target, const std::string& data_dir) {
  const std::string config_path = (std::filesystem::path(data_dir) / ConfigFileFor(target)).string();
  std::error_code error;
  if (!std::filesystem::is_regular_file(config_path, error)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "OpenCC config ", config_path, " not found (", std::string(ZhScriptName(target)),
        " Chinese needs it): install the libopencc-data package (scripts/install-deps.sh does)"));
  }
  // The dictionaries the config names (TSPhrases.ocd2 ...) are found beside it;
  // OpenCC tries the working directory first, so a file of that name there
  // would be taken instead (OpenCC's own rule, Config.cpp).
  std::string failure;
  try {
    opencc::Config config;
    std::shared_ptr<const opencc::Converter> converter = config.NewFromFile(config_path);
    std::unordered_map<char32_t, char32_t> characters = CharacterTable(*converter);
    return ZhScriptConverter(target, config_path, std::move(converter), std::move(characters));
  } catch (const opencc::Exception& e) {  // (not a std::exception)
    failure = e.what();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("cannot load OpenCC config ", config_path, ": ", failure, " (reinstall the libopencc-data package)"));
}

ZhScriptConverter::ZhScriptConverter(ZhScript target, std::string config_path,
                                     std::shared_ptr<const opencc::Converter> converter,
                                     std::unordered_map<char32_t, char32_t> characters)
    : target_(target),
      config_path_(std::move(config_path)),
      converter_(std::move(converter)),
      characters_(std::move(characters)) {}

ZhScriptConverter::ZhScriptConverter(ZhScriptConverter&&) noexcept = default;
ZhScriptConverter& ZhScriptConverter::operator=(ZhScriptConverter&&) noexcept = default;
ZhScriptConverter::~ZhScriptConverter() = default;

std::string ZhScriptConverter::Convert(std::string_view text) const {
  std::string out;
  if (!HasNonAscii(text)) return std::string(text);  // nothing Chinese in it
  if (FindInvalidUtf8(text) < 0 && text.find('\0') == std::string_view::npos) {
    ConvertValid(text, out);
    return out;
  }
  // Convert the stretches between malformed bytes and NULs; copy those as they are.
  out.reserve(text.size());
  size_t stretch = 0;
  for (const CodePoint& cp : DecodeUtf8(text)) {
    const bool malformed = cp.value == 0xFFFD && cp.length == 1;
    if (!malformed && cp.value != 0) continue;
    const size_t at = static_cast<size_t>(cp.offset);
    ConvertValid(text.substr(stretch, at - stretch), out);
    out.append(text.substr(at, static_cast<size_t>(cp.length)));
    stretch = at + static_cast<size_t>(cp.length);
  }
  ConvertValid(text.substr(stretch), out);
  return out;
}

void ZhScriptConverter::ConvertValid(std::string_view text, std::string& out) const {
  if (!HasNonAscii(text)) {
    out.append(text);
    return;
  }
  // Not expected to throw on valid UTF-8 (OpenCC throws on malformed input);
  // the text as written is better than none.
  try {
    out += converter_->Convert(std::string(text));
    return;
  } catch (const opencc::Exception&) {
  } catch (const std::exception&) {
  }
  out.append(text);
}

std::string ZhScriptConverter::ConvertCharacters(std::string_view text) const {
  if (!HasNonAscii(text)) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (const CodePoint& cp : DecodeUtf8(text)) {
    const auto changed = cp.value == 0xFFFD && cp.length == 1 ? characters_.end() : characters_.find(cp.value);
    if (changed == characters_.end()) {
      out.append(text.substr(static_cast<size_t>(cp.offset), static_cast<size_t>(cp.length)));
    } else {
      AppendUtf8(changed->second, out);
    }
  }
  return out;
}

}  // namespace lingcast
