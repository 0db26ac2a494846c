// lingcast: the command-line entry point. Parses the command line, runs one job,
// and maps its Status to an exit code:
//   0 ok; 2 bad usage or bad input (one line naming file, line, field);
//   1 internal failure; 130 interrupted (SIGINT/SIGTERM; nothing half-written).
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "app/asr_command.h"
#include "app/doctor.h"
#include "app/follow_command.h"
#include "app/live_command.h"
#include "app/lipsync_command.h"
#include "app/pinyin_command.h"
#include "app/progress.h"
#include "app/render_job.h"
#include "app/render_options.h"
#include "app/signals.h"
#include "app/translate_command.h"
#include "app/tts_command.h"
#include "core/logger.h"
#include "core/status.h"
#include "tts/espeak_engine.h"

extern "C" {
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

constexpr int kExitInterrupted = 130;

int Report(const absl::Status& status) {
  if (status.ok()) return 0;
  std::fprintf(stderr, "lingcast: error: %s\n", std::string(status.message()).c_str());
  if (absl::IsCancelled(status)) return kExitInterrupted;
  return ExitCodeFor(status);
}

int Main(int argc, char** argv) {
  CLI::App app{"lingcast: a real-time bilingual (Chinese <-> English) virtual anchor"};
  app.set_version_flag("--version", "lingcast 0.1.0");
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "Log level: debug, info, warn, error, off")->capture_default_str();

  // --- render ---------------------------------------------------------------
  RenderOptions render;
  std::string size = "1280x720", speak = "first", subtitles = "burn";
  CLI::App* render_cmd = app.add_subcommand("render", "Render a bilingual script to an MP4 video");
  render_cmd->add_option("script", render.script_path, "Script file (docs/script-format.md)")->required();
  render_cmd->add_option("-o,--output", render.output_path, "Output MP4 path (written atomically)");
  render_cmd->add_option("--out", render.outputs,
                         "Output, repeatable: FILE.mp4, hls:DIR, rtmp://HOST/APP/KEY or srt://HOST:PORT "
                         "(docs/outputs.md)");
  render_cmd->add_flag("--realtime", render.realtime, "Pace the output at real time, as a live source would");
  render_cmd->add_option("--start-offset", render.start_offset_s,
                         "Seconds where the live/HLS timeline starts (tests long-running timestamps)")
      ->capture_default_str();
  render_cmd->add_option("--size", size, "Frame size WIDTHxHEIGHT")->capture_default_str();
  render_cmd->add_option("--fps", render.fps, "Frames per second (1-240)")->capture_default_str();
  render_cmd->add_option("--voice-zh", render.voice_zh, "espeak-ng voice for Mandarin (default cmn-latn-pinyin)");
  render_cmd->add_option("--voice-en", render.voice_en, "espeak-ng voice for English (default en-us)");
  render_cmd->add_option("--rate", render.rate, "Relative speaking rate (0.25-4)")->capture_default_str();
  render_cmd->add_option("--speak", speak, "Which segment is spoken: first, zh, en or both")->capture_default_str();
  render_cmd->add_option("--subtitles", subtitles, "burn (into the video), srt (sidecar OUT.srt) or none")
      ->capture_default_str();
  render_cmd->add_option("--preset", render.preset, "x264 preset")->capture_default_str();
  render_cmd->add_option("--crf", render.crf, "x264 constant quality, 0-51 (lower is better)")->capture_default_str();
  render_cmd->add_option("--encoder-threads", render.encoder_threads, "x264 threads (0: automatic)")
      ->capture_default_str();
  render_cmd->add_option("--seed", render.seed, "Seed for blinks and idle motion")->capture_default_str();
  render_cmd->add_option("--avatar", render.avatar_path, "Avatar rig JSON (docs/avatar-format.md); default: built-in");
  render_cmd->add_flag("-q,--quiet", render.quiet, "No progress bar, no summary line");
  render_cmd->add_flag("--json", render.json, "Print a JSON summary on stdout");
  render_cmd->add_option("--background", render.background, "studio, a colour #RRGGBB, or an image or video file")
      ->capture_default_str();
  render_cmd->add_option("--background-fit", render.background_fit, "Image/video fit: cover, contain or stretch")
      ->capture_default_str();
  render_cmd->add_option("--subtitle-style", render.subtitle_style, "Subtitle look: outline, box or shadow")
      ->capture_default_str();
  render_cmd->add_flag("--highlight-words", render.highlight_words, "Colour each word of the spoken line as it is said");
  render_cmd->add_option("--title", render.title, "Lower-third title \"NAME|SUBTITLE\", shown for the first 6 s");

  // --- doctor ---------------------------------------------------------------
  CLI::App* doctor_cmd = app.add_subcommand("doctor", "Check libraries, voices, fonts and data files");
  bool doctor_json = false;
  doctor_cmd->add_flag("--json", doctor_json, "Print the checks as JSON");

  // --- pinyin ---------------------------------------------------------------
  CLI::App* pinyin_cmd =
      app.add_subcommand("pinyin", "Print the pinyin (tone digits, 5 = neutral) of Chinese text, line by line");
  std::vector<std::string> pinyin_text;
  PinyinCommandOptions pinyin_options;
  pinyin_cmd->add_option("text", pinyin_text, "Text to convert (joined by spaces); stdin when absent");
  pinyin_cmd->add_flag("--sandhi", pinyin_options.sandhi, "Print spoken tones after tone sandhi (3-3, 一, 不)");
  pinyin_cmd->add_flag("--json", pinyin_options.json, "Print one JSON object per line: words, readings, sources");

  // --- tts ------------------------------------------------------------------
  CLI::App* tts_cmd = app.add_subcommand("tts", "Speak text to a WAV file (and its phoneme/word timeline)");
  std::vector<std::string> tts_text;
  TtsCommandOptions tts_options;
  bool tts_json = false;
  tts_cmd->add_option("text", tts_text, "Text to speak (joined by spaces); '-' or absent: stdin");
  tts_cmd->add_option("-o,--output", tts_options.output_path, "Output WAV path (written atomically)")->required();
  tts_cmd->add_option("--lang", tts_options.language, "zh, en or auto (each clause in its own language)")
      ->capture_default_str();
  tts_cmd->add_option("--timeline", tts_options.timeline_path, "Also write phonemes, words and clauses as JSON");
  tts_cmd->add_option("--voice", tts_options.voice, "espeak-ng voice (en-us, en-gb, cmn-latn-pinyin)");
  tts_cmd->add_option("--rate", tts_options.rate, "Relative speaking rate (0-4]")->capture_default_str();
  tts_cmd->add_option("--pitch", tts_options.pitch, "Relative pitch (0-4]")->capture_default_str();
  tts_cmd->add_option("--volume", tts_options.volume, "Relative volume [0-4]")->capture_default_str();
  tts_cmd->add_option("--engine", tts_options.engine, "espeak, or vits (a VITS / MMS-TTS checkpoint, --model)")
      ->capture_default_str();
  tts_cmd->add_option("--model", tts_options.model_dir, "VITS checkpoint directory for --engine vits (docs/models.md)");
  tts_cmd->add_flag("--json", tts_json, "Print a JSON summary on stdout");

  // --- asr ------------------------------------------------------------------
  CLI::App* asr_cmd = app.add_subcommand(
      "asr", "Recognize speech (partial and final hypotheses with times) in a media file or raw PCM on stdin");
  AsrCommandOptions asr_options;
  asr_cmd->add_option("input", asr_options.input, "Media file, or - for raw s16le 16 kHz mono on stdin")->required();
  asr_cmd->add_option("--lang,--language", asr_options.language,
                      "Language spoken: en, zh (whisper only), or auto (whisper: detected per utterance)")
      ->capture_default_str();
  asr_cmd->add_option("--engine", asr_options.engine, "pocketsphinx, or whisper (a Whisper checkpoint, --model)")
      ->capture_default_str();
  asr_cmd->add_option("--model", asr_options.model_dir, "Whisper checkpoint directory for --engine whisper (docs/models.md)");
  asr_cmd->add_option("--task", asr_options.task, "whisper: transcribe, or translate (English text)")->capture_default_str();
  asr_cmd->add_option("--quantize", asr_options.quantize,
                      "whisper: none, or int8 (linear weights as int8 with per-row scales; docs/models.md)")
      ->capture_default_str();
  asr_cmd->add_option("--script", asr_options.script_path, "Script (docs/script-format.md) the speaker follows");
  asr_cmd->add_flag("--json", asr_options.json, "One JSON object per line (type, text, start_ms, end_ms, words)");

  // --- translate --------------------------------------------------------------
  CLI::App* translate_cmd = app.add_subcommand(
      "translate", "Translate lines on stdin to stdout (translation memory, glossary, LLM server)");
  TranslateCommandOptions translate_options;
  std::string translate_from = "zh", translate_to = "en";
  std::vector<std::string> translate_engines = {"tm"};
  translate_cmd->add_option("--from", translate_from, "Language of the input lines: zh or en")->capture_default_str();
  translate_cmd->add_option("--to", translate_to, "Language of the translations: en or zh")->capture_default_str();
  translate_cmd->add_option("--tm", translate_options.translation.memory_paths,
                            "Translation memory: a bilingual script, or a .tsv/.csv of SOURCE,TARGET pairs "
                            "(repeatable)");
  translate_cmd->add_option("--glossary", translate_options.translation.glossary_path,
                            "Terms every translation must use: CHINESE<TAB>ENGLISH per line");
  translate_cmd->add_option("--corrections", translate_options.translation.corrections_path,
                            "Corrections file applied on top of the memory and glossary");
  translate_cmd->add_option("--engine", translate_engines, "Engines in order of preference: tm, llm, marian")
      ->capture_default_str();
  translate_cmd->add_option("--model", translate_options.translation.marian_model_dir,
                            "Marian (OPUS-MT) checkpoint directory for --engine marian (docs/models.md)");
  translate_cmd->add_option("--quantize", translate_options.translation.marian_quantize,
                            "marian: none, or int8 (linear weights as int8 with per-row scales; docs/models.md)")
      ->capture_default_str();
  translate_cmd->add_option("--threshold", translate_options.translation.threshold,
                            "Fuzzy match score (0-1] the memory needs")
      ->capture_default_str();
  translate_cmd->add_option("--llm-endpoint", translate_options.translation.llm.endpoint,
                            "OpenAI-compatible server, e.g. http://127.0.0.1:8080 (default: $LINGCAST_LLM_ENDPOINT)");
  translate_cmd->add_option("--llm-model", translate_options.translation.llm.model,
                            "Model name sent to the server (default: $LINGCAST_LLM_MODEL)");
  translate_cmd->add_flag("--json", translate_options.json,
                          "One JSON object per line: source, target, engine, score, confidence");

  // --- lipsync --------------------------------------------------------------
  CLI::App* lipsync_cmd = app.add_subcommand(
      "lipsync", "Mouth cues (shapes A-H, X) for a recording, in Rhubarb Lip Sync's TSV or JSON layout");
  LipsyncCommandOptions lipsync_options;
  lipsync_cmd->add_option("input", lipsync_options.input, "Audio or video file")->required();
  lipsync_cmd->add_option("--dialog", lipsync_options.dialog_path,
                          "Text file of what is said (English: aligned with the recognizer)");
  lipsync_cmd->add_option("--format", lipsync_options.format, "tsv or json")->capture_default_str();
  lipsync_cmd->add_option("--fps", lipsync_options.fps, "Video frame rate the cues snap to (1-120)")
      ->capture_default_str();
  lipsync_cmd->add_option("-o,--output", lipsync_options.output_path, "Output file (written atomically); stdout when absent");

  // --- live -----------------------------------------------------------------
  LiveCommand live;
  live.Register(app);

  // --- follow ---------------------------------------------------------------
  CLI::App* follow_cmd = app.add_subcommand(
      "follow", "Which script line is being said, and when its translation could start (VAD, ASR, follower)");
  FollowCommandOptions follow_options;
  follow_cmd->add_option("input", follow_options.input, "Audio or video file of the host speaking")->required();
  follow_cmd->add_option("--script", follow_options.script_path, "Script the host follows (docs/script-format.md)")
      ->required();
  follow_cmd->add_option("--engine", follow_options.fallback_engines,
                         "Engines for off-script speech: tm (fuzzy script match), llm, or tm,llm")
      ->capture_default_str();
  follow_cmd->add_option("--llm-endpoint", follow_options.llm.endpoint,
                         "OpenAI-compatible server for --engine llm (default: $LINGCAST_LLM_ENDPOINT)");
  follow_cmd->add_option("--llm-model", follow_options.llm.model, "Model name for --engine llm");
  follow_cmd->add_flag("--json", follow_options.json,
                       "One JSON object per decision: line, off_script, confidence, commit_time_ms, commit_point, "
                       "source_text, translation");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "lingcast: error: %s (see lingcast --help)\n", e.what());
    return 2;
  }

  absl::StatusOr<LogLevel> level = ParseLogLevel(log_level);
  if (!level.ok()) return Report(level.status());
  Logger logger(*level);
  // libav* logs to stderr through its own process-wide level; keep it as quiet
  // as ours (its messages only matter when debugging).
  av_log_set_level(*level == LogLevel::kDebug ? AV_LOG_INFO : AV_LOG_ERROR);

  if (*render_cmd) {
    absl::Status parsed = ParseSize(size, &render.width, &render.height);
    if (!parsed.ok()) return Report(parsed);
    absl::StatusOr<SpeakMode> speak_mode = ParseSpeakMode(speak);
    if (!speak_mode.ok()) return Report(speak_mode.status());
    render.speak = *speak_mode;
    absl::StatusOr<SubtitleMode> subtitle_mode = ParseSubtitleMode(subtitles);
    if (!subtitle_mode.ok()) return Report(subtitle_mode.status());
    render.subtitles = *subtitle_mode;

    // Before any thread exists: every later thread (encoder threads included)
    // inherits the blocked signals, which the watcher turns into a clean stop.
    // Only render has work to stop cleanly; other commands keep the default
    // SIGINT/SIGTERM behaviour.
    SignalWatcher signals;
    absl::StatusOr<RenderSummary> summary = RunRender(render, logger, signals);
    if (!summary.ok()) return Report(summary.status());
    if (render.json) {
      std::cout << RenderSummaryJson(*summary) << std::endl;
    } else if (!render.quiet) {
      std::fprintf(stderr, "%s\n", RenderSummaryLine(*summary).c_str());
    }
    return 0;
  }
  if (*tts_cmd) {
    // As render does: a signal cancels the synthesis, so no temporary file is left.
    SignalWatcher signals;
    tts_options.read_stdin = tts_text.empty() || (tts_text.size() == 1 && tts_text[0] == "-");
    for (const std::string& piece : tts_text) tts_options.text += (tts_options.text.empty() ? "" : " ") + piece;
    tts_options.progress = !tts_json && StderrIsTerminal();
    absl::StatusOr<std::unique_ptr<TtsEngine>> engine = MakeTtsEngine(tts_options);
    if (!engine.ok()) return Report(engine.status());
    absl::StatusOr<TtsSummary> summary = RunTtsCommand(**engine, tts_options, std::cin, logger, &signals);
    if (!summary.ok()) return Report(summary.status());
    if (tts_json) {
      std::cout << TtsSummaryJson(*summary) << std::endl;
    } else {
      std::fprintf(stderr, "%s\n", TtsSummaryLine(*summary).c_str());
    }
    return 0;
  }
  if (*asr_cmd) {
    asr_options.debug_log = *level == LogLevel::kDebug;
    return Report(RunAsrCommand(asr_options, std::cin, std::cout, logger));
  }
  if (*translate_cmd) {
    absl::StatusOr<Language> from = ParseLanguage(translate_from);
    if (!from.ok()) return Report(from.status());
    absl::StatusOr<Language> to = ParseLanguage(translate_to);
    if (!to.ok()) return Report(to.status());
    absl::StatusOr<std::vector<std::string>> engines = ParseEngines(translate_engines);
    if (!engines.ok()) return Report(engines.status());
    translate_options.translation.from = *from;
    translate_options.translation.to = *to;
    translate_options.translation.engines = *engines;
    SystemClock clock;
    return Report(RunTranslateCommand(translate_options, std::cin, std::cout, clock, logger).status());
  }
  if (*lipsync_cmd) {
    absl::StatusOr<LipsyncSummary> summary = RunLipsyncCommand(lipsync_options, std::cout, logger);
    if (!summary.ok()) return Report(summary.status());
    std::fprintf(stderr, "lipsync: %d cues, method %s (%s)\n", summary->cues, LipSyncMethodName(summary->method),
                 summary->note.c_str());
    return 0;
  }
  if (*follow_cmd) {
    absl::StatusOr<std::vector<std::string>> engines = ParseEngines(follow_options.fallback_engines);
    if (!engines.ok()) return Report(engines.status());
    follow_options.fallback_engines = *engines;
    follow_options.debug_log = *level == LogLevel::kDebug;
    absl::StatusOr<FollowSummary> summary = RunFollowCommand(follow_options, std::cout, logger);
    if (!summary.ok()) return Report(summary.status());
    if (!follow_options.json) {
      std::fprintf(stderr, "follow: %d utterances, %d script lines, %d off script\n", summary->utterances,
                   summary->committed_lines, summary->off_script);
    }
    return 0;
  }
  if (live.chosen()) return live.Run(logger);
  if (*doctor_cmd) return RunDoctor(doctor_json);
  if (*pinyin_cmd) {
    absl::StatusOr<PinyinConverter> lexicon = PinyinConverter::LoadDefault();
    if (!lexicon.ok()) return Report(lexicon.status());
    if (pinyin_text.empty()) return Report(RunPinyinCommand(*lexicon, pinyin_options, std::cin, "stdin", std::cout));
    std::string joined;
    for (const std::string& piece : pinyin_text) joined += (joined.empty() ? "" : " ") + piece;
    std::istringstream text(joined);
    return Report(RunPinyinCommand(*lexicon, pinyin_options, text, "argument", std::cout));
  }
  return 2;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
