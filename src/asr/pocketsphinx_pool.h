// The pocketsphinx decoder pool: the validated recipe every decoder of one model
// is built from (acoustic model, dictionary, general and script language models,
// search flags), and the idle decoders sessions take and give back
// (pocketsphinx_engine.h says why a decoder serves one thread). It also builds the
// light decoders of the acoustic check (pocketsphinx_scorer.h). Internal to src/asr.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "asr/pocketsphinx_decoder.h"
#include "asr/pocketsphinx_engine.h"
#include "core/media_time.h"
#include "core/sync.h"

namespace lingcast {
namespace pocketsphinx {

// A decoder with what a new session resets it to: the live cepstral-mean
// estimate adapts over every utterance it hears, so a decoder coming back to the
// pool remembers its last speaker; a new session starts from the model's initial
// estimate, so two sessions given the same audio give the same result.
struct PooledDecoder {
  Decoder ps;
  std::vector<mfcc_t> initial_cmn;
  // AsrSession::ScoreAlternatives' own decoder, made on its first use and kept
  // with this one (a score leaves nothing behind in it).
  Decoder scorer;
};

// A file that lives as long as this object (the script's ARPA model, read by
// every decoder the pool builds).
class TempFile {
 public:
  // A new file in $TMPDIR (or /tmp) holding `contents`.
  static absl::StatusOr<TempFile> Write(const std::string& contents);
  TempFile(TempFile&& other) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile();
  const std::string& path() const { return path_; }

 private:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// PocketsphinxOptions::decoder_flags: pairs of a flag pocketsphinx knows (and
// we do not set ourselves) and a value of its type.
absl::Status CheckDecoderFlags(const std::vector<std::string>& flags);

// PocketsphinxOptions::vocabulary: the `size` words of the language model at
// `language_model` that are likeliest on their own (unigram probability), in
// that order; fewer when the model has fewer. Sentence marks and <UNK> are not
// words. NotFound / FailedPrecondition when the model cannot be read.
absl::StatusOr<std::vector<std::string>> LikeliestWords(const std::string& language_model, size_t size);

// The lines of a pocketsphinx dictionary (`word phones`, a variant as
// `word(2) phones`) whose word is in `keep`, variants with their word, in
// the order given. Blank lines go; any other line without phones is
// InvalidArgument naming its line number.
absl::StatusOr<std::string> KeepDictionaryWords(std::string_view dictionary, const std::set<std::string>& keep);

}  // namespace pocketsphinx

// Everything needed to build one more decoder, and the idle decoders.
class PocketsphinxModel::DecoderPool {
 public:
  struct Recipe {
    std::string acoustic_model, language_model, dictionary;
    // The recognizing decoder's dictionary when PocketsphinxOptions::vocabulary
    // narrows it (`dictionary` still answers pronunciation lookups).
    std::optional<pocketsphinx::TempFile> search_dictionary;
    bool debug_log = false;
    bool second_pass = true;
    std::optional<pocketsphinx::TempFile> script_arpa;  // script mode
    std::map<std::string, std::string> added_words;  // word -> phones, not in the dictionary
    // Script mode: every pronunciation of every script word ("word(2)" for the
    // second), for the alternatives scorer's own small dictionary.
    std::map<std::string, std::string> script_pronunciations;
    float script_weight = PocketsphinxOptions{}.script_weight;
    float redecode_channel_shift = PocketsphinxOptions{}.redecode_channel_shift;
    MediaTime early_channel_check = PocketsphinxOptions{}.early_channel_check;
    std::vector<std::string> decoder_flags;
    double alternatives_beam = 0;
    bool dither = true;
  };

  explicit DecoderPool(Recipe recipe) : recipe_(std::move(recipe)) {}

  // An idle decoder, or a new one (~0.2 s).
  absl::StatusOr<pocketsphinx::PooledDecoder> Take();
  void Give(pocketsphinx::PooledDecoder decoder);

  float redecode_channel_shift() const { return recipe_.redecode_channel_shift; }
  MediaTime early_channel_check() const { return recipe_.early_channel_check; }
  double alternatives_beam() const { return recipe_.alternatives_beam; }
  bool dither() const { return recipe_.dither; }

  // A decoder with only the acoustic model and dictionary (for pronunciation lookups).
  absl::StatusOr<pocketsphinx::Decoder> BuildBare() const;

  // Called by Load() before the pool is shared; the recipe is read-only afterwards.
  void set_script(pocketsphinx::TempFile arpa, std::map<std::string, std::string> added_words,
                  std::map<std::string, std::string> pronunciations);
  // Called by Load() before the pool is shared: the recognizing decoders'
  // narrowed dictionary (PocketsphinxOptions::vocabulary).
  void set_search_dictionary(pocketsphinx::TempFile dictionary) { recipe_.search_dictionary.emplace(std::move(dictionary)); }
  const std::string& dictionary() const { return recipe_.dictionary; }

  // A decoder for AlternativesScorer. In script mode the alternatives are
  // script lines, so it knows only the script's words and has no language
  // model: about 8 MB where a recognizing decoder takes about 100 in free mode
  // (the dictionary's 135,000 words and the general model's lexicon tree; less
  // in script mode, whose search dictionary is narrowed).
  absl::StatusOr<pocketsphinx::Decoder> BuildScorer() const;

 private:
  // A decoder without a language model, with `dictionary`.
  absl::StatusOr<pocketsphinx::Decoder> BuildBareLocked(const std::string& dictionary) const;
  // A recognizing decoder: the general language model, or in script mode the
  // script's interpolated with it.
  absl::StatusOr<pocketsphinx::Decoder> Build() const;

  Recipe recipe_;
  Mutex mu_;
  std::vector<pocketsphinx::PooledDecoder> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
