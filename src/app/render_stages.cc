#include "app/render_stages.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {
namespace {

// Wall time of a block of work, added to one of RenderProgress's counters.
class ScopedWorkTimer {
 public:
  explicit ScopedWorkTimer(std::atomic<double>& total)
      : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~ScopedWorkTimer() {
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    double expected = total_.load();
    while (!total_.compare_exchange_weak(expected, expected + d.count())) {
    }
  }

 private:
  std::atomic<double>& total_;
  const std::chrono::steady_clock::time_point start_;
};

}  // namespace

// --- ScriptSource ------------------------------------------------------------

ScriptSource::ScriptSource(std::vector<PlanItem> plan) : Stage("script"), plan_(std::move(plan)) {}

absl::StatusOr<Flow> ScriptSource::Process() {
  if (next_ == plan_.size()) return Flow::kFinished;
  // pts of script items is their order; the speech stage places them in time.
  const auto index = static_cast<int64_t>(next_);
  LC_RETURN_IF_ERROR(out.Push(Packet<PlanItem>{plan_[next_++], MediaTime::Micros(index), {}, clock().Now()}));
  return Flow::kContinue;
}

// --- SpeechStage -------------------------------------------------------------

SpeechStage::SpeechStage(TtsEngine& engine, SpeechSettings settings, RenderProgress& progress)
    : Stage("tts"), engine_(engine), settings_(std::move(settings)), progress_(progress) {}

absl::StatusOr<Flow> SpeechStage::Process() {
  auto item = in.Pop();
  if (!item) {
    progress_.speech_done.store(true);
    return Flow::kFinished;
  }
  const int rate = engine_.sample_rate();
  if (const auto* pause = std::get_if<PlannedPause>(&item->value)) {
    SpeechTiming pause_timing;
    pause_timing.title = pause->title;
    LC_RETURN_IF_ERROR(Emit(*item, AudioBuffer::Silence(pause->duration, rate), std::move(pause_timing)));
    return Flow::kContinue;
  }
  const auto& utterance = std::get<Utterance>(item->value);
  SynthesisRequest request;
  request.text = utterance.spoken.text;
  request.language = utterance.spoken.language;
  request.voice = utterance.spoken.language == Language::kZh ? settings_.voice_zh : settings_.voice_en;
  request.rate = settings_.rate;
  absl::StatusOr<SynthesisResult> speech;
  {
    ScopedWorkTimer timer(progress_.tts_seconds);
    speech = engine_.Synthesize(request);
  }
  if (!speech.ok()) {
    return absl::Status(speech.status().code(),
                        absl::StrCat("line ", utterance.line_number, ": ", speech.status().message()));
  }
  SpeechTiming speech_timing;
  speech_timing.visemes = PhonemesToVisemes(speech->track);
  speech_timing.expression = utterance.expression;
  speech_timing.title = utterance.title;
  const MediaTime start = MediaTime::FromSamples(samples_, rate);
  const MediaTime end = MediaTime::FromSamples(samples_ + speech->audio.frames(), rate);
  if (end > start) {  // a line with nothing to say (only punctuation) shows no subtitle
    speech_timing.cue = SubtitleCue{start, end, utterance.spoken, utterance.translation};
    // Word timing for the highlight: offsets are into the spoken text, times
    // from the start of this utterance's audio.
    const std::vector<WordBoundary>& words = speech->track.words;
    for (size_t i = 0; i < words.size(); ++i) {
      const MediaTime word_end = WordEnd(speech->track, i, end - start);
      speech_timing.cue->words.push_back(
          CueWord{words[i].text_offset, words[i].text_length, start + words[i].start, start + word_end});
    }
    cues_.push_back(*speech_timing.cue);
  }
  LC_RETURN_IF_ERROR(Emit(*item, std::move(speech->audio), std::move(speech_timing)));
  return Flow::kContinue;
}

absl::Status SpeechStage::Emit(const Packet<PlanItem>& source, AudioBuffer pcm, SpeechTiming speech_timing) {
  const int rate = engine_.sample_rate();
  if (pcm.sample_rate == 0) pcm.sample_rate = rate;
  if (pcm.sample_rate != rate) {
    return absl::InternalError(absl::StrCat("TTS returned audio at ", pcm.sample_rate, " Hz, expected ", rate));
  }
  const int64_t frames = pcm.frames();
  const MediaTime pts = MediaTime::FromSamples(samples_, rate);
  const MediaTime end = MediaTime::FromSamples(samples_ + frames, rate);
  samples_ += frames;
  progress_.audio_samples.store(samples_);
  Packet<SpeechTiming> timing_packet{std::move(speech_timing), pts, end - pts, source.origin};
  LC_RETURN_IF_ERROR(timing.Push(std::move(timing_packet)));
  return audio.Push(Packet<AudioBuffer>{std::move(pcm), pts, end - pts, source.origin});
}

// --- EncodeStage -------------------------------------------------------------

EncodeStage::EncodeStage(std::unique_ptr<OutputSet> outputs, int fps, RenderProgress& progress, Clock* pace_clock,
                         std::function<std::vector<SubtitleCue>()> cues_at_end)
    : Stage("encode"),
      outputs_(std::move(outputs)),
      fps_(fps),
      progress_(progress),
      pace_clock_(pace_clock),
      cues_at_end_(std::move(cues_at_end)) {}

absl::StatusOr<Flow> EncodeStage::Process() {
  if (audio_ended_ && video_ended_) {
    ScopedWorkTimer timer(progress_.encode_seconds);
    if (cues_at_end_) {
      for (SubtitleCue& cue : cues_at_end_()) {
        std::vector<std::string> lines = {std::move(cue.primary.text)};
        if (!cue.secondary.text.empty()) lines.push_back(std::move(cue.secondary.text));
        LC_RETURN_IF_ERROR(outputs_->AddSubtitle(cue.start, cue.end, std::move(lines)));
      }
    }
    LC_RETURN_IF_ERROR(outputs_->Finish());
    finished_ = true;
    return Flow::kFinished;
  }
  // Take whichever stream is behind, so neither upstream queue has to hold
  // more than its share (and the muxer interleaves with little buffering).
  const bool take_audio = !audio_ended_ && (video_ended_ || audio_end_ <= video_end_);
  if (take_audio) {
    auto packet = audio.Pop();
    if (!packet) {
      audio_ended_ = true;
      return Flow::kContinue;
    }
    audio_end_ = packet->end();
    ScopedWorkTimer timer(progress_.encode_seconds);
    LC_RETURN_IF_ERROR(outputs_->WriteAudio(packet->value));
    return Flow::kContinue;
  }
  auto packet = video.Pop();
  if (!packet) {
    video_ended_ = true;
    return Flow::kContinue;
  }
  video_end_ = packet->end();
  if (pace_clock_ != nullptr) {
    // --realtime: a frame goes out when a live camera would have delivered it.
    if (!pace_start_) pace_start_ = pace_clock_->Now() - packet->pts;
    pace_clock_->SleepUntil(*pace_start_ + packet->pts);
  }
  {
    ScopedWorkTimer timer(progress_.encode_seconds);
    // The frame's index on the output timeline comes from its pts, so a frame
    // that never arrives leaves a gap rather than shifting every later frame.
    const int64_t index = (packet->pts.micros() * fps_ + 500'000) / 1'000'000;
    LC_RETURN_IF_ERROR(outputs_->WriteVideo(*packet->value, index));
  }
  progress_.frames_encoded.fetch_add(1);
  return Flow::kContinue;
}

}  // namespace lingcast

// --- VideoStage --------------------------------------------------------------

namespace lingcast {
namespace {

// Viseme cues older than this behind the frame being drawn are forgotten, so a
// long render keeps a bounded track.
constexpr MediaTime kVisemeHistory = MediaTime::Seconds(2);

}  // namespace

VideoStage::VideoStage(std::unique_ptr<compose::Compositor> compositor, std::unique_ptr<AvatarRenderer> avatar,
                       AnimatorOptions animation, int fps, bool burn_subtitles, RenderProgress& progress,
                       int frames_in_flight)
    : Stage("video"),
      compositor_(std::move(compositor)),
      avatar_(std::move(avatar)),
      animation_(animation),
      fps_(fps),
      burn_subtitles_(burn_subtitles),
      progress_(progress),
      frames_in_flight_(frames_in_flight) {}

absl::Status VideoStage::Open() {
  pool_ = VideoFramePool::Create(compositor_->options().width, compositor_->options().height, frames_in_flight_);
  compositor_->SetAvatarRenderer(
      [this](VideoFrame& frame, const Rect& area, const Rect& clip) { avatar_->Render(state_, frame, area, clip); });
  return absl::OkStatus();
}

absl::StatusOr<Flow> VideoStage::Process() {
  auto packet = in.Pop();
  if (!packet) return Flow::kFinished;

  // Extend the mouth track with this stretch of speech (absolute times).
  const MediaTime frame_time = MediaTime::FromFrameIndex(next_frame_, fps_);
  std::erase_if(visemes_.cues, [&](const VisemeCue& c) { return c.end + kVisemeHistory < frame_time; });
  for (const VisemeCue& cue : packet->value.visemes.cues) {
    visemes_.cues.push_back(VisemeCue{cue.start + packet->pts, cue.end + packet->pts, cue.shape});
  }
  // The face changes as the line it was set for begins (blended in by the animator).
  if (const auto& expression = packet->value.expression) {
    const Expression current =
        animation_.expressions.empty() ? Expression::kNeutral : animation_.expressions.back().expression;
    if (*expression != current) animation_.expressions.push_back(ExpressionChange{packet->pts, *expression});
  }
  // A `@title` takes over the lower third from this stretch on: the title
  // showing slides out, then the new one slides in.
  if (const auto& title = packet->value.title) {
    const MediaTime free_at = compositor_->EndTitles(packet->pts);
    if (!title->empty()) {
      LC_ASSIGN_OR_RETURN(compose::LowerThird lower_third, compose::ParseLowerThird(*title, free_at, MediaTime::Max()));
      LC_RETURN_IF_ERROR(compositor_->AddTitle(lower_third));
    }
  }
  const Animator animator(visemes_, animation_);
  const SubtitleCue* cue = burn_subtitles_ && packet->value.cue ? &*packet->value.cue : nullptr;

  // Every frame whose pts falls inside this packet's span.
  for (;;) {
    const MediaTime pts = MediaTime::FromFrameIndex(next_frame_, fps_);
    if (pts >= packet->end()) break;
    std::shared_ptr<VideoFrame> frame = pool_->Acquire();
    {
      ScopedWorkTimer timer(progress_.render_seconds);
      state_ = animator.StateAt(pts);
      LC_RETURN_IF_ERROR(compositor_->Compose(pts, cue, *frame));
    }
    const MediaTime next_pts = MediaTime::FromFrameIndex(next_frame_ + 1, fps_);
    LC_RETURN_IF_ERROR(out.Push(Packet<std::shared_ptr<VideoFrame>>{std::move(frame), pts, next_pts - pts,
                                                                    packet->origin}));
    ++next_frame_;
    progress_.frames_rendered.fetch_add(1);
  }
  return Flow::kContinue;
}

}  // namespace lingcast
