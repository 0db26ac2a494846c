// asr_bench: speech recognition figures on the real English recordings of
// ../shared/data/speech, through the path `lingcast asr` takes (VAD utterances
// -> one pocketsphinx session per recording):
//   * word error rate, free mode vs script mode (the script holds the reference
//     sentences among a dozen distractor lines, asr/asr_test_data.h);
//   * real-time factor (recognizer CPU time / audio duration), and script mode's
//     as a ratio to free mode's, the reference measured in the same run;
//   * latency from the VAD endpoint to the final hypothesis: the CPU and wall time
//     of Finish() per utterance, p50/p95 over every utterance of every run;
//   * a synthetic live-commerce show: ten script lines and four ad-libs spoken by
//     espeak-ng (en-gb), recognized in one session: WER on the script lines, WER on
//     the ad-libs, and how many ad-libs came out as (nearly) a script line — what
//     the script follower would then take for that line (bad).
// Prints figures; never fails on time.
//
// usage: asr_bench [RUNS (default 5)] [SCRIPT_WEIGHT ...]   (several weights: a sweep)
//   LINGCAST_ASR_BENCH_SWEEP=1 in the environment: only the script modes of the
//   weights given (a faster sweep; RTF/free is then against the first of them).
//   LINGCAST_ASR_BENCH_DECODER="-remove_noise no": pocketsphinx search and front-end
//   flags for every mode (PocketsphinxOptions::decoder_flags).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "asr/asr_test_data.h"
#include "asr/pocketsphinx_engine.h"
#include "asr/word_error_rate.h"
#include "audio/audio_decoder.h"
#include "audio/resampler.h"
#include "audio/vad.h"
#include "core/status.h"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct ModeFigures {
  WordErrors errors;          // over the recordings of one run
  double recognizer_cpu = 0;  // AcceptAudio + Finish, all runs
  double audio_seconds = 0;   // all runs
  std::vector<double> finish_cpu_ms, finish_wall_ms;  // one per utterance, all runs
  // The same for the utterances after a session's first (which is usually decoded
  // again at its end: PocketsphinxOptions::redecode_channel_shift).
  std::vector<double> later_finish_cpu_ms;
  std::vector<std::string> texts;                     // per recording, first run
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t index = std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5));
  return values[index];
}

bool RunRecording(const AsrModel& model, const AudioBuffer& audio, ModeFigures& figures, std::string& text,
                  std::vector<AsrHypothesis>* finals = nullptr) {
  absl::StatusOr<VoiceActivityDetector> vad = VoiceActivityDetector::Create();
  absl::StatusOr<std::unique_ptr<AsrSession>> session = model.NewSession();
  if (!vad.ok() || !session.ok()) {
    std::fprintf(stderr, "asr_bench: %s\n", std::string((vad.ok() ? session.status() : vad.status()).message()).c_str());
    return false;
  }
  int utterances = 0;
  auto handle = [&](const VadEvent& event) {
    if (event.type == VadEvent::Type::kSpeechAudio) {
      const double cpu = ThreadCpuSeconds();
      if (!(*session)->AcceptAudio(event.audio, event.audio_start).ok()) return false;
      figures.recognizer_cpu += ThreadCpuSeconds() - cpu;
    } else if (event.type == VadEvent::Type::kSpeechEnd) {
      const double cpu = ThreadCpuSeconds(), wall = WallSeconds();
      absl::StatusOr<AsrHypothesis> final = (*session)->Finish();
      const double cpu_spent = ThreadCpuSeconds() - cpu;
      figures.finish_wall_ms.push_back((WallSeconds() - wall) * 1000);
      figures.finish_cpu_ms.push_back(cpu_spent * 1000);
      if (utterances++ > 0) figures.later_finish_cpu_ms.push_back(cpu_spent * 1000);
      figures.recognizer_cpu += cpu_spent;
      if (!final.ok()) return false;
      if (!final->text.empty()) text += (text.empty() ? "" : " ") + final->text;
      if (finals != nullptr && !final->text.empty()) finals->push_back(*final);
    }
    return true;
  };
  // 100 ms pieces, as a live input or `lingcast asr` delivers them.
  const size_t piece = kAsrSampleRate / 10;
  for (size_t begin = 0; begin < audio.samples.size(); begin += piece) {
    AudioBuffer chunk{kAsrSampleRate, 1, {}};
    chunk.samples.assign(audio.samples.begin() + begin,
                         audio.samples.begin() + std::min(audio.samples.size(), begin + piece));
    absl::StatusOr<std::vector<VadEvent>> events = vad->Push(chunk);
    if (!events.ok()) return false;
    for (const VadEvent& event : *events) {
      if (!handle(event)) return false;
    }
  }
  for (const VadEvent& event : vad->Flush()) {
    if (!handle(event)) return false;
  }
  figures.audio_seconds += audio.duration().seconds();
  return true;
}


// The synthetic show: what the host reads (the script) and what it says off script.
constexpr const char* kShowScriptLines[] = {
    "Welcome to the live room everyone",
    "Today we have a very special face cream for you",
    "This dress comes in red and in black",
    "Click the link below to buy it now",
    "Do not forget to follow our channel",
    "The price today is only twenty nine dollars",
    "Every order ships free within two days",
    "This phone case is made of soft silicone",
    "We only have fifty pieces left in stock",
    "Thank you all for watching tonight",
};
constexpr const char* kShowAdLibs[] = {
    "The weather outside is terrible, I almost missed my bus",
    "My cat knocked a glass off the table this morning",
    "Can someone in the chat tell me where you are watching from",
    "I need a drink of water before we continue",
};

struct SpokenSentence {
  std::string text;
  bool scripted = false;
  MediaTime start, end;  // on the show's timeline
};

struct Show {
  AudioBuffer audio{kAsrSampleRate, 1, {}};
  std::vector<SpokenSentence> sentences;
};

// Every sentence (script lines in an order the host might take, ad-libs in
// between) spoken by espeak-ng en-gb, resampled to 16 kHz, with a second of
// silence after each (the VAD's endpoint).
absl::StatusOr<Show> SpeakShow() {
  EspeakOptions espeak;
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path lexicon = exe.parent_path().parent_path() / "data" / "zh_lexicon.tsv";
  if (std::filesystem::exists(lexicon)) espeak.lexicon_path = lexicon.string();
  LC_ASSIGN_OR_RETURN(std::unique_ptr<EspeakEngine> engine, EspeakEngine::Create(espeak));
  std::vector<SpokenSentence> order;
  const size_t lines = std::size(kShowScriptLines), ad_libs = std::size(kShowAdLibs);
  for (size_t i = 0; i < lines; ++i) {
    order.push_back({kShowScriptLines[i], true, {}, {}});
    // An ad-lib after every second line, up to four.
    if (i % 2 == 1 && (i / 2) < ad_libs) order.push_back({kShowAdLibs[i / 2], false, {}, {}});
  }
  Show show;
  show.audio.samples.resize(kAsrSampleRate / 2, 0.0f);
  for (SpokenSentence& sentence : order) {
    SynthesisRequest request;
    request.text = sentence.text;
    request.language = Language::kEn;
    request.voice = "en-gb";
    LC_ASSIGN_OR_RETURN(SynthesisResult speech, engine->Synthesize(request));
    LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(speech.audio.sample_rate, kAsrSampleRate));
    std::vector<float> converted;
    LC_RETURN_IF_ERROR(resampler.Push(speech.audio.samples, converted));
    LC_RETURN_IF_ERROR(resampler.Flush(converted));
    sentence.start = MediaTime::FromSamples(static_cast<int64_t>(show.audio.samples.size()), kAsrSampleRate);
    show.audio.samples.insert(show.audio.samples.end(), converted.begin(), converted.end());
    sentence.end = MediaTime::FromSamples(static_cast<int64_t>(show.audio.samples.size()), kAsrSampleRate);
    show.audio.samples.resize(show.audio.samples.size() + kAsrSampleRate, 0.0f);
    show.sentences.push_back(std::move(sentence));
  }
  return show;
}

struct ShowFigures {
  WordErrors script_errors, ad_lib_errors;
  int script_exact = 0, script_lines = 0;
  int script_followed = 0;  // heard close enough for the follower to take the line
  int ad_libs_forced = 0, ad_libs = 0;
  std::vector<std::string> texts;  // per sentence
};

// Whole-line similarity as the script follower scores a final: 1 - WER of the
// heard words against the line.
double BestLineSimilarity(const std::string& heard) {
  double best = 0;
  for (const char* line : kShowScriptLines) best = std::max(best, 1.0 - CountWordErrors(line, heard).rate());
  return best;
}

// The follower takes a final for a line at similarity >= 0.6 (FollowerConfig::final_quality).
constexpr double kForcedSimilarity = 0.6;

bool RunShow(const AsrModel& model, const Show& show, ShowFigures& figures) {
  ModeFigures ignored;
  std::string all;
  std::vector<AsrHypothesis> finals;
  if (!RunRecording(model, show.audio, ignored, all, &finals)) return false;
  for (const SpokenSentence& sentence : show.sentences) {
    std::string heard;
    for (const AsrHypothesis& final : finals) {
      const MediaTime middle = MediaTime::Micros((final.start.micros() + final.end.micros()) / 2);
      if (middle >= sentence.start && middle < sentence.end + MediaTime::Millis(500)) {
        heard += (heard.empty() ? "" : " ") + final.text;
      }
    }
    const WordErrors errors = CountWordErrors(sentence.text, heard);
    if (sentence.scripted) {
      figures.script_errors += errors;
      ++figures.script_lines;
      if (errors.errors() == 0) ++figures.script_exact;
      if (1.0 - errors.rate() >= kForcedSimilarity) ++figures.script_followed;
    } else {
      figures.ad_lib_errors += errors;
      ++figures.ad_libs;
      if (BestLineSimilarity(heard) >= kForcedSimilarity) ++figures.ad_libs_forced;
    }
    figures.texts.push_back(heard);
  }
  return true;
}

int Main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<float> weights;
  for (int i = 2; i < argc; ++i) weights.push_back(static_cast<float>(std::atof(argv[i])));
  if (weights.empty()) weights.push_back(PocketsphinxOptions{}.script_weight);

  std::vector<const SpeechRecording*> recordings;
  std::vector<AudioBuffer> audio;
  for (const SpeechRecording* recording : {&kJfk, &kLibri}) {
    const std::string path = SpeechPath(recording->file);
    if (!std::filesystem::exists(path)) {
      std::printf("asr_bench: %s\n", NoDataMessage(path).c_str());
      continue;
    }
    absl::StatusOr<AudioBuffer> decoded = DecodeAudioFile(path, kAsrSampleRate);
    if (!decoded.ok()) {
      std::fprintf(stderr, "asr_bench: %s\n", std::string(decoded.status().message()).c_str());
      return 1;
    }
    recordings.push_back(recording);
    audio.push_back(std::move(*decoded));
  }
  if (recordings.empty()) return 0;

  const std::string script_path = (std::filesystem::temp_directory_path() / "lingcast-asr-bench-script.txt").string();
  std::ofstream(script_path) << ScriptWithReferences();
  const std::string show_script_path =
      (std::filesystem::temp_directory_path() / "lingcast-asr-bench-show-script.txt").string();
  {
    std::ofstream show_script(show_script_path);
    for (const char* line : kShowScriptLines) show_script << line << "\n";
  }
  absl::StatusOr<Show> show = SpeakShow();
  if (!show.ok()) {
    std::fprintf(stderr, "asr_bench: cannot synthesize the show: %s\n", std::string(show.status().message()).c_str());
    return 1;
  }

  struct Mode {
    std::string name;
    PocketsphinxOptions options;
    ModeFigures figures;
    ShowFigures show;
  };
  const bool sweep = std::getenv("LINGCAST_ASR_BENCH_SWEEP") != nullptr;
  std::vector<Mode> modes;
  if (!sweep) modes = {{"free", {}, {}, {}}, {"free 1-pass", {.second_pass = false}, {}, {}}};
  for (float weight : weights) {
    char name[32];
    std::snprintf(name, sizeof name, "script w=%.2f", weight);
    modes.push_back({name, {.script_path = script_path, .script_weight = weight}, {}, {}});
  }
  if (!sweep) modes.push_back({"script 1-pass", {.script_path = script_path, .second_pass = false}, {}, {}});

  std::printf("asr_bench: pocketsphinx en-us, %zu recordings, %d runs, 2 cores shared (figures are noisy)\n",
              recordings.size(), runs);
  if (const char* flags = std::getenv("LINGCAST_ASR_BENCH_DECODER")) {
    for (Mode& mode : modes) mode.options.decoder_flags = absl::StrSplit(flags, ' ', absl::SkipWhitespace());
  }
  for (Mode& mode : modes) {
    const double load_start = WallSeconds();
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load(mode.options);
    if (!model.ok()) {
      std::fprintf(stderr, "asr_bench: %s\n", std::string(model.status().message()).c_str());
      return 1;
    }
    const double load_seconds = WallSeconds() - load_start;
    for (int run = 0; run < runs; ++run) {
      for (size_t i = 0; i < recordings.size(); ++i) {
        std::string text;
        if (!RunRecording(**model, audio[i], mode.figures, text)) {
          std::fprintf(stderr, "asr_bench: recognition failed on %s\n", recordings[i]->file);
          return 1;
        }
        if (run == 0) {
          mode.figures.errors += CountWordErrors(recordings[i]->transcript, text);
          mode.figures.texts.push_back(text);
        }
      }
    }
    std::printf("\n[%s] model load %.2f s\n", mode.name.c_str(), load_seconds);
    for (size_t i = 0; i < recordings.size(); ++i) {
      std::printf("  %-40s WER %.2f  \"%s\"\n", recordings[i]->file,
                  CountWordErrors(recordings[i]->transcript, mode.figures.texts[i]).rate(),
                  mode.figures.texts[i].c_str());
    }
    // The show, with its own script in script mode.
    PocketsphinxOptions show_options = mode.options;
    if (!show_options.script_path.empty()) show_options.script_path = show_script_path;
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> show_model = PocketsphinxModel::Load(show_options);
    if (!show_model.ok()) {
      std::fprintf(stderr, "asr_bench: %s\n", std::string(show_model.status().message()).c_str());
      return 1;
    }
    if (!RunShow(**show_model, *show, mode.show)) {
      std::fprintf(stderr, "asr_bench: recognition failed on the synthetic show\n");
      return 1;
    }
    for (size_t i = 0; i < show->sentences.size(); ++i) {
      const SpokenSentence& sentence = show->sentences[i];
      const std::string& heard = mode.show.texts[i];
      std::printf("  %-7s WER %.2f%s  \"%s\" -> \"%s\"\n", sentence.scripted ? "script" : "ad-lib",
                  CountWordErrors(sentence.text, heard).rate(),
                  !sentence.scripted && BestLineSimilarity(heard) >= kForcedSimilarity ? " FORCED" : "",
                  sentence.text.c_str(), heard.c_str());
    }
  }

  const ModeFigures& reference = modes.front().figures;
  const double reference_rtf = reference.recognizer_cpu / reference.audio_seconds;
  std::printf("\n%-16s %6s %8s %10s %14s %14s %14s %14s %6s\n", "mode", "WER", "RTF", "RTF/free", "finish cpu p50",
              "finish cpu p95", "finish wall p50", "finish wall p95", "utts");
  for (const Mode& mode : modes) {
    const ModeFigures& f = mode.figures;
    const double rtf = f.recognizer_cpu / f.audio_seconds;
    std::printf("%-16s %6.2f %8.3f %10.2f %11.1f ms %11.1f ms %12.1f ms %12.1f ms %6zu\n", mode.name.c_str(),
                f.errors.rate(), rtf, rtf / reference_rtf, Percentile(f.finish_cpu_ms, 0.5),
                Percentile(f.finish_cpu_ms, 0.95), Percentile(f.finish_wall_ms, 0.5), Percentile(f.finish_wall_ms, 0.95),
                f.finish_cpu_ms.size());
  }
  std::printf("\nFinish() CPU of the utterances after a session's first (not decoded again):\n");
  for (const Mode& mode : modes) {
    const ModeFigures& f = mode.figures;
    std::printf("%-16s p50 %7.1f ms  p95 %7.1f ms  (%zu utts)\n", mode.name.c_str(), Percentile(f.later_finish_cpu_ms, 0.5),
                Percentile(f.later_finish_cpu_ms, 0.95), f.later_finish_cpu_ms.size());
  }
  std::printf("\nsynthetic show (espeak-ng en-gb): %d script lines, %d ad-libs\n", modes.front().show.script_lines,
              modes.front().show.ad_libs);
  std::printf("%-16s %12s %14s %14s %12s %16s\n", "mode", "script WER", "lines exact", "lines >= 0.6", "ad-lib WER",
              "ad-libs forced");
  for (const Mode& mode : modes) {
    const ShowFigures& f = mode.show;
    std::printf("%-16s %12.2f %11d/%-2d %11d/%-2d %12.2f %13d/%-2d\n", mode.name.c_str(), f.script_errors.rate(),
                f.script_exact, f.script_lines, f.script_followed, f.script_lines, f.ad_lib_errors.rate(),
                f.ad_libs_forced, f.ad_libs);
  }
  std::printf("\nWER over all recordings of one run (%d reference words); RTF = recognizer CPU seconds per audio "
              "second (VAD excluded); finish = VAD endpoint -> final hypothesis.\n",
              reference.errors.reference_words);
  std::printf("lines >= 0.6 = script lines heard with whole-line similarity >= 0.6 (the follower takes them); ");
  std::printf("ad-libs forced = ad-libs heard as a script line (whole-line similarity >= %.1f, the follower's "
              "final_quality).\n", kForcedSimilarity);
  std::filesystem::remove(script_path);
  std::filesystem::remove(show_script_path);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
