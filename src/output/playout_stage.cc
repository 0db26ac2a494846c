#include "output/playout_stage.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {

namespace {

// Viseme cues older than this behind the frame are forgotten (bounded memory).
constexpr MediaTime kVisemeHistory = MediaTime::Seconds(2);
// Realtime: a tick this late drops its frame (its audio is still written).
constexpr int kLateFrames = 2;
// The subtitle end of a line whose last part has not arrived (set when it does).
constexpr MediaTime kUnknownLength = MediaTime::Seconds(24 * 3600);

std::vector<std::string> CueLines(const SubtitleCue& cue) {
  std::vector<std::string> lines = {cue.primary.text};
  if (!cue.secondary.text.empty()) lines.push_back(cue.secondary.text);
  return lines;
}

float Gain(double db) { return static_cast<float>(std::pow(10.0, db / 20.0)); }

int64_t SampleAt(MediaTime t, int rate) { return t.micros() * rate / 1'000'000; }

}  // namespace

PlayoutStage::PlayoutStage(PlayoutOptions options, PlayoutPicture picture, std::unique_ptr<AvatarRenderer> avatar,
                           OutputSet& outputs, LiveMonitor& monitor)
    : Stage("playout"),
      options_(std::move(options)),
      session_start_(options_.session_start),
      avatar_(std::move(avatar)),
      outputs_(outputs),
      monitor_(monitor),
      fps_(options_.fps) {
  UsePicture(std::move(picture));
}

void PlayoutStage::UsePicture(PlayoutPicture picture) {
  picture_.gpu.reset();  // before the compositor whose layers it reads
  picture_ = std::move(picture);
  picture_.compositor->SetAvatarRenderer(
      [this](VideoFrame& frame, const Rect& area, const Rect& clip) { avatar_->Render(state_, frame, area, clip); });
  if (picture_.gpu) {
    picture_.gpu->SetAvatarRenderer(
        [this](VectorSurface& surface, const Rect& area) { avatar_->Draw(state_, area, surface); });
    picture_.gpu->SetPictureInPicture(picture_.picture_in_picture.get());
  }
}

absl::Status PlayoutStage::Open() {
  if (host.connected()) {
    LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(16000, options_.output_rate));
    host_resampler_.emplace(std::move(resampler));
  } else {
    host_ended_ = true;
  }
  return absl::OkStatus();
}

void PlayoutStage::Take(VoiceEvent event) {
  watermark_ = std::max(watermark_, event.watermark);
  counters_.host_time = std::max(counters_.host_time, event.watermark);
  if (event.ended) monitor_.UtteranceEnd(*event.ended);
  if (event.caption) caption_ = std::move(event.caption);
  // An utterance that ended without a line (nothing decided) takes its caption along.
  if (event.ended && caption_ && caption_->utterance <= event.ended->utterance) caption_.reset();
  if (event.spoken && event.spoken->part > 0) {
    TakeLinePart(std::move(*event.spoken));
  } else if (event.spoken) {
    // Its line replaces the caption of what the host was saying.
    if (caption_ && caption_->utterance <= event.spoken->line.utterance) caption_.reset();
    monitor_.LineQueued(*event.spoken);
    queue_.push_back(std::move(*event.spoken));
  }
}

void PlayoutStage::TakeLinePart(SpokenLine part) {
  if (playing_ && playing_->spoken.line.id == part.line.id) {
    // The mouth follows the new part from where its first sample will be played.
    const MediaTime shift = playing_->start + MediaTime::FromSamples(playing_->underrun, options_.output_rate);
    for (const VisemeCue& v : PhonemesToVisemes(part.phonemes).cues) {
      visemes_.cues.push_back(VisemeCue{v.start + shift, v.end + shift, v.shape});
    }
    AppendLinePart(playing_->spoken, part);
    if (!playing_->spoken.continues) LineComplete();
    return;
  }
  for (auto it = queue_.rbegin(); it != queue_.rend(); ++it) {
    if (it->line.id == part.line.id) {
      AppendLinePart(*it, part);
      return;
    }
  }
}

void PlayoutStage::LineComplete() {
  playing_->spoken.continues = false;
  if (cue_) {
    const MediaTime said = MediaTime::FromSamples(static_cast<int64_t>(playing_->spoken.pcm.samples.size()) + playing_->underrun,
                                                  options_.output_rate);
    cue_->end = playing_->start + said + options_.subtitle_linger;
    PublishCue(playing_->spoken.line.id);
  }
}

void PlayoutStage::AwaitWholeLine() {
  while (!voice_ended_ && !queue_.empty() && queue_.front().continues) {
    auto packet = in.Pop();
    if (!packet) {
      voice_ended_ = true;
      break;
    }
    Take(std::move(packet->value));
  }
}

void PlayoutStage::TakeVoiceEvents(MediaTime t) {
  if (options_.simulated) {
    // Everything decided before this frame must be here before it is drawn.
    while (!voice_ended_ && watermark_ < t) {
      auto packet = in.Pop();
      if (!packet) {
        voice_ended_ = true;
        break;
      }
      Take(std::move(packet->value));
    }
  }
  while (!voice_ended_) {
    auto packet = in.TryPop();
    if (!packet) {
      if (in.ended()) voice_ended_ = true;
      break;
    }
    Take(std::move(packet->value));
  }
}

absl::Status PlayoutStage::TakeHostAudio(MediaTime until) {
  const int64_t wanted = SampleAt(until, options_.output_rate);
  auto take = [&](Packet<AudioBuffer>& packet) -> absl::Status {
    std::vector<float> converted;
    LC_RETURN_IF_ERROR(host_resampler_->Push(packet.value.samples, converted));
    host_samples_.insert(host_samples_.end(), converted.begin(), converted.end());
    return absl::OkStatus();
  };
  while (!host_ended_) {
    const int64_t have = host_first_sample_ + static_cast<int64_t>(host_samples_.size());
    std::optional<Packet<AudioBuffer>> packet;
    if (options_.simulated && have < wanted) {
      packet = host.Pop();
      if (!packet) host_ended_ = true;
    } else {
      packet = host.TryPop();
      if (!packet && host.ended()) host_ended_ = true;
      if (!packet) break;
    }
    if (packet) LC_RETURN_IF_ERROR(take(*packet));
  }
  return absl::OkStatus();
}

void PlayoutStage::ShowCue(const SpokenLine& spoken, MediaTime start, MediaTime end) {
  if (cue_) {
    // The cue on screen ends where the new one starts, at the latest.
    cue_->end = std::min(cue_->end, start);
    if (cue_->end > cue_->start) pending_cue_ = *cue_;
  }
  SubtitleCue cue;
  cue.start = start;
  cue.end = end;
  const HeardLine& line = spoken.line;
  if (!line.translation.empty()) {
    cue.primary = TextSegment{line.translation, options_.target};
    cue.secondary = TextSegment{line.source_text, options_.source};
  } else {
    cue.primary = TextSegment{line.source_text, options_.source};
  }
  cue_ = std::move(cue);
  // A line still coming has no known end yet: published with its last part.
  if (!spoken.continues) PublishCue(line.id);
}

void PlayoutStage::PublishCue(int64_t line_id) {
  if (!monitor_.observed()) return;
  monitor_.Publish({{"type", "subtitle"},
                    {"line", line_id},
                    {"primary", cue_->primary.text},
                    {"secondary", cue_->secondary.text},
                    {"from_ms", cue_->start.millis()},
                    {"until_ms", cue_->end.millis()}});
}

void PlayoutStage::StartNextLines(MediaTime t) {
  for (SpokenLine& queued : queue_) {
    if (!queued.ready_at && queued.line.decided_at <= t) queued.ready_at = t;
  }
  while (!playing_ && !queue_.empty()) {
    SpokenLine& next = queue_.front();
    if (next.line.decided_at > t) return;  // not decided yet at this frame
    if (draining() && !next.pcm.samples.empty()) {
      // Stopping: what has not started is not said.
      monitor_.LineQueued(next);
      queue_.pop_front();
      continue;
    }
    if (next.pcm.samples.empty()) {
      // Nothing to say (no translation) or too stale: subtitles only, at once.
      ShowCue(next, t, t + options_.subtitle_only_hold);
      queue_.pop_front();
      continue;
    }
    const bool after_gap = next.follows_gap;
    if (t < next_start_allowed_ - (after_gap ? MediaTime::Zero() : options_.line_gap)) return;
    if (options_.simulated) AwaitWholeLine();  // `next` stays valid: a deque keeps its elements in place
    if (voice_ended_) next.continues = false;  // nothing more will come
    // Until its last part is here a line's subtitle stays up (LineComplete ends it).
    const MediaTime duration = next.continues ? kUnknownLength : next.pcm.duration();
    ShowCue(next, t, t + duration + options_.subtitle_linger);
    // The mouth follows this speech from its first sample at t.
    for (const VisemeCue& v : PhonemesToVisemes(next.phonemes).cues) {
      visemes_.cues.push_back(VisemeCue{v.start + t, v.end + t, v.shape});
    }
    // The wait for the line before (and its pause) is the lag policy's business,
    // not computing: it is reported apart.
    const MediaTime queue_wait = t - next.ready_at.value_or(t);
    monitor_.SpeechStarted(next.line.id, t, clock().Now() - next.line.trigger_origin - queue_wait, queue_wait);
    playing_ = Playing{std::move(next), 0, t, 0};
    queue_.pop_front();
  }
}

absl::StatusOr<AudioBuffer> PlayoutStage::MixTick(int64_t first_sample, int64_t samples) {
  AudioBuffer out{options_.output_rate, 1, std::vector<float>(static_cast<size_t>(samples), 0.0f)};
  bool voice = false;
  if (playing_) {
    voice = true;
    if (voice_ended_ && playing_->spoken.continues) LineComplete();  // nothing more will come
    const std::vector<float>& pcm = playing_->spoken.pcm.samples;
    const size_t take = std::min(static_cast<size_t>(samples), pcm.size() - playing_->offset);
    std::copy_n(pcm.begin() + static_cast<std::ptrdiff_t>(playing_->offset), take, out.samples.begin());
    playing_->offset += take;
    if (playing_->spoken.continues) {
      // The voice has not made the rest yet: silence now, the line goes on when it comes.
      const int64_t missing = samples - static_cast<int64_t>(take);
      counters_.voice_underruns += missing;
      playing_->underrun += missing;
    } else if (playing_->offset >= pcm.size()) {
      const MediaTime end = MediaTime::FromSamples(first_sample + static_cast<int64_t>(take), options_.output_rate);
      monitor_.SpeechEnded(playing_->spoken.line.id, end);
      next_start_allowed_ = end + options_.line_gap;
      playing_.reset();
    }
  }
  if (host_resampler_) {
    // The host's voice, `host_delay` behind, ducked under the avatar's.
    const int64_t delay = SampleAt(options_.host_delay, options_.output_rate);
    const int64_t from = first_sample - delay;
    while (!host_samples_.empty() && host_first_sample_ < from) {
      host_samples_.pop_front();
      ++host_first_sample_;
    }
    const float gain = Gain(voice ? options_.duck_db : options_.host_gain_db);
    int64_t missing = 0;
    for (int64_t i = 0; i < samples; ++i) {
      const int64_t index = from + i - host_first_sample_;
      if (from + i < 0) continue;
      if (index >= 0 && index < static_cast<int64_t>(host_samples_.size())) {
        out.samples[static_cast<size_t>(i)] += gain * host_samples_[static_cast<size_t>(index)];
      } else if (!host_ended_) {
        ++missing;
      }
    }
    counters_.passthrough_underruns += missing;
  }
  return out;
}

absl::Status PlayoutStage::DrawFrame(MediaTime t) {
  std::erase_if(visemes_.cues, [&](const VisemeCue& c) { return c.end + kVisemeHistory < t; });
  const Animator animator(visemes_, options_.animation);
  state_ = animator.StateAt(t);
  const SubtitleCue* cue = cue_ && cue_->start <= t && t < cue_->end ? &*cue_ : nullptr;
  SubtitleCue provisional;
  if (caption_ && caption_->decided_at <= t && !playing_ && queue_.empty()) {
    // The trailing ellipsis marks the text as still being translated.
    provisional.start = t;
    provisional.end = t + MediaTime::FromFrameIndex(1, fps_);
    provisional.primary = TextSegment{caption_->stable + caption_->provisional + "…", options_.target};
    provisional.secondary = TextSegment{caption_->source, options_.source};
    cue = &provisional;
    if (monitor_.observed() && caption_published_ != std::pair(caption_->utterance, caption_->update)) {
      caption_published_ = {caption_->utterance, caption_->update};
      monitor_.Publish({{"type", "caption"},
                        {"utterance", caption_->utterance},
                        {"update", caption_->update},
                        {"source", caption_->source},
                        {"stable", caption_->stable},
                        {"provisional", caption_->provisional},
                        {"at_ms", t.millis()}});
    }
    if (caption_shown_for_ != caption_->utterance) {
      caption_shown_for_ = caption_->utterance;
      monitor_.CaptionShown(caption_->utterance, t);
    }
  }
  if (picture_.gpu) {
    LC_RETURN_IF_ERROR(picture_.gpu->Compose(t, cue, frame_));
  } else {
    LC_RETURN_IF_ERROR(picture_.compositor->Compose(t, cue, frame_));
    if (picture_.picture_in_picture) LC_RETURN_IF_ERROR(picture_.picture_in_picture->DrawOver(t, frame_));
  }
  return outputs_.WriteVideo(frame_, tick_ - segment_tick_);
}

bool PlayoutStage::Done() const { return voice_ended_ && queue_.empty() && !playing_; }

void PlayoutStage::Publish() {
  counters_.queued_lines = static_cast<int>(queue_.size());
  counters_.speaking = playing_.has_value();
  const VideoEncoderOptions& video = outputs_.video_options();
  counters_.video = VideoFormat{video.width, video.height, fps_};
  monitor_.UpdateCounters(counters_);
}

MediaTime PlayoutStage::FrameTime(int64_t tick) const {
  return segment_start_ + MediaTime::FromFrameIndex(tick - segment_tick_, fps_);
}

void PlayoutStage::ApplyVideoChanges() {
  if (!options_.take_video_changes) return;
  const std::vector<absl::StatusOr<VideoChange>> changes = options_.take_video_changes();
  if (changes.empty()) return;
  VideoEncoderOptions video = outputs_.video_options();
  const VideoFormat current{video.width, video.height, fps_};
  VideoFormat wanted = current;
  for (const absl::StatusOr<VideoChange>& change : changes) {
    if (change.ok()) {
      wanted = change->AppliedTo(wanted);
    } else {
      Warn(change.status());  // the good ones beside it still apply
    }
  }
  if (wanted == current) return;
  const std::string what = VideoFormatText(wanted);
  // Everything is made before anything changes: a failure leaves the picture as it was.
  absl::StatusOr<PlayoutPicture> picture = absl::FailedPreconditionError("this show cannot change its picture");
  if (options_.make_picture) picture = options_.make_picture(wanted.width, wanted.height);
  if (!picture.ok()) {
    Warn(absl::Status(picture.status().code(), absl::StrCat("video ", what, " not applied: ", picture.status().message())));
    return;
  }
  const MediaTime at = FrameTime(tick_);
  video.width = wanted.width;
  video.height = wanted.height;
  video.fps_num = wanted.fps;
  video.fps_den = 1;
  if (absl::Status switched = outputs_.SwitchVideo(video, at); !switched.ok()) {
    Warn(absl::Status(switched.code(), absl::StrCat("video ", what, " not applied: ", switched.message())));
    return;
  }
  UsePicture(*std::move(picture));
  frame_ = VideoFrame{};
  segment_tick_ = tick_;
  segment_start_ = at;
  fps_ = wanted.fps;
  ++counters_.video_switches;
  if (monitor_.observed()) {
    monitor_.Publish({{"type", "video"},
                      {"width", wanted.width},
                      {"height", wanted.height},
                      {"fps", wanted.fps},
                      {"at_ms", at.millis()}});
  }
}

absl::StatusOr<Flow> PlayoutStage::Process() {
  if (options_.start_when_running != nullptr && tick_ == 0) session_start_ = options_.start_when_running->Get(clock());
  ApplyVideoChanges();
  const MediaTime t = FrameTime(tick_);
  const MediaTime t_next = FrameTime(tick_ + 1);
  if (options_.simulated) {
    if (auto* simulated = dynamic_cast<SimulatedClock*>(&clock())) simulated->AdvanceTo(session_start_ + t);
  } else {
    clock().SleepUntil(session_start_ + t);
  }
  TakeVoiceEvents(t);
  if (host_resampler_) LC_RETURN_IF_ERROR(TakeHostAudio(t_next - options_.host_delay));

  if (Done() && !end_at_) end_at_ = t + options_.tail;
  if (end_at_ && t >= *end_at_) {
    if (pending_cue_) LC_RETURN_IF_ERROR(outputs_.AddSubtitle(pending_cue_->start, pending_cue_->end, CueLines(*pending_cue_)));
    pending_cue_.reset();
    if (cue_) {
      cue_->end = std::min(cue_->end, t);
      if (cue_->end > cue_->start) LC_RETURN_IF_ERROR(outputs_.AddSubtitle(cue_->start, cue_->end, CueLines(*cue_)));
    }
    Publish();
    LC_RETURN_IF_ERROR(outputs_.Finish());
    return Flow::kFinished;
  }

  StartNextLines(t);
  if (pending_cue_) {
    LC_RETURN_IF_ERROR(outputs_.AddSubtitle(pending_cue_->start, pending_cue_->end, CueLines(*pending_cue_)));
    pending_cue_.reset();
  }

  const int64_t first_sample = SampleAt(t, options_.output_rate);
  const int64_t samples = SampleAt(t_next, options_.output_rate) - first_sample;
  LC_ASSIGN_OR_RETURN(AudioBuffer audio, MixTick(first_sample, samples));
  LC_RETURN_IF_ERROR(outputs_.WriteAudio(audio));
  counters_.output_time = t_next;

  const bool late = !options_.simulated &&
                    clock().Now() > session_start_ + t + MediaTime::FromFrameIndex(kLateFrames, fps_);
  if (late) {
    ++counters_.video_drops;
  } else {
    LC_RETURN_IF_ERROR(DrawFrame(t));
    ++counters_.frames;
  }
  ++tick_;
  Publish();
  return Flow::kContinue;
}

}  // namespace lingcast
