// The embedded English recognizer: CMU pocketsphinx (5prealpha, Debian) with the
// en-us acoustic model, streaming one utterance at a time.
//
// Modes:
//   free   — the general en-us trigram language model (what anyone might say);
//   script — the general model interpolated with a trigram model built from the
//            script's lines in the recognizer's language (asr/script_lm.h), so the
//            scripted sentences win when they are said, while words and phrases
//            off the script (ad-libs) can still be recognized from the general one.
//
// Sharing: a pocketsphinx decoder owns its acoustic model, dictionary and
// language model, and its language-model lookups write history caches, so one
// decoder cannot serve two threads. PocketsphinxModel therefore keeps a pool of
// decoders built from one validated configuration: a session takes an idle one
// (or a new one is loaded, ~0.2 s) and gives it back when it ends, so a model
// loads once per concurrent session, not once per utterance or per session.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "asr/asr_engine.h"
#include "core/logger.h"
#include "core/share_paths.h"

namespace lingcast {

inline constexpr char kPocketsphinxModelDir[] = "/usr/share/pocketsphinx/model/en-us";

struct PocketsphinxOptions {
  Language language = Language::kEn;
  // Folder of the Debian pocketsphinx-en-us package; the three paths below
  // default to its en-us/ (acoustic model), en-us.lm.bin and cmudict-en-us.dict.
  // A bundle's copy first (core/share_paths.h).
  std::string model_dir = SharePath(kPocketsphinxModelDir);
  std::string acoustic_model;
  std::string language_model;
  std::string dictionary;

  // Script mode when set (docs/script-format.md).
  std::string script_path;
  // Interpolation weight of the script model; the general model gets the rest.
  // It weighs probabilities (it is raised to pocketsphinx's language weight
  // before sphinxbase, which interpolates weighted scores, sees it; README).
  // 0.95: an off-script word costs log10(1/0.05) = 1.3 on top of its general-model
  // probability, about one trigram backoff, so ad-libs still come through, while
  // scripted sentences win against a weak acoustic match (bench/asr_bench: no
  // ad-lib of its espeak show heard as a script line at 0.8, 0.95 or 0.99; README).
  float script_weight = 0.95f;

  // pocketsphinx's flat-lexicon second pass (-fwdflat), run by Finish(): it
  // rescores the utterance and is most of the endpoint-to-final latency
  // (bench/asr_bench.cc measures both). Off trades a little accuracy for latency.
  bool second_pass = true;

  // Finish() decodes an utterance a second time, as one block normalized with its
  // own cepstral mean, when the running channel estimate it was streamed with
  // turned out this far (Euclidean distance over the 13 cepstral means) from
  // the utterance's own: mostly a session's first utterance, which starts from
  // the model's initial estimate (shifts of 40-60 there, 3-16 afterwards in our
  // recordings). Costs one extra decode of that utterance at its endpoint;
  // infinity turns it off; negative or NaN is InvalidArgument. (JFK, whole file:
  // free WER 0.68 -> 0.23; script mode on both recordings 0.20 -> 0.00.)
  float redecode_channel_shift = 20.0f;
  // The same check, made early: after this much of an utterance's audio, its
  // own cepstral mean so far is compared with the estimate it is streamed
  // with, and past `redecode_channel_shift` the utterance starts again with
  // its own mean (re-decoding only that much audio). The partials after it are
  // heard on the right channel, and the endpoint seldom needs the whole-utterance
  // re-decode, which cost a session's first line ~1 s of latency in `lingcast
  // live`. The audio so far includes the VAD's pre-roll (300 ms of mostly
  // silence), so less than ~1 s estimates the mean from too little speech.
  // Zero turns it off; negative is InvalidArgument.
  MediaTime early_channel_check = MediaTime::Millis(1000);

  // A least significant bit of noise on the samples decoded (as pocketsphinx's
  // -dither, but from a generator of the session's own: deterministic, and no
  // state shared between threads). Off by default: on espeak-ng's speech, whose
  // pauses are exact zeros, it found one more line of the follow bench's
  // development show, but the held-out show's commit points got worse and JFK
  // streamed through the VAD went from under 0.5 to 0.91 WER (docs/translation.md).
  bool dither = false;

  // Script mode: how many words of the general language model the recognizer
  // searches beside the script's own, the likeliest on their own (unigram
  // probability). The search's cost grows with its vocabulary, and the
  // follower needs the script's words and common speech, not the whole
  // language: at 10,000 (of en-us's 72,000) recognition took less than half
  // the CPU and found more script lines and heard ad-libs no worse
  // (bench/follow_bench; README: "Search vocabulary"). 0 searches every word.
  // Free mode always searches every word: rare words ("concord", "amidst")
  // are what it would lose.
  size_t script_vocabulary = kDefaultScriptVocabulary;
  static constexpr size_t kDefaultScriptVocabulary = 10000;

  // Search settings of the recognizing decoder, as pocketsphinx's own flags
  // ("-lw", "8"): name, value, name, value... For tuning (bench/follow_bench's
  // FOLLOW_BENCH_DECODER); empty leaves pocketsphinx's defaults. A flag it does
  // not know, or a value it cannot read, is InvalidArgument naming it.
  std::vector<std::string> decoder_flags;

  // Beam width (-beam, -pbeam and -wbeam together) of the acoustic check's
  // grammar decode (AsrSession::ScoreAlternatives, AlternativesScorer); 0 keeps
  // the recognizing decoder's (-beam 1e-48, -wbeam 7e-29). The grammar has a few
  // lines, not a vocabulary, so a wide beam costs little, and a line said in a
  // voice the model fits poorly is not dropped before its end (README).
  double alternatives_beam = 0;

  // pocketsphinx's own log (very verbose) goes to stderr when true, nowhere otherwise.
  bool debug_log = false;
  // Warnings (script lines skipped, pronunciations guessed); may be null.
  Logger* logger = nullptr;
};

// What script mode made of the script.
struct ScriptModelInfo {
  int sentences = 0;               // sentences in the script language model
  std::vector<int> skipped_lines;  // script lines in a language the model has no model for
  std::vector<std::string> guessed_words;  // not in the dictionary: pronunciation guessed
};

class PocketsphinxModel : public AsrModel {
 public:
  // Loads and checks everything a session needs (one decoder is built here, so
  // a bad model or script fails now, not in the first session).
  //   FailedPrecondition for --lang zh (no Mandarin model exists for pocketsphinx
  //     in Debian); NotFound naming a missing model file;
  //   script errors as ParseScriptFile gives them; InvalidArgument when the script
  //     has no line in the recognizer's language.
  static absl::StatusOr<std::shared_ptr<PocketsphinxModel>> Load(const PocketsphinxOptions& options);
  ~PocketsphinxModel() override;

  absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const override;
  // In script mode a light decoder that knows only the script's words (about
  // 8 MB against a session's 100): alternatives with other words score nothing.
  absl::StatusOr<std::unique_ptr<AlternativesScorer>> NewAlternativesScorer() const override;
  Language language() const override { return Language::kEn; }
  std::string name() const override;

  bool script_mode() const { return script_mode_; }
  const ScriptModelInfo& script_info() const { return script_info_; }

  class DecoderPool;  // shared with the sessions, which may outlive the model

 private:
  PocketsphinxModel(std::shared_ptr<DecoderPool> pool, bool script_mode, ScriptModelInfo info);

  std::shared_ptr<DecoderPool> pool_;
  bool script_mode_ = false;
  ScriptModelInfo script_info_;
};

}  // namespace lingcast
