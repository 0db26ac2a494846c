// Options of `lingcast live`, with their documented defaults, and the checks
// that turn bad values into one clear line (exit 2) before anything starts.
//
// LiveOptions is a composition of one small config per concern (the input, the
// recognition, the translation, the voice, the look, the outputs, the timing),
// each with its defaults beside its fields and its own check. They are bound to
// the command line once (app/live_flags.h; the server's session settings go
// through the same binding), and the job hands each part to the code that uses
// it (app/live_job.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "app/neural_plugin.h"
#include "app/studio.h"
#include "app/whisper_recognizer.h"
#include "core/degradation_ladder.h"
#include "core/media_time.h"
#include "media/language.h"
#include "mt/llm_translator.h"
#include "output/live_output.h"
#include "tts/voice_stage.h"

namespace lingcast {

enum class LiveClock {
  kRealtime,   // the system clock: the input is paced at real time, outputs go out live
  kSimulated,  // a simulated clock: the same pipeline as fast as the CPU allows, identical results
};

// The host: where the audio comes from, and how much of the host's own voice
// the viewer hears.
struct InputConfig {
  std::string path;                                   // --in: a media file, a URL (rtmp://, srt://, ...) or "-" (s16le 16 kHz mono on stdin)
  MediaTime source_timeout = MediaTime::Seconds(10);  // --source-timeout: a URL that does not answer or stalls
  bool passthrough = false;                           // --passthrough: the host's voice under the avatar's
  double passthrough_gain_db = -6;                    // host voice level while the avatar is silent
  double duck_db = -20;                               // ...and while the avatar speaks
};
absl::Status ValidateInputConfig(const InputConfig& input);

// How the host is heard.
struct RecognitionConfig {
  // --asr: the recognizer. auto: Whisper base when installed (models/, by
  // scripts/install-deps.sh), else pocketsphinx (English only); whisper: a
  // Whisper checkpoint (--asr-model DIR, default the installed base) through the
  // neural plug-in, for English and Mandarin hosts (app/whisper_recognizer.h).
  std::string engine = "auto";
  std::string model_dir;  // --asr-model: the Whisper checkpoint directory
  // --zh-script: Whisper's Mandarin in "simplified" (the default) or "traditional"
  // characters; the follower and the memory match either against the script.
  std::string zh_script = "simplified";
  // --asr-partial-ms: how often the host's open utterance is heard again (a
  // partial hypothesis), the cost of each against how soon a script line is
  // found. 0: the recognizer's own cadence (pocketsphinx 250 ms; Whisper 500 ms
  // on the CPU, 250 ms on a GPU, 150 ms there when opening scores follow the
  // script; each stretched when a decode is slow); else 100..5000.
  int partial_interval_ms = 0;
  // --no-opening-scores: with a script, the recognizer no longer scores the
  // openings of the line expected next and its neighbours after a partial that
  // commits nothing (Whisper only; docs/live.md), and lines commit from the
  // words heard alone. On by default: Whisper's score of a Mandarin line's
  // opening can commit it before its greedy text spells the line.
  bool score_openings = true;
};
// How often the host's open utterance is heard again. --asr-partial-ms sets
// every figure. Without it, the streaming recognizer asks every 250 ms and
// Whisper's own least intervals gate its decodes (0 below: its own, 500 ms on
// the CPU, 250 ms on a GPU); but where Whisper's opening scores follow a script
// (`scores_openings`), it asks every 150 ms and Whisper decodes that often on a
// GPU: each decode is a new chance for the expected line's opening to score.
// Measured on an H100 (docs/gpu.md, 2026-12-07): the median script-line
// StartOffset 0.89 s at 150 ms against 1.03 s at 250 ms, three runs each, the
// same in every run; without scores 150 ms was no sooner (1.37 s against 1.28).
struct PartialCadence {
  MediaTime follower = MediaTime::Millis(250);
  std::int64_t whisper_cpu_ms = 0;
  std::int64_t whisper_gpu_ms = 0;
};
PartialCadence LivePartialCadence(const RecognitionConfig& recognition, bool scores_openings);
// The recognizer `recognition` resolves to for a host speaking `source` (who
// follows a script when `follows_script`); InvalidArgument for an unknown
// engine, a bad --zh-script, or a language no installed recognizer hears.
absl::StatusOr<RecognizerChoice> ValidateRecognitionConfig(const RecognitionConfig& recognition, Language source,
                                                           bool follows_script);

// What the avatar says: the script's own translations, the memory, and the
// fallback engines for off-script speech; and the operator's corrections.
struct TranslationConfig {
  std::string script_path;                    // --script: followed lines commit their own translation
  std::vector<std::string> memory_paths;      // --tm (repeatable): more translation memory
  std::string glossary_path;                  // --glossary
  std::vector<std::string> engines = {"tm"};  // --engine: fallback translators for off-script speech
  // Off-script speech with a fallback engine: a provisional translation on the
  // subtitle as the host speaks, re-translated at each partial hypothesis
  // (docs/live.md, "Ad-libs as they are spoken"). --no-provisional: off.
  bool provisional_captions = true;
  LlmConfig llm;                 // --llm-endpoint / --llm-model (env LINGCAST_LLM_*)
  std::string marian_model_dir;  // --marian-model: the Marian checkpoint for --engine marian
  std::string control_path;      // --control PATH|-: the operator's corrections (mt/live_control.h); empty: none
  std::string corrections_path;  // --corrections FILE: corrections of earlier shows, and where new ones are kept
  // For the server: corrections come from LiveJob::SubmitCorrection instead of
  // a --control file (not both). No CLI flag.
  bool control_in_process = false;
};
absl::Status ValidateTranslationConfig(const TranslationConfig& translation);

// How the avatar sounds.
struct VoiceConfig {
  // --tts: the avatar's voice. auto: the installed neural voices (Piper
  // en_US-joe-medium for English), espeak-ng for a language without one
  // (app/studio.h ChooseStudioVoice); espeak: espeak-ng only; vits: a VITS /
  // MMS-TTS / Piper checkpoint (--tts-model DIR) alone, which speaks its own
  // language only.
  std::string engine = "auto";
  std::string model_dir;  // --tts-model: the VITS checkpoint directory
  std::string voice_zh;   // --voice-zh (empty: cmn-latn-pinyin)
  std::string voice_en;   // --voice-en (empty: en-us)
  double rate = 1.0;      // --rate: the avatar's normal speaking rate
};
absl::Status ValidateVoiceConfig(const VoiceConfig& voice);

// What the viewer sees: the look `render` takes too (StudioLook: --size,
// --avatar, --background, --background-fit, --subtitle-style, --title), the
// frame rate, the motion's seed and the host's picture.
struct LookConfig : StudioLook {
  int fps = 30;                     // --fps
  uint32_t seed = 1;                // --seed (blinks, idle motion)
  bool picture_in_picture = false;  // --pip: the source's video in a corner (--in must be a file with video)
  // --renderer: what draws the frames, auto (cuda when this build has it and a
  // GPU is found), cpu or cuda (docs/gpu.md).
  std::string renderer = "auto";
};
absl::Status ValidateLookConfig(const LookConfig& look);

// Where the show goes, and how it is encoded.
struct OutputsConfig {
  std::vector<std::string> destinations;  // --out (repeatable): FILE.mp4, hls:DIR, rtmp://..., srt://...
  std::string preset = "veryfast";        // --preset (x264)
  int crf = 23;                           // --crf (files); live outputs use --bitrate
  int bitrate_kbps = 2500;                // --bitrate (kbit/s, network outputs)
  // --encoder-threads: x264's threads; 0 lets x264 choose from the machine's
  // cores. Many sessions on one machine each take that many (docs/serve.md).
  int encoder_threads = 0;
  // --segment-minutes: MP4 outputs rotate to a new file every this many
  // minutes (at the next keyframe); 0: one file for the whole show.
  int segment_minutes = 0;
  // For programs that embed the job (and tests): called on the network outputs'
  // sender threads after each packet was sent. Optional; no CLI flag.
  PacketWrittenObserver on_packet_written;
};
// A day: a longer file is the one rotation is there to avoid.
inline constexpr int kMaxSegmentMinutes = 24 * 60;
absl::Status ValidateOutputsConfig(const OutputsConfig& outputs);

// When lines are spoken, and on which clock.
struct TimingConfig {
  LagPolicy lag_policy = LagPolicy::kSpeedUp;           // --lag-policy speedup|shorten|skip
  MediaTime max_lag = MediaTime::Seconds(4);            // --max-lag SECONDS
  double max_speedup = 1.5;                             // --max-speedup (speedup policy)
  MediaTime line_gap = MediaTime::Millis(250);          // pause between two queued lines
  MediaTime subtitle_linger = MediaTime::Millis(1500);  // a line's subtitle stays after its speech
  LiveClock clock = LiveClock::kRealtime;               // --clock realtime|simulated
};
absl::Status ValidateTimingConfig(const TimingConfig& timing);

// What the watchdog watches (app/live_watchdog.h, core/degradation_ladder.h).
struct WatchdogConfig {
  bool enabled = true;    // --watchdog on|off
  PressureLimits limits;  // --watch-lag HIGH,LOW (3,1 s); --watch-memory HIGH,LOW (MB; not watched by default)
};
absl::Status ValidateWatchdogConfig(const WatchdogConfig& config);

struct LiveOptions {
  Language source = Language::kEn;  // --source: what the host speaks
  Language target = Language::kZh;  // --target: what the avatar speaks
  InputConfig input;
  RecognitionConfig recognition;
  TranslationConfig translation;
  VoiceConfig voice;
  NeuralDeviceFlags neural;  // --device, --dtype: where the neural engines of all three above run
  LookConfig look;
  OutputsConfig outputs;
  TimingConfig timing;
  WatchdogConfig watchdog;
  std::string report_path;  // --report FILE.json
  bool quiet = false;       // --quiet: no status line
  bool json = false;        // --json: the summary as JSON on stdout
};

absl::StatusOr<LiveClock> ParseLiveClock(const std::string& text);

// Everything that can be checked without touching engines, files or networks:
// each part by its own check, then what the parts must agree on.
absl::Status ValidateLiveOptions(const LiveOptions& options);

}  // namespace lingcast
