#include "asr/pocketsphinx_pool.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {
namespace {

// sphinxbase sends its log to one process-wide FILE* (err_set_logfp), which
// ps_init() also resets from "-logfn". This one object owns that setting and
// serializes decoder construction, so two models loading at once cannot
// interleave their log redirections. No decoder gets "-logfn": ps_init() would
// open that file for each decoder and sphinxbase never closes it once logging
// is switched off (a file per decoder, four per `serve` session), so the log is
// switched with err_set_logfp alone.
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

constexpr char kSearchName[] = "lingcast";

// Flags every recognizing decoder gets from us; PocketsphinxOptions::decoder_flags may not set them.
constexpr const char* kOwnFlags[] = {"-hmm", "-dict", "-lm", "-remove_silence", "-fwdflat", "-logfn"};

// The decoder's configuration: ours, then the caller's search settings
// (already checked by CheckDecoderFlags). Null when pocketsphinx refuses it.
cmd_ln_t* ParseDecoderConfig(const std::string& acoustic_model, const std::string& dictionary, bool second_pass,
                             const std::vector<std::string>& extra) {
  std::vector<const char*> argv = {"lingcast", "-hmm", acoustic_model.c_str(), "-dict", dictionary.c_str(),
                                   "-remove_silence", "no", "-fwdflat", second_pass ? "yes" : "no"};
  for (const std::string& flag : extra) argv.push_back(flag.c_str());
  // cmd_ln_parse_r skips argv[0] and does not write to the strings.
  return cmd_ln_parse_r(nullptr, ps_args(), static_cast<int32>(argv.size()), const_cast<char**>(argv.data()), TRUE);
}

}  // namespace

namespace pocketsphinx {

absl::StatusOr<TempFile> TempFile::Write(const std::string& contents) {
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

TempFile::TempFile(TempFile&& other) noexcept : path_(std::exchange(other.path_, "")) {}

TempFile::~TempFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

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

absl::StatusOr<std::vector<std::string>> LikeliestWords(const std::string& language_model, size_t size) {
  std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
  SphinxRuntime::Get().SetLogging(false);
  // The base only orders the scores; sphinxbase's own default.
  std::unique_ptr<logmath_t, decltype(&logmath_free)> logmath(logmath_init(1.0001, 0, 0), &logmath_free);
  Ngram model(ngram_model_read(nullptr, language_model.c_str(), NGRAM_AUTO, logmath.get()));
  if (!model) return absl::FailedPreconditionError(absl::StrCat("cannot read the language model ", language_model));
  const int32 unigrams = static_cast<int32>(ngram_model_get_counts(model.get())[0]);
  std::vector<std::pair<int32, int32>> scored;  // (log probability, word id)
  scored.reserve(static_cast<size_t>(unigrams));
  for (int32 id = 0; id < unigrams; ++id) {
    const char* word = ngram_word(model.get(), id);
    if (word == nullptr || word[0] == '<') continue;  // <s>, </s>, <UNK>
    int32 order_used = 0;
    scored.emplace_back(ngram_ng_score(model.get(), id, nullptr, 0, &order_used), id);
  }
  // Likeliest first; equal scores in the model's own order, so the cut is the same every run.
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  scored.resize(std::min(scored.size(), size));
  std::vector<std::string> words;
  words.reserve(scored.size());
  for (const auto& [score, id] : scored) words.emplace_back(ngram_word(model.get(), id));
  return words;
}

absl::StatusOr<std::string> KeepDictionaryWords(std::string_view dictionary, const std::set<std::string>& keep) {
  constexpr std::string_view kBlank = " \t\r";
  std::string kept;
  int line_number = 0;
  while (!dictionary.empty()) {
    const size_t end = std::min(dictionary.find('\n'), dictionary.size());
    std::string_view line = dictionary.substr(0, end);
    dictionary.remove_prefix(std::min(end + 1, dictionary.size()));
    ++line_number;
    const size_t word_start = line.find_first_not_of(kBlank);
    if (word_start == std::string_view::npos) continue;
    const size_t word_end = line.find_first_of(kBlank, word_start);
    if (word_end == std::string_view::npos || line.find_first_not_of(kBlank, word_end) == std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("dictionary line ", line_number, " has no phones: '",
                                                     std::string(line.substr(0, 60)), "'"));
    }
    if (keep.count(BaseWord(std::string(line.substr(word_start, word_end - word_start)).c_str())) == 0) continue;
    kept.append(line.substr(0, line.find_last_not_of(kBlank) + 1));  // a CRLF file's \r goes
    kept.push_back('\n');
  }
  return kept;
}

}  // namespace pocketsphinx

using pocketsphinx::Config;
using pocketsphinx::Decoder;
using pocketsphinx::Ngram;
using pocketsphinx::PooledDecoder;

absl::StatusOr<PooledDecoder> PocketsphinxModel::DecoderPool::Take() {
  {
    MutexLock lock(&mu_);
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

void PocketsphinxModel::DecoderPool::Give(PooledDecoder decoder) {
  MutexLock lock(&mu_);
  idle_.push_back(std::move(decoder));
}

absl::StatusOr<Decoder> PocketsphinxModel::DecoderPool::BuildBare() const {
  std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
  return BuildBareLocked(recipe_.dictionary);
}

void PocketsphinxModel::DecoderPool::set_script(pocketsphinx::TempFile arpa,
                                                std::map<std::string, std::string> added_words,
                                                std::map<std::string, std::string> pronunciations) {
  recipe_.script_arpa.emplace(std::move(arpa));
  recipe_.added_words = std::move(added_words);
  recipe_.script_pronunciations = std::move(pronunciations);
}

absl::StatusOr<Decoder> PocketsphinxModel::DecoderPool::BuildScorer() const {
  std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
  if (!recipe_.script_arpa) return BuildBareLocked(recipe_.dictionary);
  SphinxRuntime::Get().SetLogging(recipe_.debug_log);
  // An empty main dictionary (the filler words come from the model's noisedict).
  Config config(cmd_ln_init(nullptr, ps_args(), TRUE, "-hmm", recipe_.acoustic_model.c_str(), "-dict", "/dev/null",
                            "-remove_silence", "no", nullptr));
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

absl::StatusOr<Decoder> PocketsphinxModel::DecoderPool::BuildBareLocked(const std::string& dictionary) const {
  SphinxRuntime::Get().SetLogging(recipe_.debug_log);
  // -remove_silence no: our VAD already cut the audio, and pocketsphinx's own
  // silence removal drops frames, which would shift every word time.
  Config config(ParseDecoderConfig(recipe_.acoustic_model, dictionary, recipe_.second_pass, recipe_.decoder_flags));
  if (!config) return absl::InternalError("pocketsphinx rejected its configuration");
  Decoder decoder(ps_init(config.get()));
  if (!decoder) {
    return absl::FailedPreconditionError(absl::StrCat("cannot load the pocketsphinx model ", recipe_.acoustic_model,
                                                      " with ", dictionary,
                                                      " (run with --log-level debug to see pocketsphinx's log)"));
  }
  return decoder;
}

absl::StatusOr<Decoder> PocketsphinxModel::DecoderPool::Build() const {
  std::lock_guard<std::mutex> lock(SphinxRuntime::Get().mutex());
  LC_ASSIGN_OR_RETURN(Decoder decoder, BuildBareLocked(recipe_.search_dictionary ? recipe_.search_dictionary->path()
                                                                                  : recipe_.dictionary));
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

}  // namespace lingcast
