#include "asr/pocketsphinx_engine.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "asr/letter_to_sound.h"
#include "asr/script_lm.h"
#include "core/status.h"
#include "text/script.h"

extern "C" {
#include <pocketsphinx.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/err.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/ngram_model.h>
}

namespace lingcast {
namespace {

struct DecoderFree {
  void operator()(ps_decoder_t* ps) const { ps_free(ps); }
};
struct ConfigFree {
  void operator()(cmd_ln_t* config) const { cmd_ln_free_r(config); }
};
struct NgramFree {
  void operator()(ngram_model_t* lm) const { ngram_model_free(lm); }
};
using Decoder = std::unique_ptr<ps_decoder_t, DecoderFree>;
using Config = std::unique_ptr<cmd_ln_t, ConfigFree>;
using Ngram = std::unique_ptr<ngram_model_t, NgramFree>;

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

// sphinxbase sends its log to one process-wide FILE* (err_set_logfp), which
// ps_init() also resets from "-logfn". This one object owns that setting and
// serializes decoder construction, so two models loading at once cannot
// interleave their log redirections.
class SphinxRuntime {
 public:
  static SphinxRuntime& Get() {
    static SphinxRuntime runtime;
    return runtime;
  }
  std::mutex& mutex() { return mu_; }
  // Call with mutex() held.
  void SetLogging(bool debug) { err_set_logfp(debug ? stderr : nullptr); }

 private:
  std::mutex mu_;
};

// A file that lives as long as this object (the script's ARPA model, read by
// every decoder the pool builds).
class TempFile {
 public:
  static absl::StatusOr<TempFile> Write(const std::string& contents) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = absl::StrCat(dir && *dir ? dir : "/tmp", "/lingcast-script-lm-XXXXXX");
    const int fd = mkstemp(path.data());
    if (fd < 0) {
      return absl::InternalError(absl::StrCat("cannot create a temporary file in ", path, ": ", std::strerror(errno)));
    }
    TempFile file(path);
    size_t written = 0;
    while (written < contents.size()) {
      const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = errno;
        ::close(fd);
        return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(error)));
      }
      written += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
    return file;
  }
  TempFile(TempFile&& other) noexcept : path_(std::exchange(other.path_, "")) {}
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

constexpr char kSearchName[] = "lingcast";
constexpr char kAlternativesSearch[] = "lingcast-alternatives";
constexpr char kPhoneLoopSearch[] = "lingcast-phone-loop";
// Search scores are log-probabilities in logmath units shifted right by this
// (pocketsphinx's SENSCR_SHIFT, hmm.h), so that they fit 16-bit senone scores.
constexpr int kSenoneScoreShift = 10;
constexpr int kFramesPerSecond = 100;  // pocketsphinx's default -frate
constexpr size_t kMaxRedecodeSamples = 60 * kAsrSampleRate;

bool IsFiller(const char* word) { return word[0] == '<' || word[0] == '[' || word[0] == '+'; }

// "read(2)" -> "read": pocketsphinx marks alternative pronunciations.
std::string BaseWord(const char* word) {
  std::string base(word);
  const size_t paren = base.find('(');
  if (paren != std::string::npos && paren > 0) base.resize(paren);
  return base;
}

std::optional<std::string> LookupWord(ps_decoder_t* ps, const std::string& word) {
  char* phones = ps_lookup_word(ps, word.c_str());
  if (phones == nullptr) return std::nullopt;
  std::string out(phones);
  ckd_free(phones);
  return out;
}

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

// Flags every recognizing decoder gets from us; PocketsphinxOptions::decoder_flags may not set them.
constexpr const char* kOwnFlags[] = {"-hmm", "-dict", "-lm", "-remove_silence", "-fwdflat", "-logfn"};

// The decoder's configuration: ours, then the caller's search settings
// (already checked by CheckDecoderFlags). Null when pocketsphinx refuses it.
cmd_ln_t* ParseDecoderConfig(const std::string& acoustic_model, const std::string& dictionary, bool second_pass,
                             bool debug_log, const std::vector<std::string>& extra) {
  std::vector<const char*> argv = {"lingcast", "-hmm", acoustic_model.c_str(), "-dict", dictionary.c_str(),
                                   "-remove_silence", "no", "-fwdflat", second_pass ? "yes" : "no",
                                   "-logfn", debug_log ? "/dev/stderr" : "/dev/null"};
  for (const std::string& flag : extra) argv.push_back(flag.c_str());
  // cmd_ln_parse_r skips argv[0] and does not write to the strings.
  return cmd_ln_parse_r(nullptr, ps_args(), static_cast<int32>(argv.size()), const_cast<char**>(argv.data()), TRUE);
}

// PocketsphinxOptions::decoder_flags: pairs of a flag pocketsphinx knows (and
// we do not set ourselves) and a value of its type.
absl::Status CheckDecoderFlags(const std::vector<std::string>& flags) {
  if (flags.size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat("pocketsphinx decoder flag ", flags.back(), " has no value"));
  }
  const arg_t* known = ps_args();
  for (size_t i = 0; i < flags.size(); i += 2) {
    const std::string& name = flags[i];
    const std::string& value = flags[i + 1];
    if (std::find_if(std::begin(kOwnFlags), std::end(kOwnFlags), [&](const char* own) { return name == own; }) !=
        std::end(kOwnFlags)) {
      return absl::InvalidArgumentError(absl::StrCat("pocketsphinx decoder flag ", name,
                                                     " is set by lingcast itself (its own option)"));
    }
    const arg_t* arg = known;
    while (arg->name != nullptr && name != arg->name) ++arg;
    if (arg->name == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("pocketsphinx has no decoder flag ", name,
                                                     " (see pocketsphinx_continuous -h)"));
    }
    bool readable = !value.empty();
    if (readable && (arg->type & (ARG_INTEGER | ARG_FLOATING))) {
      char* end = nullptr;
      if (arg->type & ARG_INTEGER) {
        (void)std::strtol(value.c_str(), &end, 10);
      } else {
        (void)std::strtod(value.c_str(), &end);
      }
      readable = end != nullptr && *end == '\0';
    } else if (readable && (arg->type & ARG_BOOLEAN)) {
      readable = value == "yes" || value == "no" || value == "true" || value == "false";
    }
    if (!readable) {
      return absl::InvalidArgumentError(absl::StrCat("pocketsphinx decoder flag ", name, " cannot be '", value, "'"));
    }
  }
  return absl::OkStatus();
}

// AsrSession::ScoreAlternatives and AlternativesScorer::Score: two block
// decodes of `pcm` on `ps`, a decoder of their own (never a session's
// recognizing one: the decodes would move its front end's noise estimate,
// and so change what the session hears next). Each decode starts a fresh
// stream, so a score depends on its audio alone, not on what was scored
// before; the running channel estimate is put back afterwards.
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
  std::copy(running.begin(), running.end(), cmn->cmn_mean);
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

// PocketsphinxOptions::dither: a least significant bit of noise on one sample
// in two, so that digital silence (samples of exactly 0) has some energy.
// pocketsphinx's own -dither draws from sphinxbase's one generator for the
// whole process, so two sessions on two threads would race on it and give
// different results; this one belongs to its session (or scorer call) and
// starts from the same seed.
class Dither {
 public:
  explicit Dither(bool on) : on_(on) {}
  int16 operator()(float sample) {
    const long value = std::lround(std::clamp(sample, -1.0f, 1.0f) * 32767.0f);
    if (!on_) return static_cast<int16>(value);
    state_ = state_ * 1664525u + 1013904223u;  // Numerical Recipes' LCG: plenty for noise
    const uint32_t quarter = state_ >> 30;  // the generator's best bits: 0-3
    const long noise = quarter == 0 ? -1 : quarter == 3 ? 1 : 0;
    return static_cast<int16>(std::clamp(value + noise, -32768L, 32767L));
  }

 private:
  bool on_;
  uint32_t state_ = 12345;
};

std::vector<int16> ToPcm16(const AudioBuffer& audio, bool dither) {
  Dither add_dither(dither);
  std::vector<int16> pcm(audio.samples.size());
  for (size_t i = 0; i < pcm.size(); ++i) pcm[i] = add_dither(audio.samples[i]);
  return pcm;
}

}  // namespace

// Everything needed to build one more decoder, and the idle decoders.
class PocketsphinxModel::DecoderPool {
 public:
  struct Recipe {
    std::string acoustic_model, language_model, dictionary;
    bool debug_log = false;
    bool second_pass = true;
    std::optional<TempFile> script_arpa;            // script mode
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

  absl::StatusOr<PooledDecoder> Take() {
    {
      absl::MutexLock lock(&mu_);
      if (!idle_.empty()) {
        PooledDecoder decoder = std::move(idle_.back());
        idle_.pop_back();
        return decoder;
      }
    }
    LC_ASSIGN_OR_RETURN(Decoder decoder, Build());
    const cmn_t* cmn = ps_get_feat(decoder.get())->cmn_struct;
    PooledDecoder pooled{std::move(decoder), {}, nullptr};
    pooled.initial_cmn.assign(cmn->cmn_mean, cmn->cmn_mean + cmn->veclen);
    return pooled;
  }

  float redecode_channel_shift() const { return recipe_.redecode_channel_shift; }
  MediaTime early_channel_check() const { return recipe_.early_channel_check; }
  double alternatives_beam() const { return recipe_.alternatives_beam; }
  bool dither() const { return recipe_.dither; }

  void Give(PooledDecoder decoder) {
    absl::MutexLock lock(&mu_);
    idle_.push_back(std::move(decoder));
  }

  // A decoder with only the acoustic model and dictionary (for pronunciation lookups).
  absl::StatusOr<Decoder> BuildBare() const {
    std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
    return BuildBareLocked();
  }

  // Called by Load() before the pool is shared; the recipe is read-only afterwards.
  void set_script(TempFile arpa, std::map<std::string, std::string> added_words,
                  std::map<std::string, std::string> pronunciations) {
    recipe_.script_arpa.emplace(std::move(arpa));
    recipe_.added_words = std::move(added_words);
    recipe_.script_pronunciations = std::move(pronunciations);
  }

  // A decoder for AlternativesScorer. In script mode the alternatives are
  // script lines, so it knows only the script's words and has no language
  // model: about 8 MB where a recognizing decoder takes about 100 (the
  // dictionary's 135,000 words and the general model's lexicon tree).
  absl::StatusOr<Decoder> BuildScorer() const {
    std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
    if (!recipe_.script_arpa) return BuildBareLocked();
    SphinxRuntime::Get().SetLogging(recipe_.debug_log);
    // An empty main dictionary (the filler words come from the model's noisedict).
    Config config(cmd_ln_init(nullptr, ps_args(), TRUE, "-hmm", recipe_.acoustic_model.c_str(), "-dict", "/dev/null",
                              "-remove_silence", "no", "-logfn", recipe_.debug_log ? "/dev/stderr" : "/dev/null",
                              nullptr));
    if (!config) return absl::InternalError("pocketsphinx rejected its configuration");
    Decoder decoder(ps_init(config.get()));
    if (!decoder) {
      return absl::FailedPreconditionError(absl::StrCat("cannot load the pocketsphinx model ", recipe_.acoustic_model,
                                                        " for scoring alternatives"));
    }
    size_t left = recipe_.script_pronunciations.size();
    for (const auto& [word, phones] : recipe_.script_pronunciations) {
      if (ps_add_word(decoder.get(), word.c_str(), phones.c_str(), --left == 0) < 0) {
        return absl::InternalError(absl::StrCat("pocketsphinx refused the pronunciation '", phones, "' of '", word, "'"));
      }
    }
    return decoder;
  }

 private:
  absl::StatusOr<Decoder> BuildBareLocked() const {
    SphinxRuntime::Get().SetLogging(recipe_.debug_log);
    // -remove_silence no: our VAD already cut the audio, and pocketsphinx's own
    // silence removal drops frames, which would shift every word time.
    Config config(ParseDecoderConfig(recipe_.acoustic_model, recipe_.dictionary, recipe_.second_pass,
                                     recipe_.debug_log, recipe_.decoder_flags));
    if (!config) return absl::InternalError("pocketsphinx rejected its configuration");
    Decoder decoder(ps_init(config.get()));
    if (!decoder) {
      return absl::FailedPreconditionError(absl::StrCat("cannot load the pocketsphinx model ", recipe_.acoustic_model,
                                                        " with ", recipe_.dictionary,
                                                        " (run with --log-level debug to see pocketsphinx's log)"));
    }
    return decoder;
  }

  absl::StatusOr<Decoder> Build() const {
    std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
    LC_ASSIGN_OR_RETURN(Decoder decoder, BuildBareLocked());
    ps_decoder_t* ps = decoder.get();
    cmd_ln_t* config = ps_get_config(ps);
    logmath_t* lmath = ps_get_logmath(ps);
    Ngram general(ngram_model_read(config, recipe_.language_model.c_str(), NGRAM_AUTO, lmath));
    if (!general) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read the language model ", recipe_.language_model));
    }
    Ngram search_lm;
    if (!recipe_.script_arpa) {
      search_lm = std::move(general);
    } else {
      for (const auto& [word, phones] : recipe_.added_words) {
        if (ps_add_word(ps, word.c_str(), phones.c_str(), FALSE) < 0) {
          return absl::InternalError(absl::StrCat("pocketsphinx refused the pronunciation '", phones, "' of '", word, "'"));
        }
      }
      Ngram script(ngram_model_read(config, recipe_.script_arpa->path().c_str(), NGRAM_ARPA, lmath));
      if (!script) return absl::InternalError("pocketsphinx could not read the script's language model");
      ngram_model_t* models[] = {script.get(), general.get()};
      char script_name[] = "script";
      char general_name[] = "general";
      char* names[] = {script_name, general_name};
      // sphinxbase interpolates the submodels' *weighted* scores: log(sum_i
      // lambda_i * P_i^lw * wip), with lambda_i taken as given, not raised to the
      // language weight lw (6.5). Passing the plain weights would make a weight w
      // act like w^(1/lw) (0.8 -> 0.97, and 0.2 -> 0.78 for the general model), so
      // the script would barely count. Raising them to lw makes each hypothesis
      // score max(w * P_script, (1 - w) * P_general)^lw, near enough: the weight
      // means what it says. (The second pass and the lattice use -fwdflatlw 8.5 and
      // -bestpathlw 9.5, under which the same weights are a little weaker.)
      const double lw = cmd_ln_float32_r(config, "-lw");
      const float32 weights[] = {static_cast<float32>(std::pow(recipe_.script_weight, lw)),
                                 static_cast<float32>(std::pow(1.0 - recipe_.script_weight, lw))};
      // The set takes its own references to both models; ours go with `script` and `general`.
      search_lm.reset(ngram_model_set_init(config, models, names, weights, 2));
      if (!search_lm) return absl::InternalError("pocketsphinx could not combine the script and general models");
    }
    // ps_set_lm keeps its own reference; ours is dropped when search_lm goes.
    if (ps_set_lm(ps, kSearchName, search_lm.get()) < 0 || ps_set_search(ps, kSearchName) < 0) {
      return absl::InternalError("pocketsphinx could not set up its language-model search");
    }
    return decoder;
  }

  Recipe recipe_;
  absl::Mutex mu_;
  std::vector<PooledDecoder> idle_ ABSL_GUARDED_BY(mu_);
};

namespace {

class PocketsphinxSession : public AsrSession {
 public:
  // Call Start() before use.
  PocketsphinxSession(std::shared_ptr<PocketsphinxModel::DecoderPool> pool, PooledDecoder decoder)
      : pool_(std::move(pool)),
        pooled_(std::move(decoder)),
        decoder_(pooled_.ps.get()),
        redecode_channel_shift_(pool_->redecode_channel_shift()),
        early_check_samples_(pool_->early_channel_check().micros() * kAsrSampleRate / 1'000'000),
        dither_(pool_->dither()) {}

  ~PocketsphinxSession() override {
    if (utterance_open_) ps_end_utt(decoder_);
    pool_->Give(std::move(pooled_));
  }

  absl::Status Start() {
    // A new stream: frame numbers (word times) count from here, and the channel
    // estimates start from the model's.
    if (ps_start_stream(decoder_) < 0) return absl::InternalError("pocketsphinx could not start a stream");
    // Exactly the state ps_init leaves (cmn_live_set would also give the initial
    // mean the weight of 500 frames, which adapts far slower than a fresh decoder).
    dither_ = Dither(pool_->dither());
    cmn_t* cmn = ps_get_feat(decoder_)->cmn_struct;
    std::copy(pooled_.initial_cmn.begin(), pooled_.initial_cmn.end(), cmn->cmn_mean);
    std::fill(cmn->sum, cmn->sum + cmn->veclen, mfcc_t{0});
    cmn->nframe = 0;
    return absl::OkStatus();
  }

  using AsrSession::AcceptAudio;

  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override {
    LC_RETURN_IF_ERROR(CheckAsrAudio(pcm16k));
    const MediaTime position = this->position();
    // Timestamps computed from sample counts round to whole microseconds.
    constexpr MediaTime kRounding = MediaTime::Millis(1);
    if (pts + kRounding < position) {
      return absl::InvalidArgumentError(absl::StrCat("audio at ", pts.ToString(), " goes back before ",
                                                     position.ToString(), " (the session timeline only moves forward)"));
    }
    if (utterance_open_ && pts > position + kRounding) {
      return absl::InvalidArgumentError(absl::StrCat("audio at ", pts.ToString(), " leaves a gap after ",
                                                     position.ToString(),
                                                     " inside an utterance (call Finish() at the end of speech first)"));
    }
    if (pcm16k.empty()) return absl::OkStatus();
    if (!utterance_open_) {
      if (ps_start_utt(decoder_) < 0) return absl::InternalError("pocketsphinx could not start an utterance");
      utterance_open_ = true;
      utterance_start_ = std::max(pts, position);
      utterance_samples_ = 0;
      utterance_pcm_.clear();
      utterance_too_long_to_redecode_ = false;
      channel_checked_early_ = early_check_samples_ <= 0;
      const cmn_t* cmn = ps_get_feat(decoder_)->cmn_struct;
      decoded_with_cmn_.assign(cmn->cmn_mean, cmn->cmn_mean + cmn->veclen);
    }
    pcm_.resize(pcm16k.samples.size());
    for (size_t i = 0; i < pcm_.size(); ++i) pcm_[i] = dither_(pcm16k.samples[i]);
    // Kept for a re-decode at the end, up to a minute (2 MB); a longer utterance
    // keeps its streamed result.
    if (utterance_pcm_.size() + pcm_.size() <= kMaxRedecodeSamples) {
      utterance_pcm_.insert(utterance_pcm_.end(), pcm_.begin(), pcm_.end());
    } else {
      utterance_too_long_to_redecode_ = true;
      utterance_pcm_ = {};
    }
    if (ps_process_raw(decoder_, pcm_.data(), pcm_.size(), FALSE, FALSE) < 0) {
      return absl::InternalError("pocketsphinx failed to process audio");
    }
    utterance_samples_ += static_cast<int64_t>(pcm_.size());
    if (!channel_checked_early_ && utterance_samples_ >= early_check_samples_) {
      channel_checked_early_ = true;
      LC_RETURN_IF_ERROR(RestartIfTheChannelMoved());
    }
    return absl::OkStatus();
  }

  std::optional<AsrHypothesis> Partial() override {
    if (!utterance_open_) return std::nullopt;
    const char* hyp = ps_get_hyp(decoder_, nullptr);
    if (hyp == nullptr || *hyp == '\0') return std::nullopt;
    AsrHypothesis partial;
    partial.final = false;
    partial.text = hyp;
    partial.start = utterance_start_;
    partial.end = position();
    partial.language = Language::kEn;
    return partial;
  }

  absl::StatusOr<AsrHypothesis> Finish() override {
    AsrHypothesis result;
    result.final = true;
    result.language = Language::kEn;
    if (!utterance_open_) {
      result.start = result.end = position();
      last_utterance_pcm_.clear();
      return result;
    }
    result.start = utterance_start_;
    result.end = position();
    utterance_open_ = false;
    end_ = result.end;
    ps_decoder_t* ps = decoder_;
    if (ps_end_utt(ps) < 0) return absl::InternalError("pocketsphinx failed to finish the utterance");
    LC_RETURN_IF_ERROR(RedecodeIfTheChannelMoved());
    logmath_t* lmath = ps_get_logmath(ps);
    std::vector<std::string> texts;
    // Segment frames count from a stream-wide base that pocketsphinx 5prealpha
    // takes from its front end's frame counter; after a stream's first utterance
    // that base is 10-12 frames behind the frames decoded, so counting them
    // ourselves put JFK's words 100-130 ms early. The path's first segment (<s>)
    // starts at the utterance's first frame: its start is the base, for a
    // re-decode too.
    std::optional<int> first_frame;
    for (ps_seg_t* seg = ps_seg_iter(ps); seg != nullptr; seg = ps_seg_next(seg)) {
      int start_frame = 0, end_frame = 0;
      ps_seg_frames(seg, &start_frame, &end_frame);
      if (!first_frame) first_frame = start_frame;
      start_frame -= *first_frame;
      end_frame -= *first_frame;
      const char* word = ps_seg_word(seg);
      if (IsFiller(word)) continue;
      int32 acoustic = 0, language = 0, backoff = 0;
      const int32 log_posterior = ps_seg_prob(seg, &acoustic, &language, &backoff);
      AsrWord out;
      out.text = BaseWord(word);
      out.start = std::min(result.end, utterance_start_ + MediaTime::Millis(start_frame * 1000 / kFramesPerSecond));
      out.end = std::min(result.end, utterance_start_ + MediaTime::Millis((end_frame + 1) * 1000 / kFramesPerSecond));
      out.confidence = std::clamp(logmath_exp(lmath, log_posterior), 0.0, 1.0);
      texts.push_back(out.text);
      result.words.push_back(std::move(out));
    }
    result.text = absl::StrJoin(texts, " ");
    last_utterance_pcm_ = std::move(utterance_pcm_);
    utterance_pcm_.clear();
    return result;
  }

  // A second look at the last utterance when its words were uncertain: the
  // audio decoded as one block with its own cepstral mean, once constrained to a
  // grammar of the alternatives and once with a free loop of phones. Both
  // alignments see the same features, so the difference of their acoustic
  // scores per frame is a likelihood ratio: how much the best alternative costs
  // over whatever the acoustic model would have preferred.
  absl::StatusOr<AlternativesScore> ScoreAlternatives(const std::vector<std::string>& alternatives) override {
    if (utterance_open_) return absl::FailedPreconditionError("an utterance is open: score alternatives after Finish()");
    if (last_utterance_pcm_.empty()) {
      return absl::FailedPreconditionError("no finished utterance (of at most a minute) to score alternatives against");
    }
    if (!pooled_.scorer) {
      LC_ASSIGN_OR_RETURN(pooled_.scorer, pool_->BuildScorer());
    }
    return ScoreOnDecoder(pooled_.scorer.get(), last_utterance_pcm_, alternatives, pool_->alternatives_beam());
  }


  // Streaming, pocketsphinx normalizes each utterance with the cepstral mean of
  // the utterances before it (the model's initial estimate for a session's first),
  // and updates that estimate at the utterance's end. When the estimate moved a
  // lot, the utterance was decoded on the wrong channel: its first words are
  // mostly lost (JFK's "and so my fellow americans" comes out "and are are"). Then
  // the final comes from decoding the utterance again as one block, normalized
  // with its own mean. This happens mostly for a session's first utterance (a
  // shift of 40-60 there, 3-16 after it, in our recordings), so it costs one
  // extra decode per session, not per utterance.
  absl::Status RedecodeIfTheChannelMoved() {
    ps_decoder_t* ps = decoder_;
    cmn_t* cmn = ps_get_feat(ps)->cmn_struct;
    double shift = 0;
    for (int i = 0; i < cmn->veclen; ++i) {
      const double d = cmn->cmn_mean[i] - decoded_with_cmn_[i];
      shift += d * d;
    }
    if (std::sqrt(shift) <= redecode_channel_shift_ || utterance_pcm_.empty() || utterance_too_long_to_redecode_) {
      return absl::OkStatus();
    }
    // Block decoding computes the utterance's own mean into cmn_mean; the running
    // estimate for the utterances that follow is kept as streaming left it.
    const std::vector<mfcc_t> running(cmn->cmn_mean, cmn->cmn_mean + cmn->veclen);
    const bool ok = ps_start_utt(ps) >= 0 &&
                    ps_process_raw(ps, utterance_pcm_.data(), utterance_pcm_.size(), FALSE, TRUE) >= 0 &&
                    ps_end_utt(ps) >= 0;
    std::copy(running.begin(), running.end(), cmn->cmn_mean);
    if (!ok) return absl::InternalError("pocketsphinx failed to decode the utterance again");
    return absl::OkStatus();
  }

  // PocketsphinxOptions::early_channel_check: the utterance so far normalized
  // with its own mean when the estimate it is streamed with is far from it.
  absl::Status RestartIfTheChannelMoved() {
    ps_decoder_t* ps = decoder_;
    cmn_t* cmn = ps_get_feat(ps)->cmn_struct;
    if (cmn->nframe <= 0 || utterance_pcm_.empty() || utterance_too_long_to_redecode_) return absl::OkStatus();
    // cmn_live sums the frames before normalizing them: sum / nframe is the
    // mean of the frames seen since the stream's start (or the last window shift).
    std::vector<mfcc_t> own(static_cast<size_t>(cmn->veclen));
    double shift = 0;
    for (int i = 0; i < cmn->veclen; ++i) {
      own[static_cast<size_t>(i)] = cmn->sum[i] / static_cast<mfcc_t>(cmn->nframe);
      const double d = own[static_cast<size_t>(i)] - decoded_with_cmn_[static_cast<size_t>(i)];
      shift += d * d;
    }
    if (std::sqrt(shift) <= redecode_channel_shift_) return absl::OkStatus();
    // The frames are counted into the running estimate once: the sums are put
    // back after the restart's own end and after the audio is fed again.
    const std::vector<mfcc_t> sum(cmn->sum, cmn->sum + cmn->veclen);
    const int32 nframe = cmn->nframe;
    auto restore_sums = [&] {
      std::copy(sum.begin(), sum.end(), cmn->sum);
      cmn->nframe = nframe;
    };
    if (ps_end_utt(ps) < 0) return absl::InternalError("pocketsphinx failed to end the utterance to restart it");
    restore_sums();
    std::copy(own.begin(), own.end(), cmn->cmn_mean);
    decoded_with_cmn_ = own;
    if (ps_start_utt(ps) < 0 || ps_process_raw(ps, utterance_pcm_.data(), utterance_pcm_.size(), FALSE, FALSE) < 0) {
      return absl::InternalError("pocketsphinx failed to restart the utterance");
    }
    restore_sums();
    return absl::OkStatus();
  }

  MediaTime position() const override {
    return utterance_open_ ? utterance_start_ + MediaTime::FromSamples(utterance_samples_, kAsrSampleRate) : end_;
  }

 private:
  std::shared_ptr<PocketsphinxModel::DecoderPool> pool_;
  PooledDecoder pooled_;
  ps_decoder_t* decoder_;  // pooled_.ps
  bool utterance_open_ = false;
  MediaTime utterance_start_;
  int64_t utterance_samples_ = 0;
  MediaTime end_;  // position when no utterance is open
  std::vector<int16> pcm_;
  const float redecode_channel_shift_;
  const int64_t early_check_samples_;  // 0: no early check
  bool channel_checked_early_ = true;  // for the open utterance
  std::vector<int16> utterance_pcm_;     // the open utterance, for RedecodeIfTheChannelMoved()
  std::vector<int16> last_utterance_pcm_;  // the last finished one, for ScoreAlternatives()
  bool utterance_too_long_to_redecode_ = false;
  std::vector<mfcc_t> decoded_with_cmn_;  // the cepstral mean it is being normalized with
  Dither dither_;  // every sample the session decodes (and keeps to decode again) has it
};

class PocketsphinxScorer : public AlternativesScorer {
 public:
  PocketsphinxScorer(Decoder decoder, double beam, bool dither)
      : decoder_(std::move(decoder)), beam_(beam), dither_(dither) {}

  absl::StatusOr<AlternativesScore> Score(const AudioBuffer& audio,
                                          const std::vector<std::string>& alternatives) override {
    LC_RETURN_IF_ERROR(CheckAsrAudio(audio));
    if (audio.samples.size() > kMaxRedecodeSamples) {
      return absl::InvalidArgumentError(absl::StrCat("cannot score ", audio.duration().ToString(),
                                                     " of audio against alternatives (at most a minute)"));
    }
    return ScoreOnDecoder(decoder_.get(), ToPcm16(audio, dither_), alternatives, beam_);
  }

 private:
  Decoder decoder_;
  double beam_;  // PocketsphinxOptions::alternatives_beam
  bool dither_;   // PocketsphinxOptions::dither
};

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
  auto session = std::make_unique<PocketsphinxSession>(pool_, std::move(decoder));
  LC_RETURN_IF_ERROR(session->Start());
  return session;
}

absl::StatusOr<std::unique_ptr<AlternativesScorer>> PocketsphinxModel::NewAlternativesScorer() const {
  LC_ASSIGN_OR_RETURN(Decoder decoder, pool_->BuildScorer());
  return std::make_unique<PocketsphinxScorer>(std::move(decoder), pool_->alternatives_beam(), pool_->dither());
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
  LC_RETURN_IF_ERROR(CheckDecoderFlags(options.decoder_flags));
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
  auto pool = std::make_shared<DecoderPool>(std::move(recipe));
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
    std::set<std::string> vocabulary;
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
  // Build the first decoder now: a broken model fails here, and the first session starts at once.
  LC_ASSIGN_OR_RETURN(PooledDecoder first, pool->Take());
  pool->Give(std::move(first));
  return std::shared_ptr<PocketsphinxModel>(new PocketsphinxModel(std::move(pool), script.has_value(), std::move(info)));
}

}  // namespace lingcast
