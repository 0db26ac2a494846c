#include "asr/pocketsphinx_scorer.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status.h"

namespace lingcast::pocketsphinx {
namespace {

constexpr char kAlternativesSearch[] = "lingcast-alternatives";
constexpr char kPhoneLoopSearch[] = "lingcast-phone-loop";
// Search scores are log-probabilities in logmath units shifted right by this
// (pocketsphinx's SENSCR_SHIFT, hmm.h), so that they fit 16-bit senone scores.
constexpr int kSenoneScoreShift = 10;

struct Alignment {
  bool aligned = false;
  std::string words;     // the path's words, fillers left out
  int64_t acoustic = 0;  // summed over the path, in search score units
  int frames = 0;
};

// Decodes `pcm` as one block with `search`, in a stream of its own (the front
// end's noise estimate starts afresh; the caller restores the running
// cepstral mean afterwards).
absl::StatusOr<Alignment> Align(ps_decoder_t* ps, const char* search, const std::vector<int16>& pcm) {
  if (ps_set_search(ps, search) < 0 || ps_start_stream(ps) < 0 || ps_start_utt(ps) < 0 ||
      ps_process_raw(ps, pcm.data(), pcm.size(), FALSE, TRUE) < 0 ||
      ps_end_utt(ps) < 0) {
    return absl::InternalError("pocketsphinx failed to decode the utterance against the alternatives");
  }
  Alignment alignment;
  alignment.frames = ps_get_n_frames(ps);
  int32 path_score = 0;
  if (ps_get_hyp(ps, &path_score) == nullptr) return alignment;
  std::vector<std::string> words;
  for (ps_seg_t* seg = ps_seg_iter(ps); seg != nullptr; seg = ps_seg_next(seg)) {
    int32 acoustic = 0, language = 0, backoff = 0;
    ps_seg_prob(seg, &acoustic, &language, &backoff);
    alignment.acoustic += acoustic;
    const char* word = ps_seg_word(seg);
    if (!IsFiller(word)) words.push_back(BaseWord(word));
    alignment.aligned = true;
  }
  alignment.words = absl::StrJoin(words, " ");
  return alignment;
}

// pocketsphinx 5prealpha's phone loop (allphone search) keeps the phone list
// of its last backtrace until the next one, and its search_free never frees
// it: each decoder that ever ran the loop would leave one list behind when
// destroyed (LeakSanitizer: ~1-5 KB of sphinxbase lists per decoder). An
// utterance without audio backtraces to nothing, which frees the list now.
absl::Status ReleasePhoneLoopBacktrace(ps_decoder_t* ps) {
  if (ps_set_search(ps, kPhoneLoopSearch) < 0 || ps_start_utt(ps) < 0 || ps_end_utt(ps) < 0) {
    return absl::InternalError("pocketsphinx could not end an empty utterance of its phone-loop search");
  }
  return absl::OkStatus();
}

// The grammar "one of these word sequences", built as a finite-state grammar
// directly: start --w1--> ... --wn--> final for each alternative, every
// transition of probability 1, the graph the JSGF "( a b ) | ( c d )" gives.
// Not through JSGF: pocketsphinx 5prealpha's JSGF parser leaks 10-16 KB of hash
// tables per grammar, and a live show builds one for every check.
// `ps_set_fsg` adds fillers and alternate pronunciations as it does for JSGF.
// `beam` (when not 0) is the grammar search's -beam, -pbeam and -wbeam: the
// search reads them from the configuration when it is made, so they are set
// for ps_set_fsg and put back at once.
absl::Status SetAlternativesGrammar(ps_decoder_t* ps, const std::vector<std::string>& rules, double beam) {
  std::vector<std::vector<std::string>> sequences;
  int32 states = 2;  // start and final
  for (const std::string& rule : rules) {
    sequences.push_back(absl::StrSplit(rule, ' ', absl::SkipEmpty()));
    states += static_cast<int32>(sequences.back().size()) - 1;
  }
  const float32 language_weight = cmd_ln_float32_r(ps_get_config(ps), "-lw");
  std::unique_ptr<fsg_model_t, decltype(&fsg_model_free)> fsg(
      fsg_model_init(kAlternativesSearch, ps_get_logmath(ps), language_weight, states), &fsg_model_free);
  if (fsg == nullptr) return absl::InternalError("pocketsphinx could not make the grammar of the alternatives");
  fsg->start_state = 0;
  fsg->final_state = 1;
  int32 next_state = 2;
  for (const std::vector<std::string>& words : sequences) {
    int32 from = fsg->start_state;
    for (size_t i = 0; i < words.size(); ++i) {
      const int32 to = i + 1 == words.size() ? fsg->final_state : next_state++;
      fsg_model_trans_add(fsg.get(), from, to, /*logp=*/0, fsg_model_word_add(fsg.get(), words[i].c_str()));
      from = to;
    }
  }
  cmd_ln_t* config = ps_get_config(ps);
  constexpr const char* kBeams[] = {"-beam", "-pbeam", "-wbeam"};
  double decoder_beams[3] = {};
  for (int i = 0; i < 3; ++i) {
    decoder_beams[i] = cmd_ln_float_r(config, kBeams[i]);
    if (beam > 0) cmd_ln_set_float_r(config, kBeams[i], beam);
  }
  // The search holds its own reference to the grammar.
  const int set = ps_set_fsg(ps, kAlternativesSearch, fsg.get());
  for (int i = 0; i < 3; ++i) cmd_ln_set_float_r(config, kBeams[i], decoder_beams[i]);
  if (set < 0) {
    return absl::InternalError("pocketsphinx rejected the grammar of the alternatives");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AlternativesScore> ScoreOnDecoder(ps_decoder_t* ps, const std::vector<int16>& pcm,
                                                 const std::vector<std::string>& alternatives, double beam) {
  if (pcm.empty()) return AlternativesScore{};
  std::vector<std::string> rules;  // the alternatives the dictionary can say, normalized
  std::vector<int> rule_alternative;
  for (size_t i = 0; i < alternatives.size(); ++i) {
    std::vector<std::string> words = absl::StrSplit(alternatives[i], ' ', absl::SkipEmpty());
    const bool known = !words.empty() && std::all_of(words.begin(), words.end(), [&](const std::string& word) {
      return LookupWord(ps, word).has_value();
    });
    if (!known) continue;
    rules.push_back(absl::StrJoin(words, " "));
    rule_alternative.push_back(static_cast<int>(i));
  }
  AlternativesScore score;
  if (rules.empty()) return score;
  LC_RETURN_IF_ERROR(SetAlternativesGrammar(ps, rules, beam));
  // Context-independent phones (about 40 HMMs a frame): a loop of every
  // triphone costs seconds per utterance, and the reference need not be the
  // best possible, only the same for every candidate.
  if (ps_set_search(ps, kPhoneLoopSearch) < 0) {
    cmd_ln_set_boolean_r(ps_get_config(ps), "-allphone_ci", TRUE);
    if (ps_set_allphone(ps, kPhoneLoopSearch, nullptr) < 0) {
      return absl::InternalError("pocketsphinx could not set up its phone-loop search");
    }
  }
  cmn_t* cmn = ps_get_feat(ps)->cmn_struct;
  const std::vector<mfcc_t> running(cmn->cmn_mean, cmn->cmn_mean + cmn->veclen);
  const absl::StatusOr<Alignment> constrained = Align(ps, kAlternativesSearch, pcm);
  // Audio that no alternative aligns with to the grammar's end (most speech
  // that is not a script line) needs no reference: the free decode, the
  // costlier of the two, is skipped.
  const bool reached_an_alternative =
      constrained.ok() && constrained->aligned &&
      std::find(rules.begin(), rules.end(), constrained->words) != rules.end();
  const absl::StatusOr<Alignment> free = reached_an_alternative ? Align(ps, kPhoneLoopSearch, pcm) : Alignment{};
  const absl::Status released = reached_an_alternative ? ReleasePhoneLoopBacktrace(ps) : absl::OkStatus();
  std::copy(running.begin(), running.end(), cmn->cmn_mean);
  LC_RETURN_IF_ERROR(released);
  LC_RETURN_IF_ERROR(constrained.status());
  LC_RETURN_IF_ERROR(free.status());
  if (!constrained->aligned || !free->aligned || free->frames <= 0) return score;
  const auto rule = std::find(rules.begin(), rules.end(), constrained->words);
  if (rule == rules.end()) return score;  // the grammar's end was not reached
  score.best = rule_alternative[static_cast<size_t>(rule - rules.begin())];
  score.frames = free->frames;
  const double nats_per_unit = logmath_log_to_ln(ps_get_logmath(ps), 1) * (1 << kSenoneScoreShift);
  score.gap = static_cast<double>(free->acoustic - constrained->acoustic) * nats_per_unit /
              static_cast<double>(free->frames);
  return score;
}

absl::StatusOr<AlternativesScore> PocketsphinxScorer::Score(const AudioBuffer& audio,
                                                            const std::vector<std::string>& alternatives) {
  LC_RETURN_IF_ERROR(CheckAsrAudio(audio));
  if (audio.samples.size() > kMaxRedecodeSamples) {
    return absl::InvalidArgumentError(absl::StrCat("cannot score ", audio.duration().ToString(),
                                                   " of audio against alternatives (at most a minute)"));
  }
  return ScoreOnDecoder(decoder_.get(), ToPcm16(audio, dither_), alternatives, beam_);
}

}  // namespace lingcast::pocketsphinx
