#include "app/live_job.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/engine_cache.h"
#include "app/engine_registry.h"
#include "app/follow_command.h"
#include "app/job_runner.h"
#include "app/live_watchdog.h"
#include "app/studio.h"
#include "app/translation_setup.h"
#include "app/whisper_recognizer.h"
#include "asr/pocketsphinx_engine.h"
#include "audio/audio_decoder.h"
#include "audio/ingest_stage.h"
#include "audio/raw_pcm_reader.h"
#include "core/atomic_file.h"
#include "core/process_stats.h"
#include "core/status.h"
#include "core/sync.h"
#include "graph/pipeline.h"
#include "mt/follow_stage.h"
#include "mt/live_control.h"
#include "mt/speech_follower.h"
#include "mt/translate_stage.h"
#include "output/live_report.h"
#include "output/output_set.h"
#include "output/playout_stage.h"
#include "text/script.h"
#include "tts/bilingual_voice.h"
#include "tts/espeak_engine.h"
#include "tts/voice_stage.h"

namespace lingcast {

namespace {

constexpr MediaTime kReadChunk = MediaTime::Millis(20);

// Queue sizes. Audio in: 10 s of 20 ms pieces, so a slow recognizer makes the
// source wait instead of losing audio (Block, as DESIGN.md says for audio).
constexpr QueueOptions kAudioQueue{500, QueuePolicy::kBlock};
constexpr QueueOptions kEventQueue{256, QueuePolicy::kBlock};
constexpr QueueOptions kHostQueue{500, QueuePolicy::kBlock};

std::string StatusLine(const LiveCounters& c, const VoiceStage& voice, int64_t lines, double cpu_percent) {
  return absl::StrFormat("live %s | host %6.1f s | out %6.1f s | lag %4.1f s | queued %d | lines %lld | skipped %lld | "
                         "drops a%lld v%lld | cpu %3.0f%%",
                         c.speaking ? "speaking" : "idle    ", c.host_time.seconds(), c.output_time.seconds(),
                         voice.planned_lag().seconds(), c.queued_lines, static_cast<long long>(lines),
                         static_cast<long long>(voice.skipped()), static_cast<long long>(c.audio_drops),
                         static_cast<long long>(c.video_drops), cpu_percent);
}

// The host's audio: raw PCM on stdin, a URL, or a file. Held by pointer: the
// reader captures the addresses of the readers.
struct LiveInput {
  std::optional<AudioFileReader> file;
  std::optional<RawPcmReader> raw;
  AudioChunkReader read;
  bool network = false;  // paces itself; its audio is stamped as it arrives
};

absl::StatusOr<std::unique_ptr<LiveInput>> OpenLiveInput(const InputConfig& config, std::istream& stdin_stream) {
  auto input = std::make_unique<LiveInput>();
  LiveInput& in = *input;
  if (config.path == "-") {
    LC_ASSIGN_OR_RETURN(in.raw, RawPcmReader::Create(stdin_stream, RawPcmConfig{}, "-"));
    in.read = [&in](AudioBuffer& chunk) { return in.raw->Read(chunk, kReadChunk); };
    return input;
  }
  if (AudioFileReader::IsUrl(config.path)) {
    LC_ASSIGN_OR_RETURN(in.file, AudioFileReader::OpenUrl(config.path, 16000, config.source_timeout));
    in.network = true;
  } else {
    LC_ASSIGN_OR_RETURN(in.file, AudioFileReader::Open(config.path, 16000));
  }
  in.read = [&in](AudioBuffer& chunk) { return in.file->Read(chunk, kReadChunk); };
  return input;
}

// What the viewer sees besides the avatar's voice, checked with the input:
// before any model loads.
struct LiveLook {
  LookConfig look;
  std::shared_ptr<const rig::Rig> rig;
  compose::CompositorOptions compositor;
  std::unique_ptr<compose::PictureInPicture> picture_in_picture;  // null: none
  // What draws the frames (--renderer), chosen once: a switched picture is drawn by the same.
  compose::RendererKind renderer = compose::RendererKind::kCpu;
};

absl::StatusOr<std::unique_ptr<compose::PictureInPicture>> OpenLivePictureInPicture(const LookConfig& config,
                                                                                     const InputConfig& input,
                                                                                     int width, int height) {
  if (!config.picture_in_picture) return nullptr;
  compose::PictureInPictureOptions pip;
  pip.delay = PlayoutOptions{}.host_delay;  // in step with the host's voice when passed through
  return compose::PictureInPicture::Open(input.path, width, height, pip);
}

absl::StatusOr<LiveLook> LoadLiveLook(const LookConfig& config, const InputConfig& input) {
  LiveLook look;
  look.look = config;
  LC_ASSIGN_OR_RETURN(look.rig, LoadStudioAvatar(look.look));
  LC_ASSIGN_OR_RETURN(look.compositor, StudioCompositorOptions(look.look));
  LC_ASSIGN_OR_RETURN(look.picture_in_picture, OpenLivePictureInPicture(config, input, config.width, config.height));
  LC_ASSIGN_OR_RETURN(look.renderer, compose::ChooseRenderer(config.renderer));
  return look;
}

// The first picture. A GPU that was found but cannot take the show is a
// warning under --renderer auto (the CPU draws), an error under cuda.
absl::StatusOr<PlayoutPicture> OpenLivePicture(LiveLook& look, Logger& logger) {
  PlayoutPicture picture;
  LC_ASSIGN_OR_RETURN(picture.compositor, compose::Compositor::Create(look.compositor));
  picture.picture_in_picture = std::move(look.picture_in_picture);
  if (look.renderer != compose::RendererKind::kCuda) return picture;
  absl::StatusOr<std::unique_ptr<compose::GpuCompositor>> gpu = compose::CreateGpuCompositor(*picture.compositor);
  if (gpu.ok()) {
    picture.gpu = *std::move(gpu);
  } else if (look.look.renderer == "auto") {
    logger.Warn("live", "the CUDA renderer could not start: drawing on the CPU",
                {{"error", std::string(gpu.status().message())}});
    look.renderer = compose::RendererKind::kCpu;
  } else {
    return gpu.status();
  }
  return picture;
}

// The picture at another size for a live video switch: the look laid out for
// it as at start-up (layout, fonts and the avatar's scale follow the size),
// drawn by the renderer the show started with.
PlayoutPictureFactory LivePictureFactory(const LiveLook& live_look, const InputConfig& input) {
  return [config = live_look.look, renderer = live_look.renderer, input](int width,
                                                                          int height) -> absl::StatusOr<PlayoutPicture> {
    StudioLook look = config;
    look.width = width;
    look.height = height;
    LC_ASSIGN_OR_RETURN(const compose::CompositorOptions options, StudioCompositorOptions(look));
    PlayoutPicture picture;
    LC_ASSIGN_OR_RETURN(picture.compositor, compose::Compositor::Create(options));
    LC_ASSIGN_OR_RETURN(picture.picture_in_picture, OpenLivePictureInPicture(config, input, width, height));
    if (renderer == compose::RendererKind::kCuda) {
      LC_ASSIGN_OR_RETURN(picture.gpu, compose::CreateGpuCompositor(*picture.compositor));
    }
    return picture;
  };
}

// What the host is expected to say: the script's lines in the host's language.
absl::StatusOr<std::vector<FollowerLine>> LoadScriptLines(const std::string& script_path, Language source) {
  if (script_path.empty()) return std::vector<FollowerLine>{};
  LC_ASSIGN_OR_RETURN(const Script script, ParseScriptFile(script_path));
  std::vector<FollowerLine> lines = FollowerLinesFromScript(script, source);
  if (lines.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(script_path, " has no line in ", std::string(LanguageCode(source)),
                                                   ", the language given by --source"));
  }
  return lines;
}

// The recognizer the host is heard with, and whether Whisper's own translate
// task interprets a Mandarin host's off-script speech (no MT model: the
// fallback after the memory and an LLM, docs/live.md).
struct LiveHearing {
  std::shared_ptr<AsrModel> asr;
  bool whisper_translates = false;
  MediaTime partial_interval;  // how often the follower asks for a partial
};

// What each recognizer takes from the show's options.
absl::StatusOr<RecognizerSettings> LiveRecognizerSettings(const LiveOptions& options, const RecognizerChoice& recognizer,
                                                          bool whisper_translates, const PartialCadence& cadence,
                                                          Logger& logger) {
  RecognizerSettings settings;
  // The host's language is given: no detection per utterance, no translation
  // by Whisper (the follower and the translators do that).
  WhisperPluginRequest& request = settings.whisper;
  request.model_dir = recognizer.model_dir;
  request.language = std::string(LanguageCode(options.source));
  request.also_translate = whisper_translates;
  request.int8_on_cpu = true;
  request.device = options.neural.device;
  request.dtype = options.neural.dtype;
  request.logger = &logger;
  if (cadence.whisper_cpu_ms > 0) request.min_partial_interval_ms = cadence.whisper_cpu_ms;
  if (cadence.whisper_gpu_ms > 0) request.min_partial_interval_gpu_ms = cadence.whisper_gpu_ms;
  LC_ASSIGN_OR_RETURN(settings.zh_script, ParseZhScriptFlag(options.recognition.zh_script));
  settings.pocketsphinx.language = options.source;
  settings.pocketsphinx.script_path = options.translation.script_path;
  settings.pocketsphinx.logger = &logger;
  return settings;
}

// `scores_openings`: the follower will ask for opening scores, if the
// recognizer can give them (Whisper can).
absl::StatusOr<LiveHearing> LoadLiveRecognizer(const LiveOptions& options, bool scores_openings, Logger& logger,
                                               EngineCache* engines) {
  const RecognitionConfig& config = options.recognition;
  LC_ASSIGN_OR_RETURN(const RecognizerChoice recognizer,
                      ResolveRecognizer(kUsedByLive, config.engine, config.model_dir, options.source, "--source",
                                        /*follows_script=*/!options.translation.script_path.empty()));
  logger.Info("live", "recognizer", {{"engine", recognizer.engine}, {"why", recognizer.reason}});
  const EngineInfo& engine = *FindEngine(EngineRole::kRecognizer, recognizer.engine);
  LiveHearing hearing;
  hearing.whisper_translates = engine.translates_speech && options.source == Language::kZh &&
                               options.target == Language::kEn &&
                               !AnyNeuralEngine(EngineRole::kTranslator, options.translation.engines);
  const PartialCadence cadence = LivePartialCadence(config, scores_openings && engine.neural);
  hearing.partial_interval = cadence.follower;
  LC_ASSIGN_OR_RETURN(const RecognizerSettings settings,
                      LiveRecognizerSettings(options, recognizer, hearing.whisper_translates, cadence, logger));
  auto load = [&]() -> absl::StatusOr<std::shared_ptr<AsrModel>> { return MakeRecognizer(engine.name, settings); };
  // Only a neural model is worth sharing between the server's sessions.
  if (engines == nullptr || !engine.neural) {
    LC_ASSIGN_OR_RETURN(hearing.asr, load());
    return hearing;
  }
  const WhisperPluginRequest& request = settings.whisper;
  const std::string key = absl::StrCat("whisper|", request.model_dir, "|", request.language, "|",
                                       request.also_translate, "|", request.device, "|", request.dtype, "|",
                                       config.zh_script, "|", cadence.whisper_cpu_ms, "|", cadence.whisper_gpu_ms);
  LC_ASSIGN_OR_RETURN(hearing.asr, engines->Recognizer(key, load));
  return hearing;
}

// The script's memory and the fallback engines for off-script speech. A null
// chain: off-script speech becomes subtitles only.
absl::StatusOr<TranslationStack> LoadLiveTranslation(const LiveOptions& options, bool whisper_translates,
                                                     std::shared_ptr<const ZhScriptConverter> to_simplified,
                                                     Clock& clock, Logger& logger, EngineCache* engines) {
  const TranslationConfig& config = options.translation;
  TranslationOptions translation;
  translation.from = options.source;
  translation.to = options.target;
  if (!config.script_path.empty()) translation.memory_paths.push_back(config.script_path);
  translation.memory_paths.insert(translation.memory_paths.end(), config.memory_paths.begin(),
                                  config.memory_paths.end());
  translation.glossary_path = config.glossary_path;
  translation.corrections_path = config.corrections_path;
  translation.engines = config.engines;
  if (translation.memory_paths.empty()) {
    // Without a script or --tm there is no memory to look in: off-script speech
    // goes to the other engines, or becomes subtitles only.
    std::erase(translation.engines, "tm");
    if (translation.engines.empty() && whisper_translates) {
      logger.Info("live", "no script, --tm or --engine llm: off-script speech is interpreted by Whisper's translate task");
    } else if (translation.engines.empty()) {
      logger.Warn("live", "no script, --tm or --engine llm: what the host says is shown, not interpreted");
    }
  }
  translation.llm = config.llm;
  translation.marian_model_dir = config.marian_model_dir;
  translation.marian_device = options.neural;
  translation.to_simplified = std::move(to_simplified);
  translation.shared_engines = engines;
  LC_ASSIGN_OR_RETURN(TranslationStack stack, BuildTranslationStack(translation, clock, logger));
  if (translation.engines.empty()) stack.chain.reset();  // subtitles only off script
  return stack;
}

// The avatar's voice: the studio's choice (auto, espeak), or the checkpoint
// --tts-model names. A checkpoint that cannot speak the avatar's language
// fails now, not at the show's first line.
absl::StatusOr<std::unique_ptr<TtsEngine>> LoadLiveVoice(const VoiceConfig& config, Language target,
                                                         const NeuralDeviceFlags& neural, Logger& logger) {
  std::unique_ptr<TtsEngine> tts;
  if (!FindEngine(EngineRole::kVoice, config.engine)->needs_model_dir) {
    LC_ASSIGN_OR_RETURN(const StudioVoiceChoice voices,
                        ChooseStudioVoice(config.engine, config.voice_zh, config.voice_en));
    LC_ASSIGN_OR_RETURN(tts, MakeStudioVoice(voices, config.voice_zh, config.voice_en, neural, &logger));
    return tts;
  }
  VoiceEngineSettings settings;
  settings.model_dir = config.model_dir;
  settings.neural = neural;
  settings.logger = &logger;
  LC_ASSIGN_OR_RETURN(tts, MakeVoice(config.engine, settings));
  SynthesisRequest probe;
  probe.text = target == Language::kZh ? "你好" : "Hello";
  probe.language = target;
  if (absl::Status spoken = tts->Synthesize(probe).status(); !spoken.ok()) {
    return absl::Status(spoken.code(), absl::StrCat("--tts-model ", config.model_dir, ": ", spoken.message()));
  }
  return tts;
}

// The voice, from `engines` when the job shares them (the server's sessions).
absl::StatusOr<std::shared_ptr<TtsEngine>> LoadSharedLiveVoice(const LiveOptions& options, Logger& logger,
                                                              EngineCache* engines) {
  const VoiceConfig& config = options.voice;
  auto load = [&]() -> absl::StatusOr<std::shared_ptr<TtsEngine>> {
    return LoadLiveVoice(config, options.target, options.neural, logger);
  };
  if (engines == nullptr) return load();
  // espeak-ng has no model to share, and a shared instance carries its state
  // from one show to the next: only a neural voice for the avatar's language is shared.
  if (!FindEngine(EngineRole::kVoice, config.engine)->needs_model_dir) {
    LC_ASSIGN_OR_RETURN(const StudioVoiceChoice choice,
                        ChooseStudioVoice(config.engine, config.voice_zh, config.voice_en));
    const std::string& neural_dir = options.target == Language::kZh ? choice.mandarin_dir : choice.english_dir;
    if (neural_dir.empty()) return load();
  }
  const std::string key =
      absl::StrCat(config.engine, "|", config.model_dir, "|", config.voice_zh, "|", config.voice_en, "|",
                   options.neural.device, "|", options.neural.dtype, "|", std::string(LanguageCode(options.target)));
  return engines->Voice(key, load);
}

absl::StatusOr<std::unique_ptr<OutputSet>> OpenLiveOutputs(const OutputsConfig& config,
                                                          const std::vector<OutputSpec>& specs, const LookConfig& look,
                                                          int voice_rate, Clock& clock, Logger& logger) {
  VideoEncoderOptions video = StudioVideoOptions(look, look.fps, config.preset, config.crf, config.encoder_threads);
  bool network = false;
  for (const OutputSpec& spec : specs) network |= spec.kind == OutputSpec::kRtmp || spec.kind == OutputSpec::kSrt;
  if (network) video.bitrate = static_cast<int64_t>(config.bitrate_kbps) * 1000;
  // The simulated clock encodes and muxes exactly as a live run does (no
  // lookahead, a rolling HLS window), so a soak on it measures the memory and
  // the stream a real show has. A full VOD playlist would grow by one entry per
  // segment (12 KB each in libavformat's HLS muxer) for as long as the run lasts.
  video.tune = "zerolatency";
  AudioEncoderOptions audio;
  audio.input_sample_rate = voice_rate;
  OutputSetOptions output_options;
  output_options.live = true;
  output_options.on_packet_written = config.on_packet_written;
  // Each rotated file closes at the first keyframe after its boundary:
  // StudioVideoOptions' keyframe interval (2 s) is how far past it that can be.
  output_options.mp4_segment_length = MediaTime::Seconds(config.segment_minutes * 60.0);
  // Adaptive bitrate (docs/outputs.md): every step is logged; the report counts them.
  output_options.on_bitrate_step = [&logger](const BitrateStep& step) {
    logger.Info("outputs", step.down() ? "video bitrate stepped down (congestion)" : "video bitrate stepped up",
                {{"from_kbps", std::to_string(step.from / 1000)},
                 {"to_kbps", std::to_string(step.to / 1000)},
                 {"at", step.at.ToString()}});
  };
  return OutputSet::Open(specs, video, audio, output_options, clock);
}

// Everything a show is made of, loaded and checked before it starts.
struct LiveParts {
  std::unique_ptr<LiveInput> input;
  LiveLook look;
  std::vector<FollowerLine> lines;
  LiveHearing hearing;
  std::optional<SpeechFollower> follower;
  TranslationStack translation;
  std::unique_ptr<LiveControl> control;  // null without --control
  std::shared_ptr<TtsEngine> tts;
  // espeak-ng, for the watchdog's third rung, when the avatar's voice is a neural one; else null.
  std::unique_ptr<TtsEngine> lighter_voice;
  PlayoutPicture picture;  // the first picture the playout draws
  std::unique_ptr<OutputSet> outputs;
  bool records_mp4 = false;  // an MP4 among the outputs
};

// Whether the avatar's voice in `language` is espeak-ng already (nothing lighter to fall back to).
bool SpeaksWithEspeak(const TtsEngine& voice, Language language) {
  if (const auto* both = dynamic_cast<const BilingualVoice*>(&voice)) {
    return SpeaksWithEspeak(language == Language::kZh ? both->mandarin() : both->english(), language);
  }
  return dynamic_cast<const EspeakEngine*>(&voice) != nullptr;
}

// In the order a user's mistakes should surface: the input and the look
// before any model loads, the models before the outputs are opened.
absl::StatusOr<LiveParts> LoadLiveParts(const LiveOptions& options, const std::vector<OutputSpec>& specs,
                                        std::istream& stdin_stream, Clock& clock, Clock& system_clock,
                                        Logger& logger, EngineCache* engines) {
  LiveParts parts;
  LC_ASSIGN_OR_RETURN(parts.input, OpenLiveInput(options.input, stdin_stream));
  LC_ASSIGN_OR_RETURN(parts.look, LoadLiveLook(options.look, options.input));
  LC_ASSIGN_OR_RETURN(parts.lines, LoadScriptLines(options.translation.script_path, options.source));
  SpeechFollowerOptions follower_options;
  follower_options.score_openings = options.recognition.score_openings;
  LC_ASSIGN_OR_RETURN(parts.hearing,
                      LoadLiveRecognizer(options, ScoresOpenings(follower_options, parts.lines.size()), logger, engines));
  follower_options.recognizer.partial_interval = parts.hearing.partial_interval;
  // Lines and what is heard in one spelling (mt/match_text.h); the memory shares its converter.
  LC_ASSIGN_OR_RETURN(follower_options.spelling, MatchSpelling::Load(options.source));
  LC_ASSIGN_OR_RETURN(parts.follower, SpeechFollower::Create(*parts.hearing.asr, parts.lines, follower_options));
  LC_ASSIGN_OR_RETURN(parts.translation,
                      LoadLiveTranslation(options, parts.hearing.whisper_translates,
                                          follower_options.spelling.to_simplified(), system_clock, logger, engines));
  if (options.translation.control_in_process) {
    parts.control = LiveControl::InProcess();
  } else if (!options.translation.control_path.empty()) {
    LC_ASSIGN_OR_RETURN(parts.control, LiveControl::Open(options.translation.control_path));
  }
  LC_ASSIGN_OR_RETURN(parts.tts, LoadSharedLiveVoice(options, logger, engines));
  if (options.watchdog.enabled && !SpeaksWithEspeak(*parts.tts, options.target)) {
    LC_ASSIGN_OR_RETURN(parts.lighter_voice, MakeStudioVoice(options.voice.voice_zh, options.voice.voice_en));
  }
  LC_ASSIGN_OR_RETURN(parts.picture, OpenLivePicture(parts.look, logger));
  parts.records_mp4 = std::any_of(specs.begin(), specs.end(),
                                  [](const OutputSpec& spec) { return spec.kind == OutputSpec::kMp4; });
  LC_ASSIGN_OR_RETURN(parts.outputs,
                      OpenLiveOutputs(options.outputs, specs, options.look, parts.tts->sample_rate(), clock, logger));
  return parts;
}

// The show's graph:
//
//   ingest --audio--> hear --LiveEvent--> translate --LiveEvent--> voice --VoiceEvent--> playout
//      \------------------------- host voice (--passthrough) ---------------------------/
struct LiveGraph {
  explicit LiveGraph(Clock& clock) : pipeline(clock, bus, &latency) {}
  Bus bus;
  LatencyTracker latency;
  LiveMonitor monitor;
  ProvisionalInterrupt interrupt;
  SessionStart session_start;
  Pipeline pipeline;
  TranslateStage* translate = nullptr;
  VoiceStage* voice = nullptr;
  std::unique_ptr<LiveWatchdog> watchdog;  // null with --watchdog off
  // The watchdog's second rung; null where lowering the picture would cost
  // more than it saves (an MP4 output: it would be fed a second encode).
  std::unique_ptr<LowerVideoRung> lower_video;
};

// The voice stage's settings: the voice's, and the timing's pacing of lines.
VoiceStageOptions VoiceStageOptionsOf(const VoiceConfig& voice, const TimingConfig& timing, Language target) {
  VoiceStageOptions options;
  options.language = target;
  options.voice = target == Language::kZh ? voice.voice_zh : voice.voice_en;
  options.rate = voice.rate;
  options.policy = timing.lag_policy;
  options.max_lag = timing.max_lag;
  options.max_speedup = timing.max_speedup;
  options.line_gap = timing.line_gap;
  return options;
}

// The playout's settings that come from the options (the run sets the rest).
PlayoutOptions PlayoutOptionsOf(const LookConfig& look, const TimingConfig& timing, const InputConfig& input,
                                Language source, Language target) {
  PlayoutOptions options;
  options.fps = look.fps;
  options.animation.seed = look.seed;
  options.source = source;
  options.target = target;
  options.simulated = timing.clock == LiveClock::kSimulated;
  options.line_gap = timing.line_gap;
  options.subtitle_linger = timing.subtitle_linger;
  options.host_gain_db = input.passthrough_gain_db;
  options.duck_db = input.duck_db;
  return options;
}

std::unique_ptr<LiveGraph> BuildLiveGraph(const LiveOptions& options, LiveParts& parts, Clock& clock, Logger& logger) {
  auto graph = std::make_unique<LiveGraph>(clock);
  Pipeline& pipeline = graph->pipeline;
  const bool simulated = options.timing.clock == LiveClock::kSimulated;
  const bool file = parts.input->file.has_value() && !parts.input->network;
  const MediaTime session_start = clock.Now();

  IngestOptions ingest_options;
  ingest_options.pace = !simulated && file;
  ingest_options.session_start = session_start;
  // On the real clock the timeline starts when the graph runs, not when it is
  // built: opening the outputs and loading the engines is not lateness.
  if (!simulated) ingest_options.start_when_running = &graph->session_start;
  ingest_options.origin_from_timeline = simulated || file;
  auto& ingest = pipeline.Add(std::make_unique<IngestStage>(parts.input->read, ingest_options));
  // Ad-libs translated as they are spoken (docs/live.md), when an engine can.
  ProvisionalOptions provisional;
  provisional.enabled = options.translation.provisional_captions && parts.translation.chain != nullptr;
  provisional.newest_only = !simulated;
  provisional.interrupt = simulated ? nullptr : &graph->interrupt;
  FollowStageOptions hear_options;
  hear_options.partials = provisional.enabled;
  hear_options.interrupt = provisional.interrupt;
  auto& hear = pipeline.Add(std::make_unique<FollowStage>(std::move(*parts.follower), parts.lines, hear_options));
  graph->translate = &pipeline.Add(std::make_unique<TranslateStage>(
      parts.translation, options.source, options.target, parts.lines, parts.control.get(), logger, provisional));
  graph->voice = &pipeline.Add(
      std::make_unique<VoiceStage>(*parts.tts, VoiceStageOptionsOf(options.voice, options.timing, options.target),
                                   parts.lighter_voice.get()));
  PlayoutOptions playout_options =
      PlayoutOptionsOf(options.look, options.timing, options.input, options.source, options.target);
  playout_options.output_rate = parts.tts->sample_rate();
  // `video` commands (--control, the server's video endpoint) and the
  // watchdog's second rung switch the picture live.
  if (options.watchdog.enabled && !parts.records_mp4) graph->lower_video = std::make_unique<LowerVideoRung>();
  if (parts.control != nullptr || graph->lower_video != nullptr) {
    playout_options.take_video_changes = [control = parts.control.get(), lower = graph->lower_video.get()] {
      std::vector<absl::StatusOr<VideoChange>> changes =
          control != nullptr ? control->TakeVideoChanges() : std::vector<absl::StatusOr<VideoChange>>{};
      if (lower != nullptr) {
        for (VideoChange& change : lower->TakeChanges()) changes.push_back(change);
      }
      return changes;
    };
  }
  playout_options.make_picture = LivePictureFactory(parts.look, options.input);
  playout_options.session_start = session_start;
  if (!simulated) playout_options.start_when_running = &graph->session_start;
  auto& playout = pipeline.Add(std::make_unique<PlayoutStage>(
      playout_options, std::move(parts.picture), std::make_unique<AvatarRenderer>(parts.look.rig), *parts.outputs,
      graph->monitor));
  pipeline.Connect(ingest.out, hear.in, kAudioQueue);
  if (options.input.passthrough) pipeline.Connect(ingest.out, playout.host, kHostQueue);
  pipeline.Connect(hear.out, graph->translate->in, kEventQueue);
  pipeline.Connect(graph->translate->out, graph->voice->in, kEventQueue);
  pipeline.Connect(graph->voice->out, playout.in, kEventQueue);
  return graph;
}

// The watchdog over the built graph (app/live_watchdog.h): it reads the
// process's memory and the avatar's lag, and its rungs act on the stages.
absl::StatusOr<std::unique_ptr<LiveWatchdog>> MakeLiveWatchdog(const WatchdogConfig& config, LiveGraph& graph,
                                                               Logger& logger) {
  LC_ASSIGN_OR_RETURN(DegradationLadder ladder, DegradationLadder::Create(config.limits));
  LiveWatchdog::Rungs rungs;
  TranslateStage* translate = graph.translate;
  rungs.drop_provisional_captions = [translate](bool taken, const LiveCounters&) {
    translate->PauseProvisionalCaptions(taken);
  };
  VoiceStage* voice = graph.voice;
  if (voice->has_lighter_voice()) {
    rungs.lighter_voice = [voice](bool taken, const LiveCounters&) { voice->UseLighterVoice(taken); };
  }
  if (LowerVideoRung* lower = graph.lower_video.get()) {
    rungs.lower_video = [lower](bool taken, const LiveCounters& now) { lower->Act(taken, now); };
  }
  // The lag of the latest line while the avatar still has lines to say; none
  // once it has caught up (the last line's lag is history then).
  // The GPU's memory only when watched: reading it makes a CUDA context in a
  // process that has none.
  const bool watch_gpu = config.limits.gpu_high_mb > 0;
  auto reading = [voice, watch_gpu](const LiveCounters& counters) {
    PressureReading r;
    r.rss_mb = CurrentRssMb();
    if (watch_gpu) r.gpu_mb = GpuMemoryInUseMb();
    r.lag = counters.speaking || counters.queued_lines > 0 ? voice->planned_lag() : MediaTime::Zero();
    return r;
  };
  auto watchdog = std::make_unique<LiveWatchdog>(std::move(ladder), std::move(rungs), std::move(reading), logger,
                                                 graph.monitor);
  watchdog->Watch();
  return watchdog;
}

// The live report (output/live_report.h) with the run's own figures.
nlohmann::json LiveJobReport(const LiveOptions& options, const LiveParts& parts, const LiveGraph& graph,
                             const JobRunner& runner, bool stopped) {
  const double wall_s = runner.wall_seconds();
  const OutputSetStats output_stats = parts.outputs->stats();
  nlohmann::json extra;
  extra["peak_rss_mb"] = std::round(PeakRssMb() * 10) / 10;
  extra["rss_start_mb"] = std::round(runner.rss_start_mb() * 10) / 10;
  extra["rss_end_mb"] = std::round(CurrentRssMb() * 10) / 10;
  extra["cpu_percent"] = std::round(10 * runner.cpu_percent()) / 10;
  extra["wall_seconds"] = std::round(wall_s * 100) / 100;
  extra["clock"] = options.timing.clock == LiveClock::kSimulated ? "simulated" : "realtime";
  extra["recognizer"] = parts.hearing.asr->name();
  extra["voice"] = parts.tts->name();
  extra["renderer"] = compose::RendererName(parts.look.renderer);
  extra["lag_policy"] = LagPolicyName(options.timing.lag_policy);
  const TranslateStage& translate = *graph.translate;
  extra["untranslated_off_script"] = translate.failures();
  extra["corrections_applied"] = translate.corrections_applied();
  extra["corrections_rejected"] = translate.corrections_rejected();
  extra["provisional_captions"] = translate.provisional_captions();
  extra["provisional_failures"] = translate.provisional_failures();
  extra["provisional_dropped"] = translate.provisional_dropped();
  extra["provisional_interrupted"] = graph.interrupt.interrupted();
  extra["provisional_paused"] = translate.provisional_paused();
  extra["lighter_voice_lines"] = graph.voice->lighter_lines();
  if (graph.watchdog) extra["degradation"] = graph.watchdog->Report();
  extra["stopped_by_signal"] = stopped;
  // The stages' recoverable failures, by stage (the first few are also logged).
  extra["warnings"] = runner.warnings();
  int64_t congestion_drops = 0;
  nlohmann::json outputs_json = nlohmann::json::array();
  for (const OutputSinkStats& s : output_stats.outputs) {
    congestion_drops += s.dropped_video_frames;
    outputs_json.push_back({{"name", s.name},
                            {"bytes", s.bytes},
                            {"bitrate", std::round(s.bitrate)},
                            {"dropped_video_frames", s.dropped_video_frames},
                            {"reconnects", s.reconnects},
                            {"max_send_buffer_bytes", s.max_send_buffer_bytes},
                            {"max_send_buffer_packets", s.max_send_buffer_packets},
                            {"error", s.error}});
  }
  extra["outputs"] = std::move(outputs_json);
  extra["video_bitrate"] = {{"now", output_stats.video_bitrate},
                            {"lowest", output_stats.min_video_bitrate},
                            {"steps_down", output_stats.bitrate_steps_down},
                            {"steps_up", output_stats.bitrate_steps_up}};
  nlohmann::json report = graph.monitor.Report(graph.latency.Summaries(), extra);
  report["summary"]["video_drops"] = report["summary"]["video_drops"].get<int64_t>() + congestion_drops;
  return report;
}

}  // namespace

absl::Status CheckLiveLookAndScript(const LiveOptions& options) {
  LC_RETURN_IF_ERROR(LoadLiveLook(options.look, options.input).status());
  return LoadScriptLines(options.translation.script_path, options.source).status();
}

// Everything a live job holds while it runs. The clocks come first: the
// parts and the graph read them until the end.
struct LiveJob::Impl {
  LiveOptions options;
  Logger& logger;
  SystemClock system_clock;
  SimulatedClock simulated_clock;
  std::optional<LiveParts> parts;
  std::unique_ptr<LiveGraph> graph;
  mutable Mutex mu;
  JobRunner* runner ABSL_GUARDED_BY(mu) = nullptr;
  bool stop_requested ABSL_GUARDED_BY(mu) = false;
  bool ran ABSL_GUARDED_BY(mu) = false;

  Impl(LiveOptions options_in, Logger& logger_in) : options(std::move(options_in)), logger(logger_in) {}
  Clock& clock() {
    return options.timing.clock == LiveClock::kSimulated ? static_cast<Clock&>(simulated_clock)
                                                  : static_cast<Clock&>(system_clock);
  }
};

LiveJob::LiveJob(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LiveJob::~LiveJob() = default;

absl::StatusOr<std::unique_ptr<LiveJob>> LiveJob::Create(const LiveOptions& options, Logger& logger,
                                                         std::istream& stdin_stream, EngineCache* engines) {
  LC_RETURN_IF_ERROR(ValidateLiveOptions(options));
  if (!options.report_path.empty()) LC_RETURN_IF_ERROR(CheckOutputPath(options.report_path));
  std::vector<OutputSpec> specs;
  for (const std::string& out : options.outputs.destinations) {
    LC_ASSIGN_OR_RETURN(OutputSpec spec, ParseOutputSpec(out));
    specs.push_back(std::move(spec));
  }
  auto impl = std::make_unique<Impl>(options, logger);
  LC_ASSIGN_OR_RETURN(impl->parts,
                      LoadLiveParts(impl->options, specs, stdin_stream, impl->clock(), impl->system_clock, logger,
                                    engines));
  impl->graph = BuildLiveGraph(impl->options, *impl->parts, impl->clock(), logger);
  if (impl->options.watchdog.enabled) {
    LC_ASSIGN_OR_RETURN(impl->graph->watchdog, MakeLiveWatchdog(impl->options.watchdog, *impl->graph, logger));
  }
  return std::unique_ptr<LiveJob>(new LiveJob(std::move(impl)));
}

absl::StatusOr<nlohmann::json> LiveJob::Run(SignalWatcher* signals, std::FILE* status) {
  Impl& job = *impl_;
  LiveGraph& graph = *job.graph;
  // SIGINT/SIGTERM or RequestStop(): stop taking input and wind down (live_job.h).
  JobRunnerOptions run_options;
  run_options.job = "live";
  run_options.tick = absl::Milliseconds(500);
  run_options.on_signal = OnStopSignal::kDrain;
  run_options.drain_deadline = absl::Seconds(kLiveStopDeadlineSeconds);
  JobRunner runner(graph.pipeline, signals, job.logger, run_options);
  {
    MutexLock lock(&job.mu);
    if (job.ran) return absl::FailedPreconditionError("a live job runs once");
    job.ran = true;
    LC_RETURN_IF_ERROR(runner.Start());
    job.runner = &runner;
    if (job.stop_requested) runner.RequestStop();
  }
  job.logger.Info("live", "started",
                  {{"input", job.options.input.path},
                   {"outputs", absl::StrCat(job.options.outputs.destinations.size())}});
  const absl::Status result = runner.Wait([&](const JobTick& tick) {
    if (status == nullptr) return;
    const auto lines = static_cast<int64_t>(graph.monitor.line_count());
    std::fprintf(status, "\r%s", StatusLine(graph.monitor.counters(), *graph.voice, lines, tick.cpu_percent).c_str());
    std::fflush(status);
  });
  if (status != nullptr) std::fprintf(status, "\n");
  const bool stopped = runner.stop_requested();
  {
    MutexLock lock(&job.mu);
    job.runner = nullptr;
  }
  LC_RETURN_IF_ERROR(result);

  nlohmann::json report = LiveJobReport(job.options, *job.parts, graph, runner, stopped);
  if (!job.options.report_path.empty()) {
    LC_RETURN_IF_ERROR(WriteFileAtomically(job.options.report_path, report.dump(2) + "\n"));
  }
  return report;
}

void LiveJob::RequestStop() {
  MutexLock lock(&impl_->mu);
  impl_->stop_requested = true;
  if (impl_->runner != nullptr) impl_->runner->RequestStop();
}

LiveProgress LiveJob::Progress() const {
  const LiveGraph& graph = *impl_->graph;
  LiveProgress progress;
  progress.counters = graph.monitor.counters();
  progress.lines = static_cast<int64_t>(graph.monitor.line_count());
  progress.skipped = graph.voice->skipped();
  progress.planned_lag = graph.voice->planned_lag();
  progress.report = graph.monitor.Report(graph.latency.Summaries(), nlohmann::json::object());
  progress.queues = graph.pipeline.Stats();
  if (graph.watchdog) progress.degradation = graph.watchdog->Report();
  // The encode's bitrate as the adaptive bitrate has it now (the server's /metrics).
  const OutputSetStats outputs = impl_->parts->outputs->stats();
  nlohmann::json& summary = progress.report["summary"];
  summary["video_bitrate"] = outputs.video_bitrate;
  summary["bitrate_steps_down"] = outputs.bitrate_steps_down;
  summary["bitrate_steps_up"] = outputs.bitrate_steps_up;
  return progress;
}

void LiveJob::SetPressureSource(std::function<PressureReading(const LiveCounters&)> source) {
  if (impl_->graph->watchdog) impl_->graph->watchdog->SetReadingSource(std::move(source));
}

void LiveJob::SetDegradationFloor(int level) {
  if (impl_->graph->watchdog) impl_->graph->watchdog->SetFloor(level);
}

absl::Status LiveJob::SubmitCorrection(const std::string& command) {
  LiveControl* control = impl_->parts->control.get();
  if (control == nullptr || !impl_->options.translation.control_in_process) {
    return absl::FailedPreconditionError("this show takes its corrections from its --control file");
  }
  return control->Submit(command, "api");
}

void LiveJob::SetEventObserver(LiveEventObserver observer) {
  impl_->graph->monitor.SetObserver(std::move(observer));
}

absl::StatusOr<nlohmann::json> RunLive(const LiveOptions& options, Logger& logger, SignalWatcher& signals,
                                       std::istream& stdin_stream, std::FILE* status) {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<LiveJob> job, LiveJob::Create(options, logger, stdin_stream));
  return job->Run(&signals, status);
}

}  // namespace lingcast
