// MarianTranslator: a Marian (OPUS-MT) checkpoint behind lingcast's Translator
// interface. One checkpoint translates one direction (opus-mt-zh-en: zh -> en);
// a request for another direction is NotFound, so a TranslatorChain asks the next
// engine. The model is loaded once; Translate() may be called from several threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "media/language.h"
#include "mt/translator.h"
#include "neural/marian/marian_model.h"
#include "neural/marian/marian_tokenizer.h"

namespace lingcast::neural {

struct MarianTranslatorOptions {
  std::string model_dir;
  // The direction; when tokenizer_config.json names source_lang/target_lang they
  // must agree (InvalidArgument otherwise).
  Language from = Language::kZh;
  Language to = Language::kEn;
  std::optional<int> num_beams;       // default: the checkpoint's generation config
  std::optional<int> max_new_tokens;  // default: the checkpoint's max_length - 1
  ModelOptions model;
  // On CUDA with greedy decoding, Create decodes a placeholder line of each of
  // these source lengths' buckets (MarianModel::WarmBuckets), so a line of a
  // warmed bucket never pays its first call; nothing on the CPU or with beams.
  // Empty: no warming.
  std::vector<std::int64_t> warm_source_lengths = MarianModel::DefaultWarmSourceLengths();
};

class MarianTranslator : public Translator {
 public:
  // Loads config, weights and tokenizer; every problem is one line naming the file
  // (NotFound, InvalidArgument).
  static absl::StatusOr<std::unique_ptr<MarianTranslator>> Create(const MarianTranslatorOptions& options);

  std::string name() const override { return "marian"; }
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                        const PartialTranslation& on_partial = {}) override;

  // Several lines in one batch (padded together): faster than one by one.
  absl::StatusOr<std::vector<std::string>> TranslateBatch(const std::vector<std::string>& sources,
                                                          std::stop_token stop = {});

 private:
  MarianTranslator(MarianTranslatorOptions options, std::shared_ptr<const MarianModel> model, MarianTokenizer tokenizer)
      : options_(std::move(options)), model_(std::move(model)), tokenizer_(std::move(tokenizer)) {}

  GenerationOptions Generation() const;  // the checkpoint's, with options_ applied

  MarianTranslatorOptions options_;
  std::shared_ptr<const MarianModel> model_;
  MarianTokenizer tokenizer_;
};

}  // namespace lingcast::neural
