#include "neural/marian/marian_translator.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "neural/core/status_adapter.h"

namespace lingcast::neural {
namespace {

// "zh", "zho", "cmn", "en", "eng" -> our languages; anything else is unknown.
std::optional<Language> LanguageOfCode(const std::string& code) {
  if (code == "zh" || code == "zho" || code == "cmn" || code == "zh_cn") return Language::kZh;
  if (code == "en" || code == "eng") return Language::kEn;
  return std::nullopt;
}

// The direction tokenizer_config.json declares, checked against the options.
absl::Status CheckDirection(const MarianTranslatorOptions& options) {
  const std::string path = (std::filesystem::path(options.model_dir) / "tokenizer_config.json").string();
  std::ifstream in(path);
  if (!in) return absl::OkStatus();  // not every export writes it
  const nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  for (const auto& [field, wanted] : {std::pair{"source_lang", options.from}, std::pair{"target_lang", options.to}}) {
    if (!config.contains(field) || !config[field].is_string()) continue;
    const std::string code = config[field].get<std::string>();
    const std::optional<Language> declared = LanguageOfCode(code);
    if (declared && *declared != wanted) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", field, " is \"", code, "\" but ",
                                                     std::string(LanguageCode(wanted)),
                                                     " was asked for: this checkpoint translates ",
                                                     config.value("source_lang", std::string("?")), " -> ",
                                                     config.value("target_lang", std::string("?"))));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<MarianTranslator>> MarianTranslator::Create(const MarianTranslatorOptions& options) {
  if (absl::Status direction = CheckDirection(options); !direction.ok()) return direction;
  auto model = CallNeural("loading " + options.model_dir, [&] { return MarianModel::Load(options.model_dir, options.model); });
  if (!model.ok()) return model.status();
  auto tokenizer = CallNeural("loading " + options.model_dir, [&] { return MarianTokenizer::Load(options.model_dir); });
  if (!tokenizer.ok()) return tokenizer.status();
  if (tokenizer->vocab_size() > (*model)->config().vocab_size) {
    return absl::InvalidArgumentError(absl::StrCat(options.model_dir, "/vocab.json has ", tokenizer->vocab_size(),
                                                   " tokens but config.json's vocab_size is ",
                                                   (*model)->config().vocab_size, ": they are from different models"));
  }
  auto translator = std::unique_ptr<MarianTranslator>(new MarianTranslator(options, *std::move(model), *std::move(tokenizer)));
  if (!options.warm_source_lengths.empty()) {
    const auto warmed = CallNeural("warming " + options.model_dir, [&] {
      return translator->model_->WarmBuckets(options.warm_source_lengths, 1, translator->Generation());
    });
    if (!warmed.ok()) return warmed.status();
  }
  return translator;
}

GenerationOptions MarianTranslator::Generation() const {
  GenerationOptions generation = model_->DefaultGenerationOptions();
  if (options_.num_beams) generation.num_beams = *options_.num_beams;
  if (options_.max_new_tokens) generation.max_new_tokens = *options_.max_new_tokens;
  return generation;
}

absl::StatusOr<std::vector<std::string>> MarianTranslator::TranslateBatch(const std::vector<std::string>& sources,
                                                                          std::stop_token stop) {
  if (sources.empty()) return std::vector<std::string>{};
  return CallNeural("translating", [&] {
    std::vector<std::vector<std::int64_t>> encoded;
    std::size_t longest = 0;
    for (const auto& source : sources) {
      encoded.push_back(tokenizer_.Encode(source));
      longest = std::max(longest, encoded.back().size());
    }
    const auto rows = static_cast<std::int64_t>(encoded.size());
    torch::Tensor ids = torch::full({rows, static_cast<std::int64_t>(longest)}, tokenizer_.pad_id(), torch::kLong);
    torch::Tensor mask = torch::zeros({rows, static_cast<std::int64_t>(longest)}, torch::kLong);
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto& row = encoded[static_cast<std::size_t>(r)];
      const auto length = static_cast<std::int64_t>(row.size());
      ids[r].narrow(0, 0, length).copy_(torch::tensor(row, torch::kLong));
      mask[r].narrow(0, 0, length).fill_(1);
    }
    GenerationOptions generation = Generation();
    generation.stop = stop;
    std::vector<std::string> out;
    for (const auto& tokens : model_->Generate(ids, mask, generation)) out.push_back(tokenizer_.Decode(tokens));
    return out;
  });
}

absl::StatusOr<Translation> MarianTranslator::Translate(const TranslationRequest& request, std::stop_token stop,
                                                        const PartialTranslation& on_partial) {
  if (request.from != options_.from || request.to != options_.to) {
    return absl::NotFoundError(absl::StrCat("the marian model translates ", std::string(LanguageCode(options_.from)),
                                            " -> ", std::string(LanguageCode(options_.to)), ", not ",
                                            std::string(LanguageCode(request.from)), " -> ",
                                            std::string(LanguageCode(request.to))));
  }
  auto texts = TranslateBatch({request.source}, stop);
  if (!texts.ok()) return texts.status();
  Translation translation;
  translation.text = texts->front();
  translation.engine = name();
  translation.confidence = 0.5;  // no calibrated estimate yet
  if (on_partial) on_partial(translation.text);
  return translation;
}

}  // namespace lingcast::neural
