#include "app/render_job.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/job_runner.h"
#include "app/progress.h"
#include "app/render_plan.h"
#include "app/signals.h"
#include "app/studio.h"
#include "core/clock.h"
#include "core/process_stats.h"
#include "core/status.h"
#include "graph/pipeline.h"
#include "compose/gpu_compositor.h"
#include "nlohmann/json.hpp"
#include "compose/render_stage.h"
#include "core/atomic_file.h"
#include "output/encode_stage.h"
#include "output/mp4_output.h"
#include "output/output_set.h"
#include "text/script.h"
#include "tts/espeak_engine.h"
#include "tts/speech_stage.h"

namespace lingcast {
namespace {

// A short idle moment before the first line and after the last, so the video
// neither starts nor ends mid-word.
constexpr MediaTime kLeadIn = MediaTime::Millis(400);
constexpr MediaTime kTail = MediaTime::Millis(600);
// --title: the lower third slides in at the end of the lead-in (app/studio.h).
static_assert(kStudioTitleStart == kLeadIn);

// Queue sizes between the render stages. Speech packets are small (a line of
// audio); frames are big, so only a few are in flight.
constexpr QueueOptions kPlanQueue{16, QueuePolicy::kBlock};
constexpr QueueOptions kAudioQueue{256, QueuePolicy::kBlock};
constexpr QueueOptions kTimingQueue{256, QueuePolicy::kBlock};
constexpr QueueOptions kFrameQueue{4, QueuePolicy::kBlock};

nlohmann::json OutputJson(const OutputSinkStats& o) {
  nlohmann::json j = {
      {"output", o.name},
      {"kind", OutputKindName(o.kind)},
      {"state", OutputStateName(o.state)},
      {"bytes", o.bytes},
      {"bitrate", o.bitrate},
      {"video_packets", o.video_packets},
      {"audio_packets", o.audio_packets},
      {"dropped_video_frames", o.dropped_video_frames},
      {"discarded_packets", o.discarded_packets},
      {"reconnects", o.reconnects},
      {"send_buffer_ms", o.send_buffer.millis()},
      {"av_offset_ms", o.av_offset.millis()},
  };
  if (!o.error.empty()) j["error"] = o.error;
  return j;
}

// Every output, checked before any slow work: a bad file path fails now.
absl::StatusOr<std::vector<OutputSpec>> CheckRenderOutputs(const RenderOptions& options) {
  std::vector<OutputSpec> specs;
  for (const std::string& out : AllOutputs(options)) {
    LC_ASSIGN_OR_RETURN(OutputSpec spec, ParseOutputSpec(out));
    if (spec.kind == OutputSpec::kMp4) {
      LC_RETURN_IF_ERROR(CheckOutputPath(spec.target));
      if (options.subtitles == SubtitleMode::kSrt) LC_RETURN_IF_ERROR(CheckOutputPath(SrtSidecarPath(spec.target)));
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

absl::StatusOr<std::unique_ptr<OutputSet>> OpenRenderOutputs(const RenderOptions& options,
                                                            const std::vector<OutputSpec>& specs,
                                                            const StudioLook& look, int voice_rate, Clock& clock) {
  VideoEncoderOptions video = StudioVideoOptions(look, options.fps, options.preset, options.crf, options.encoder_threads);
  AudioEncoderOptions audio;
  audio.input_sample_rate = voice_rate;
  bool live = options.realtime;
  for (const OutputSpec& spec : specs) live = live || spec.is_network();
  // A live audience waits for every frame x264 holds back to look ahead.
  if (live) video.tune = "zerolatency";
  OutputSetOptions output_options;
  output_options.live = live;
  output_options.start_offset = MediaTime::Seconds(options.start_offset_s);
  output_options.srt_sidecars = options.subtitles == SubtitleMode::kSrt;
  // A render's HLS playlist is complete (VOD) even beside a live push: its cues
  // are known only once the speech is made, and a rolling window would have
  // written their segments already. Rolling windows are for `lingcast live`.
  output_options.hls_window_segments = 0;
  return OutputSet::Open(specs, video, audio, output_options, clock);
}

// The render's graph:
//
//   script --PlanItem--> speech --audio-----------------> encode
//                           \--SpeechTiming--> render --frame--/
struct RenderGraph {
  explicit RenderGraph(Clock& clock) : pipeline(clock, bus, &latency) {}
  Bus bus;
  LatencyTracker latency;
  Pipeline pipeline;
  SpeechStage* speech = nullptr;
  RenderStage* render = nullptr;
  EncodeStage* encode = nullptr;
};

std::unique_ptr<RenderGraph> BuildRenderGraph(const RenderOptions& options, std::vector<PlanItem> plan,
                                              TtsEngine& tts, std::unique_ptr<compose::Compositor> compositor,
                                              std::unique_ptr<compose::GpuCompositor> gpu,
                                              std::unique_ptr<AvatarRenderer> avatar,
                                              std::unique_ptr<OutputSet> outputs, Clock& clock) {
  auto graph = std::make_unique<RenderGraph>(clock);
  Pipeline& pipeline = graph->pipeline;
  AnimatorOptions animation;
  animation.seed = options.seed;
  auto& source = pipeline.Add(std::make_unique<ScriptSource>(std::move(plan)));
  auto& speech = pipeline.Add(
      std::make_unique<SpeechStage>(tts, SpeechSettings{options.voice_zh, options.voice_en, options.rate}));
  auto& render = pipeline.Add(std::make_unique<RenderStage>(std::move(compositor), std::move(avatar), animation,
                                                            options.fps, options.subtitles == SubtitleMode::kBurn,
                                                            RenderStage::kDefaultFramesInFlight, std::move(gpu)));
  // The cues reach the outputs (SRT sidecars, HLS WebVTT) once the speech is done.
  auto& encode = pipeline.Add(std::make_unique<EncodeStage>(std::move(outputs), options.fps,
                                                            options.realtime ? &clock : nullptr,
                                                            [stage = &speech] { return stage->cues(); }));
  pipeline.Connect(source.out, speech.in, kPlanQueue);
  pipeline.Connect(speech.audio, encode.audio, kAudioQueue);
  pipeline.Connect(speech.timing, render.in, kTimingQueue);
  pipeline.Connect(render.out, encode.video, kFrameQueue);
  graph->speech = &speech;
  graph->render = &render;
  graph->encode = &encode;
  return graph;
}

// Logs each output's changes of state (a live push that drops, reconnects or
// fails is worth a line of its own).
class OutputStateLog {
 public:
  OutputStateLog(size_t outputs, Logger& logger) : states_(outputs, OutputState::kConnecting), logger_(logger) {}
  void Update(const OutputSetStats& stats) {
    for (size_t i = 0; i < stats.outputs.size() && i < states_.size(); ++i) {
      const OutputSinkStats& o = stats.outputs[i];
      if (o.state == states_[i]) continue;
      states_[i] = o.state;
      const bool bad = o.state == OutputState::kFailed || o.state == OutputState::kReconnecting;
      const std::string reconnects = std::to_string(o.reconnects);
      if (bad) {
        logger_.Warn("output", OutputStateName(o.state),
                     {{"output", o.name}, {"reconnects", reconnects}, {"error", o.error}});
      } else {
        logger_.Info("output", OutputStateName(o.state), {{"output", o.name}, {"reconnects", reconnects}});
      }
    }
  }

 private:
  std::vector<OutputState> states_;
  Logger& logger_;
};

RenderSummary SummaryOf(const RenderOptions& options, const std::vector<OutputSpec>& specs, const RenderGraph& graph,
                        int lines, const TtsEngine& tts, double wall_s) {
  RenderSummary summary;
  const OutputSetStats stats = graph.encode->stats();
  summary.output = specs.front().DisplayName();
  // The first MP4's sidecar (every MP4 output has one).
  for (const OutputSpec& spec : specs) {
    if (options.subtitles == SubtitleMode::kSrt && spec.kind == OutputSpec::kMp4 && summary.subtitles_output.empty()) {
      summary.subtitles_output = SrtSidecarPath(spec.target);
    }
  }
  summary.outputs = stats.outputs;
  summary.duration_s = static_cast<double>(graph.speech->audio_samples()) / tts.sample_rate();
  summary.frames = stats.video_frames;
  summary.width = options.width;
  summary.height = options.height;
  summary.fps = options.fps;
  summary.lines = lines;
  summary.voice = tts.name();
  summary.wall_s = wall_s;
  summary.x_realtime = summary.wall_s > 0 ? summary.duration_s / summary.wall_s : 0;
  summary.peak_rss_mb = PeakRssMb();
  summary.tts_s = graph.speech->tts_seconds();
  summary.render_s = graph.render->render_seconds();
  summary.encode_s = graph.encode->encode_seconds();
  for (const OutputSinkStats& o : stats.outputs) summary.bytes += o.bytes;
  return summary;
}

}  // namespace

absl::StatusOr<RenderSummary> RunRender(const RenderOptions& options, Logger& logger,
                                        SignalWatcher& signals) {
  const auto wall_start = std::chrono::steady_clock::now();
  auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  };
  LC_RETURN_IF_ERROR(ValidateRenderOptions(options));
  LC_ASSIGN_OR_RETURN(Script script, ParseScriptFile(options.script_path));
  // The look (--avatar's rig file first) is read and checked before any slow work starts.
  const StudioLook look = StudioLookOf(options);
  LC_ASSIGN_OR_RETURN(std::shared_ptr<const rig::Rig> rig, LoadStudioAvatar(look));
  LC_ASSIGN_OR_RETURN(const std::vector<OutputSpec> specs, CheckRenderOutputs(options));
  LC_ASSIGN_OR_RETURN(compose::RendererKind renderer, compose::ChooseRenderer(options.renderer));

  std::vector<PlanItem> plan = PlanRender(script, options.speak);
  int lines = 0;
  for (const auto& item : plan) lines += std::holds_alternative<Utterance>(item) ? 1 : 0;
  plan.insert(plan.begin(), PlannedPause{kLeadIn});
  plan.push_back(PlannedPause{kTail});

  LC_ASSIGN_OR_RETURN(const StudioVoiceChoice voices,
                      ChooseStudioVoice(options.tts_engine, options.voice_zh, options.voice_en));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsEngine> tts,
                      MakeStudioVoice(voices, options.voice_zh, options.voice_en, options.neural, &logger,
                                      // A render has no first line to hurry: graphs are captured as lengths come.
                                      /*warm_at_load=*/false));
  LC_ASSIGN_OR_RETURN(compose::CompositorOptions compose_options, StudioCompositorOptions(look));
  LC_ASSIGN_OR_RETURN(auto compositor, compose::Compositor::Create(compose_options));
  std::unique_ptr<compose::GpuCompositor> gpu;
  if (renderer == compose::RendererKind::kCuda) {
    absl::StatusOr<std::unique_ptr<compose::GpuCompositor>> created = compose::CreateGpuCompositor(*compositor);
    if (created.ok()) {
      gpu = *std::move(created);
    } else if (options.renderer == "auto") {  // a GPU was found but cannot take the job: the CPU can
      logger.Warn("render", "the CUDA renderer could not start: drawing on the CPU",
                  {{"error", std::string(created.status().message())}});
      renderer = compose::RendererKind::kCpu;
    } else {
      return created.status();
    }
  }
  auto avatar = std::make_unique<AvatarRenderer>(std::move(rig));
  SystemClock clock;
  LC_ASSIGN_OR_RETURN(auto outputs, OpenRenderOutputs(options, specs, look, tts->sample_rate(), clock));
  const std::unique_ptr<RenderGraph> graph =
      BuildRenderGraph(options, std::move(plan), *tts, std::move(compositor), std::move(gpu), std::move(avatar),
                       std::move(outputs), clock);

  // SIGINT/SIGTERM stop the pipeline; the writer then removes its temp file.
  JobRunnerOptions run_options;
  run_options.job = "render";
  run_options.tick = absl::Milliseconds(250);
  run_options.on_signal = OnStopSignal::kStop;
  JobRunner runner(graph->pipeline, &signals, logger, run_options);
  LC_RETURN_IF_ERROR(runner.Start());
  logger.Info("render", "started", {{"script", options.script_path}, {"output", specs.front().DisplayName()}});
  ProgressBar bar(!options.quiet && !options.json && StderrIsTerminal());
  OutputStateLog output_log(specs.size(), logger);
  const absl::Status result = runner.Wait([&](const JobTick&) {
    output_log.Update(graph->encode->stats());
    const double audio_s = static_cast<double>(graph->speech->audio_samples()) / tts->sample_rate();
    const auto total = static_cast<int64_t>(audio_s * options.fps + 0.999);
    const int64_t frames = graph->encode->frames_encoded();
    bar.Update(frames, total, graph->speech->speech_done(), static_cast<double>(frames) / options.fps,
               seconds_since_start());
  });
  bar.Finish();

  const bool finished = graph->encode->finished();
  if (signals.received() != 0 && !finished) {
    return absl::CancelledError(absl::StrCat("interrupted by signal ", signals.received(), "; no output written"));
  }
  if (signals.received() != 0) {
    logger.Warn("render", "a stop signal came after the output was complete; it is kept",
                {{"output", options.output_path}});
  }
  LC_RETURN_IF_ERROR(result);
  if (!finished) return absl::InternalError("render ended before the output was complete");
  RenderSummary summary = SummaryOf(options, specs, *graph, lines, *tts, seconds_since_start());
  summary.renderer = compose::RendererName(renderer);
  return summary;
}

std::string RenderSummaryJson(const RenderSummary& s) {
  nlohmann::json j = {
      {"output", s.output},
      {"duration_s", s.duration_s},
      {"frames", s.frames},
      {"width", s.width},
      {"height", s.height},
      {"fps", s.fps},
      {"lines", s.lines},
      {"voice", s.voice},
      {"renderer", s.renderer},
      {"wall_s", s.wall_s},
      {"x_realtime", s.x_realtime},
      {"peak_rss_mb", s.peak_rss_mb},
      {"bytes", s.bytes},
      {"stage_seconds", {{"tts", s.tts_s}, {"render", s.render_s}, {"encode", s.encode_s}}},
  };
  if (!s.subtitles_output.empty()) j["subtitles"] = s.subtitles_output;
  j["outputs"] = nlohmann::json::array();
  for (const OutputSinkStats& o : s.outputs) j["outputs"].push_back(OutputJson(o));
  return j.dump(2);
}

std::string RenderSummaryLine(const RenderSummary& s) {
  std::string line = absl::StrFormat("wrote %s: %.1f s, %d frames at %dx%d %d fps, %.1f MB, voice %s; rendered in %.1f s (%.1fx realtime, %s renderer), peak RSS %.0f MB",
                                     s.output, s.duration_s, s.frames, s.width, s.height, s.fps, s.bytes / 1e6,
                                     s.voice.empty() ? "-" : s.voice, s.wall_s, s.x_realtime,
                                     s.renderer.empty() ? "cpu" : s.renderer, s.peak_rss_mb);
  // With several outputs (or a live one), a line for each.
  if (s.outputs.size() > 1 || (s.outputs.size() == 1 && s.outputs[0].kind != OutputSpec::kMp4)) {
    for (const OutputSinkStats& o : s.outputs) {
      absl::StrAppend(&line, absl::StrFormat("\n  %s: %s, %.1f MB, %.0f kbit/s, %d video frames dropped, %d reconnects",
                                             o.name, OutputStateName(o.state), o.bytes / 1e6, o.bitrate / 1000,
                                             o.dropped_video_frames, o.reconnects));
    }
  }
  return line;
}

}  // namespace lingcast
