// Options of `lingcast render`, with their documented defaults, and the checks
// that turn bad values into one clear line (exit 2) before any work starts.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "app/command.h"
#include "app/neural_plugin.h"
#include "media/language.h"

namespace lingcast {

enum class SpeakMode { kFirst, kZh, kEn, kBoth };
enum class SubtitleMode { kBurn, kSrt, kNone };

struct RenderOptions {
  std::string script_path;
  std::string output_path;           // -o/--output FILE.mp4 (one more output, as before --out)
  // --out FILE.mp4|hls:DIR|rtmp://…|srt://… (repeatable; docs/outputs.md).
  std::vector<std::string> outputs;
  bool realtime = false;             // --realtime: pace the output at real time, as a live source
  double start_offset_s = 0;         // --start-offset SECONDS: where the live/HLS timeline starts
  int width = 1280;                  // --size WxH
  int height = 720;
  int fps = 30;                      // --fps
  std::string voice_zh;              // --voice-zh (empty: cmn-latn-pinyin)
  std::string voice_en;              // --voice-en (empty: en-us)
  // --tts: auto (the installed neural voices, espeak-ng for a language without
  // one; app/studio.h ChooseStudioVoice) or espeak (espeak-ng only).
  std::string tts_engine = "auto";
  NeuralDeviceFlags neural;          // --device, --dtype: where a neural voice runs (default auto)
  double rate = 1.0;                 // --rate (relative speaking rate)
  SpeakMode speak = SpeakMode::kFirst;        // --speak zh|en|both (default: first segment)
  SubtitleMode subtitles = SubtitleMode::kBurn;  // --subtitles burn|srt|none
  std::string preset = "veryfast";   // --preset (x264)
  int crf = 23;                      // --crf (x264 quality, 0..51)
  int encoder_threads = 0;           // --encoder-threads (x264 threads; 0 = auto)
  std::string renderer = "auto";     // --renderer auto|cpu|cuda (docs/gpu.md)
  uint32_t seed = 1;                 // --seed (blinks and idle motion)
  std::string avatar_path;           // --avatar RIG.json (empty: the built-in presenter)
  bool quiet = false;                // --quiet: no progress bar
  bool json = false;                 // --json: JSON summary on stdout
  // Compositor (docs/compositing.md).
  std::string background = "studio";      // --background studio|#RRGGBB|FILE (image or video)
  std::string background_fit = "cover";   // --background-fit cover|contain|stretch
  std::string subtitle_style = "outline"; // --subtitle-style outline|box|shadow
  bool highlight_words = false;           // --highlight-words: colour words as they are spoken
  std::string title;                      // --title "NAME|SUBTITLE": a lower-third title
};

// "1280x720" -> width, height. Checks range (160..7680 x 90..4320) and evenness
// (H.264 4:2:0 needs even sizes).
absl::Status ParseSize(const std::string& text, int* width, int* height);
absl::StatusOr<SpeakMode> ParseSpeakMode(const std::string& text);
absl::StatusOr<SubtitleMode> ParseSubtitleMode(const std::string& text);
// -o (if given) then every --out, in order.
std::vector<std::string> AllOutputs(const RenderOptions& options);
// Everything that can be checked without touching engines or files.
absl::Status ValidateRenderOptions(const RenderOptions& options);

// `lingcast render SCRIPT [-o OUT.mp4] [--out ...]`: its flags, and the run
// (RunRender, then the summary on stderr or --json on stdout).
Command AddRenderCommand(CLI::App& app);

}  // namespace lingcast
