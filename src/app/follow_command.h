// `lingcast follow --script SCRIPT IN_AUDIO [--json]`: which script line is the
// host saying, and when could its translation start? Runs VAD -> ASR (script mode:
// a language model built from the script) -> ScriptFollower on a recording, as a
// live job would, and prints one record per decision:
//   text: "line 12  conf 0.92  at 00:03.20 (38% heard)  <heard> => <translation>"
//         "off script  at 00:07.90  <heard> => <fallback translation or nothing>"
//   json: {"line":12|null,"off_script":false,"confidence":0.92,"commit_time_ms":3200,
//          "commit_point":0.38|null,"source_text":...,"translation":...,"engine":...,
//          "utterance_start_ms":...,"utterance_end_ms":...}
// The host speaks the recognizer's language (English: the only embedded model);
// each script line's segment in that language is what is followed, and the line's
// other segment is its translation. Off-script speech goes to the fallback engines
// (`--engine`, default tm: a fuzzy match in the script itself), else subtitles only.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "app/command.h"
#include "app/neural_plugin.h"
#include "app/translation_setup.h"
#include "asr/pocketsphinx_engine.h"
#include "audio/vad.h"
#include "core/logger.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "mt/script_follower.h"

namespace lingcast {

struct FollowCommandOptions {
  std::string script_path;
  std::string input;  // any media file src/audio decodes
  bool json = false;
  // How often the recognizer's partial hypothesis is read while speech goes on:
  // the follower can commit no sooner than this after the deciding word.
  MediaTime partial_interval = MediaTime::Millis(250);
  VadConfig vad;
  FollowerConfig follower;
  // --no-opening-scores: lines commit from the words heard only, not from
  // Whisper's score of the expected line's opening (SpeechFollowerOptions).
  bool score_openings = true;
  // Weight of the script's language model against the general one (asr/README.md).
  float script_weight = PocketsphinxOptions{}.script_weight;
  // pocketsphinx search settings (PocketsphinxOptions::decoder_flags and
  // alternatives_beam), for tuning from bench/follow_bench.
  std::vector<std::string> decoder_flags;
  double alternatives_beam = PocketsphinxOptions{}.alternatives_beam;
  bool dither = PocketsphinxOptions{}.dither;
  size_t script_vocabulary = PocketsphinxOptions{}.script_vocabulary;  // PocketsphinxOptions::script_vocabulary
  std::vector<std::string> fallback_engines = {"tm"};
  LlmConfig llm;
  std::string marian_model_dir;  // --marian-model: the Marian checkpoint for --engine marian
  bool debug_log = false;
  // --asr: auto (Whisper base when installed, else pocketsphinx), pocketsphinx
  // (embedded, English) or whisper (--asr-model DIR, default the installed base;
  // app/whisper_recognizer.h); --lang: the language the host speaks, en or zh.
  std::string asr_engine = "auto";
  std::string asr_model_dir;
  std::string language = "en";
  NeuralDeviceFlags neural;  // --device, --dtype: where --asr whisper and --engine marian run
  // --zh-script: whisper's Mandarin in "simplified" (the default) or "traditional"
  // characters; the follower matches either against the script.
  std::string zh_script = "simplified";
};

struct FollowRecord {
  FollowDecision decision;
  std::string source_text;   // what the recognizer heard (the final hypothesis of the utterance)
  std::string translation;   // the script's, or the fallback engine's; empty when none
  std::string engine;        // "script", "tm", "llm", or "" (subtitles only)
  MediaTime utterance_start;
  MediaTime utterance_end;
  // The utterance's partial hypotheses as they came (input time each was known,
  // text): what the follower had to go on before the endpoint.
  std::vector<std::pair<MediaTime, std::string>> partials;
};

struct FollowSummary {
  int utterances = 0;
  int committed_lines = 0;
  int off_script = 0;
  // Processing time of each hypothesis (reading the partial or final from the
  // recognizer, following it, translating off-script speech), in milliseconds.
  std::vector<double> hypothesis_ms;
  // CPU time of each acoustic check of an utterance (part of its final's hypothesis_ms).
  std::vector<double> acoustic_check_ms;
  // CPU time of each time the recognizer scored line openings, and the lines
  // those scores committed (SpeechFollower::opening_score_cpu_ms; docs/live.md).
  std::vector<double> opening_score_ms;
  int opening_commits = 0;
  std::vector<FollowRecord> records;
};

using AudioSource = std::function<absl::StatusOr<bool>(AudioBuffer& chunk)>;

// The follow job on any 16 kHz mono source (read() fills `chunk`, false at the
// end); `on_record` is called as each utterance ends.
absl::StatusOr<FollowSummary> RunFollow(const FollowCommandOptions& options, const AudioSource& read,
                                        const std::function<void(const FollowRecord&)>& on_record, Logger& logger);

// The command: decodes options.input and prints each record to `out`.
absl::StatusOr<FollowSummary> RunFollowCommand(const FollowCommandOptions& options, std::ostream& out,
                                               Logger& logger);

std::string FollowRecordJson(const FollowRecord& record);
std::string FollowRecordLine(const FollowRecord& record);

// The script's lines as the follower takes them: for each spoken line with a
// segment in `heard` language, that segment (and its spoken form, numbers as
// words) and the line's segment in the other language as the translation.
std::vector<FollowerLine> FollowerLinesFromScript(const Script& script, Language heard);

// `lingcast follow IN --script SCRIPT ...`: its flags, and RunFollowCommand to
// stdout, then (without --json) one summary line on stderr.
Command AddFollowCommand(CLI::App& app);

}  // namespace lingcast
