// `lingcast asr IN [--lang en] [--script SCRIPT] [--json]`: speech recognition of
// one file (any format src/audio decodes) or of raw s16le 16 kHz mono on stdin
// ("-"), as a stream: the VAD cuts utterances, each goes to one recognizer
// session, partial hypotheses are printed while speech continues and a final one
// at each endpoint.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "app/command.h"
#include "app/neural_plugin.h"
#include "audio/vad.h"
#include "core/logger.h"
#include "core/media_time.h"

namespace lingcast {

struct AsrCommandOptions {
  std::string input;  // a media file, or "-" for raw s16le 16 kHz mono on `stdin_stream`
  std::string language = "en";  // whisper: also "auto" (detected per utterance)
  // auto: Whisper base when installed, else pocketsphinx (English); or "whisper"
  // (model_dir, default the installed base, through the neural plug-in) or
  // "pocketsphinx" (app/whisper_recognizer.h).
  std::string engine = "auto";
  std::string model_dir;                // --model: the Whisper checkpoint (docs/models.md)
  std::string task = "transcribe";      // whisper: "translate" gives English text whatever is spoken
  std::string quantize = "none";        // whisper: "int8" stores the linear layers' weights as int8
  NeuralDeviceFlags neural;             // whisper: --device, --dtype
  std::string script_path;  // script mode when set
  bool json = false;
  // A partial is considered after every this much speech audio, and printed only
  // when its text changed.
  MediaTime partial_interval = MediaTime::Millis(500);
  // false (--no-partials): finals only, each utterance decoded once when it
  // ends -- an offline transcript at the engine's own speed.
  bool partials = true;
  VadConfig vad;
  bool debug_log = false;  // pocketsphinx's own log on stderr
  // --zh-script: whisper's Mandarin in "simplified" (the default) or "traditional"
  // characters (app/whisper_recognizer.h).
  std::string zh_script = "simplified";
};

// Writes one line per hypothesis to `out`, flushed as it is made:
//   text: "[00:01.20-00:04.50] partial: ask not what"
//         "[00:01.20-00:04.50] final: ask not what your country can do for you"
//   json: {"type":"partial"|"final","text":...,"start_ms":...,"end_ms":...,"language":"en"}
//         partials add "stable_chars": the bytes of text that will not change
//         (whisper's committed words; 0 from pocketsphinx)
//         finals add "words":[{"word":...,"start_ms":...,"end_ms":...,"confidence":...}]
// Times are the utterance's speech as the VAD found it (first voiced frame to the
// end of the last one, or of the last word if that is later; a partial ends where
// the audio heard so far ends, hangover included), on the input's timeline. Utterances where nothing was recognized print nothing, so
// silence prints nothing at all.
// Errors (exit 2): an unknown language or engine, Mandarin on pocketsphinx (no
// model yet), a missing or unreadable input, a bad script, a bad Whisper
// checkpoint; each one line naming what is wrong.
absl::Status RunAsrCommand(const AsrCommandOptions& options, std::istream& stdin_stream, std::ostream& out,
                           Logger& logger);

// "01:02.35" (minutes:seconds.centiseconds), "1:02:03.40" from one hour on.
std::string FormatAsrTime(MediaTime time);

// `lingcast asr IN ...`: its flags, and RunAsrCommand on stdin/stdout (the
// engine's own log on stderr at --log-level debug).
Command AddAsrCommand(CLI::App& app);

}  // namespace lingcast
