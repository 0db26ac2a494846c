#include "asr/pocketsphinx_engine.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "asr/letter_to_sound.h"
#include "asr/pocketsphinx_decoder.h"
#include "asr/pocketsphinx_pool.h"
#include "asr/pocketsphinx_scorer.h"
#include "asr/pocketsphinx_session.h"
#include "asr/script_lm.h"
#include "core/status.h"
#include "text/script.h"

namespace lingcast {
namespace {

using pocketsphinx::Decoder;
using pocketsphinx::KeepDictionaryWords;
using pocketsphinx::LikeliestWords;
using pocketsphinx::LookupWord;
using pocketsphinx::PooledDecoder;
using pocketsphinx::TempFile;

absl::Status CheckFile(const std::string& path, const std::string& what) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat("pocketsphinx ", what, " not found: ", path,
                                            " (install the Debian package pocketsphinx-en-us)"));
  }
  return absl::OkStatus();
}

std::string LinesList(const std::vector<int>& lines) {
  constexpr size_t kShown = 10;
  std::vector<int> shown(lines.begin(), lines.begin() + std::min(lines.size(), kShown));
  return absl::StrCat(absl::StrJoin(shown, ", "), lines.size() > kShown ? ", ..." : "");
}

}  // namespace

absl::Status CheckAsrAudio(const AudioBuffer& pcm) {
  if (pcm.sample_rate != kAsrSampleRate || pcm.channels != 1) {
    return absl::InvalidArgumentError(absl::StrCat("speech recognition takes 16000 Hz mono audio, got ", pcm.sample_rate,
                                                   " Hz with ", pcm.channels, " channel(s)"));
  }
  return absl::OkStatus();
}

PocketsphinxModel::PocketsphinxModel(std::shared_ptr<DecoderPool> pool, bool script_mode, ScriptModelInfo info)
    : pool_(std::move(pool)), script_mode_(script_mode), script_info_(std::move(info)) {}

PocketsphinxModel::~PocketsphinxModel() = default;

std::string PocketsphinxModel::name() const { return script_mode_ ? "pocketsphinx-script" : "pocketsphinx"; }

absl::StatusOr<std::unique_ptr<AsrSession>> PocketsphinxModel::NewSession() const {
  LC_ASSIGN_OR_RETURN(PooledDecoder decoder, pool_->Take());
  auto session = std::make_unique<pocketsphinx::PocketsphinxSession>(pool_, std::move(decoder));
  LC_RETURN_IF_ERROR(session->Start());
  return session;
}

absl::StatusOr<std::unique_ptr<AlternativesScorer>> PocketsphinxModel::NewAlternativesScorer() const {
  LC_ASSIGN_OR_RETURN(Decoder decoder, pool_->BuildScorer());
  return std::make_unique<pocketsphinx::PocketsphinxScorer>(std::move(decoder), pool_->alternatives_beam(),
                                                            pool_->dither());
}

absl::StatusOr<std::shared_ptr<PocketsphinxModel>> PocketsphinxModel::Load(const PocketsphinxOptions& options) {
  if (options.language == Language::kZh) {
    return absl::FailedPreconditionError(
        "no Mandarin (zh) speech recognition model: Debian packages pocketsphinx only with English (pocketsphinx-en-us); "
        "Mandarin needs Whisper (--asr whisper or auto, with its weights installed: docs/models.md)");
  }
  if (!(options.script_weight > 0.0f && options.script_weight < 1.0f)) {
    return absl::InvalidArgumentError(
        absl::StrCat("script weight ", options.script_weight, " is out of range (0 < weight < 1)"));
  }
  if (!(options.redecode_channel_shift >= 0.0f)) {
    return absl::InvalidArgumentError(absl::StrCat("re-decode channel shift ", options.redecode_channel_shift,
                                                   " is out of range (>= 0; infinity turns re-decoding off)"));
  }
  if (options.early_channel_check < MediaTime::Zero()) {
    return absl::InvalidArgumentError(absl::StrCat("early channel check ", options.early_channel_check.ToString(),
                                                   " is out of range (>= 0; 0 turns it off)"));
  }
  DecoderPool::Recipe recipe;
  const std::string dir = options.model_dir;
  recipe.acoustic_model = options.acoustic_model.empty() ? dir + "/en-us" : options.acoustic_model;
  recipe.language_model = options.language_model.empty() ? dir + "/en-us.lm.bin" : options.language_model;
  recipe.dictionary = options.dictionary.empty() ? dir + "/cmudict-en-us.dict" : options.dictionary;
  recipe.debug_log = options.debug_log;
  recipe.second_pass = options.second_pass;
  recipe.early_channel_check = options.early_channel_check;
  recipe.script_weight = options.script_weight;
  recipe.redecode_channel_shift = options.redecode_channel_shift;
  LC_RETURN_IF_ERROR(pocketsphinx::CheckDecoderFlags(options.decoder_flags));
  recipe.decoder_flags = options.decoder_flags;
  if (!(options.alternatives_beam >= 0 && options.alternatives_beam < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("alternatives beam ", options.alternatives_beam,
                                                   " is out of range (0 <= beam < 1; 0 keeps the decoder's)"));
  }
  recipe.alternatives_beam = options.alternatives_beam;
  recipe.dither = options.dither;
  LC_RETURN_IF_ERROR(CheckFile(recipe.acoustic_model + "/mdef", "acoustic model"));
  LC_RETURN_IF_ERROR(CheckFile(recipe.language_model, "language model"));
  LC_RETURN_IF_ERROR(CheckFile(recipe.dictionary, "dictionary"));

  ScriptModelInfo info;
  std::optional<Script> script;
  if (!options.script_path.empty()) {
    LC_ASSIGN_OR_RETURN(script, ParseScriptFile(options.script_path));
  }
  const std::string language_model = recipe.language_model;
  auto pool = std::make_shared<DecoderPool>(std::move(recipe));
  std::set<std::string> vocabulary;  // the script's words
  if (script) {
    const ScriptCorpus corpus = CorpusOf(*script, options.language);
    info.skipped_lines = corpus.skipped_lines;
    info.sentences = static_cast<int>(corpus.sentences.size());
    const std::string lang(LanguageCode(options.language));
    const std::string other = options.language == Language::kEn ? "zh" : "en";
    if (corpus.sentences.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "script ", options.script_path, " has no ", lang, " lines to recognize (",
          corpus.skipped_lines.size(), " ", other, " line(s) skipped: the ", lang, " recognizer has no ", other,
          " model)"));
    }
    if (!corpus.skipped_lines.empty() && options.logger != nullptr) {
      options.logger->Warn("asr", "script lines skipped: the recognizer has no model for their language",
                           {{"script", options.script_path},
                            {"language", other},
                            {"count", absl::StrCat(corpus.skipped_lines.size())},
                            {"lines", LinesList(corpus.skipped_lines)}});
    }
    // Pronunciations for words the dictionary lacks, looked up once here.
    LC_ASSIGN_OR_RETURN(Decoder bare, pool->BuildBare());
    auto lookup = [&](const std::string& word) { return LookupWord(bare.get(), word); };
    for (const auto& sentence : corpus.sentences) vocabulary.insert(sentence.begin(), sentence.end());
    std::map<std::string, std::string> added;
    for (const std::string& word : vocabulary) {
      if (lookup(word)) continue;
      const std::string phones = GuessPronunciation(word, lookup);
      if (phones.empty()) continue;
      added[word] = phones;
      info.guessed_words.push_back(word);
    }
    if (!info.guessed_words.empty() && options.logger != nullptr) {
      options.logger->Warn("asr", "script words not in the dictionary: pronunciations guessed from their spelling",
                           {{"script", options.script_path},
                            {"count", absl::StrCat(info.guessed_words.size())},
                            {"words", absl::StrJoin(info.guessed_words, " ")}});
    }
    // Every pronunciation of the script's words, for the alternatives scorer.
    std::map<std::string, std::string> pronunciations = added;
    for (const std::string& word : vocabulary) {
      if (std::optional<std::string> phones = lookup(word)) pronunciations[word] = *phones;
      for (int variant = 2;; ++variant) {
        const std::string name = absl::StrCat(word, "(", variant, ")");
        std::optional<std::string> phones = lookup(name);
        if (!phones) break;
        pronunciations[name] = *phones;
      }
    }
    LC_ASSIGN_OR_RETURN(TempFile arpa, TempFile::Write(BuildArpa(corpus.sentences)));
    pool->set_script(std::move(arpa), std::move(added), std::move(pronunciations));
  }
  if (script && options.script_vocabulary > 0) {
    LC_ASSIGN_OR_RETURN(std::vector<std::string> likeliest,
                        LikeliestWords(language_model, options.script_vocabulary));
    vocabulary.insert(likeliest.begin(), likeliest.end());
    std::ifstream in(pool->dictionary(), std::ios::binary);
    if (!in.is_open()) return absl::NotFoundError(absl::StrCat("cannot read the dictionary ", pool->dictionary()));
    std::ostringstream text;
    text << in.rdbuf();
    LC_ASSIGN_OR_RETURN(std::string kept, KeepDictionaryWords(text.str(), vocabulary));
    LC_ASSIGN_OR_RETURN(TempFile search_dictionary, TempFile::Write(kept));
    pool->set_search_dictionary(std::move(search_dictionary));
  }
  // Build the first decoder now: a broken model fails here, and the first session starts at once.
  LC_ASSIGN_OR_RETURN(PooledDecoder first, pool->Take());
  pool->Give(std::move(first));
  return std::shared_ptr<PocketsphinxModel>(new PocketsphinxModel(std::move(pool), script.has_value(), std::move(info)));
}

}  // namespace lingcast
