#include "text/zh_script.h"

#include <opencc/SimpleConverter.hpp>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
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

std::string DefaultOpenccDataDir() { return LINGCAST_OPENCC_DATA_DIR; }

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
  try {
    auto converter = std::make_unique<const opencc::SimpleConverter>(config_path);
    return ZhScriptConverter(target, config_path, std::move(converter));
  } catch (const std::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat("cannot load OpenCC config ", config_path, ": ", e.what(),
                                                      " (reinstall the libopencc-data package)"));
  }
}

ZhScriptConverter::ZhScriptConverter(ZhScript target, std::string config_path,
                                     std::unique_ptr<const opencc::SimpleConverter> converter)
    : target_(target), config_path_(std::move(config_path)), converter_(std::move(converter)) {}

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
  try {
    out += converter_->Convert(std::string(text));
  } catch (const std::exception&) {
    // Not expected on valid UTF-8 (OpenCC throws only on malformed input); the
    // text as written is better than none.
    out.append(text);
  }
}

}  // namespace lingcast
