#include "audio/vad.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

#include "webrtc/modules/audio_processing/include/audio_processing.h"
#include "webrtc/modules/interface/module_common_types.h"

namespace lingcast {
namespace {

constexpr int kFrameSamples = VadConfig::kSampleRate / 100;  // 10 ms, WebRTC's frame size

webrtc::VoiceDetection::Likelihood LikelihoodFor(int aggressiveness) {
  switch (aggressiveness) {
    case 0: return webrtc::VoiceDetection::kHighLikelihood;
    case 1: return webrtc::VoiceDetection::kModerateLikelihood;
    case 2: return webrtc::VoiceDetection::kLowLikelihood;
    default: return webrtc::VoiceDetection::kVeryLowLikelihood;
  }
}

absl::Status ValidateConfig(const VadConfig& c) {
  if (c.aggressiveness < 0 || c.aggressiveness > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("vad: aggressiveness ", c.aggressiveness, " is outside 0..3"));
  }
  if (c.pre_roll < MediaTime::Zero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vad: pre_roll ", c.pre_roll.ToString(), " is negative"));
  }
  if (c.hangover < MediaTime::Millis(10)) {
    return absl::InvalidArgumentError(
        absl::StrCat("vad: hangover ", c.hangover.ToString(), " is shorter than one 10 ms frame"));
  }
  if (c.min_speech < MediaTime::Zero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vad: min_speech ", c.min_speech.ToString(), " is negative"));
  }
  if (c.max_utterance < MediaTime::Millis(100) || c.max_utterance < c.min_speech) {
    return absl::InvalidArgumentError(absl::StrCat("vad: max_utterance ", c.max_utterance.ToString(),
                                                   " must be at least 100 ms and at least min_speech (",
                                                   c.min_speech.ToString(), ")"));
  }
  return absl::OkStatus();
}

// Whole 10 ms frames needed to cover `span` (at least one).
int64_t FramesFor(MediaTime span) {
  const int64_t samples = span.ToSamples(VadConfig::kSampleRate);
  return std::max<int64_t>(1, (samples + kFrameSamples - 1) / kFrameSamples);
}

MediaTime TimeOf(int64_t sample) { return MediaTime::FromSamples(sample, VadConfig::kSampleRate); }

AudioBuffer MonoBuffer(std::vector<float> samples) {
  AudioBuffer buffer;
  buffer.sample_rate = VadConfig::kSampleRate;
  buffer.channels = 1;
  buffer.samples = std::move(samples);
  return buffer;
}

}  // namespace

const char* VadEventTypeName(VadEvent::Type type) {
  switch (type) {
    case VadEvent::Type::kSpeechStart: return "speech_start";
    case VadEvent::Type::kSpeechAudio: return "speech_audio";
    case VadEvent::Type::kSpeechEnd: return "speech_end";
  }
  return "unknown";
}

struct VoiceActivityDetector::State {
  enum class Phase {
    kSilence,    // no speech; the last pre_roll of audio is kept
    kCandidate,  // voiced frames seen, not yet min_speech of them
    kSpeech,     // an utterance is open and its audio is being streamed
  };

  VadConfig config;
  int64_t pre_roll_samples = 0;
  int64_t hangover_frames = 0;
  int64_t min_speech_frames = 0;
  int64_t max_utterance_frames = 0;

  std::unique_ptr<webrtc::AudioProcessing> apm;
  std::unique_ptr<webrtc::AudioFrame> frame;  // 7.7 KB, reused for every 10 ms
  std::vector<float> partial;                 // samples of the next, incomplete frame

  int64_t frames_done = 0;  // frames classified; they end at sample frames_done * kFrameSamples
  int64_t voiced_frames = 0;

  Phase phase = Phase::kSilence;
  // Audio since history_start (kSilence: at least the last pre_roll; kCandidate:
  // from the utterance's audio start).
  std::vector<float> history;
  int64_t history_start = 0;
  int64_t onset_frame = 0;       // first voiced frame of the candidate or utterance
  int64_t last_voiced_frame = 0;
  int64_t candidate_voiced = 0;  // voiced frames since onset_frame
  int64_t unvoiced_run = 0;      // unvoiced frames in a row
  int64_t audio_start = 0;       // sample where the current utterance's audio begins
  int64_t previous_audio_end = 0;  // where the last utterance's audio ended
  bool last_end_forced = false;
  std::vector<float> utterance;  // all of the open utterance's audio
  size_t streamed = 0;           // of which this much went out in kSpeechAudio events

  absl::Status InitApm() {
    webrtc::Config apm_config;
    apm_config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    apm.reset(webrtc::AudioProcessing::Create(apm_config));
    if (!apm) return absl::InternalError("vad: cannot create webrtc::AudioProcessing");
    if (apm->Initialize(VadConfig::kSampleRate, VadConfig::kSampleRate, VadConfig::kSampleRate,
                        webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono,
                        webrtc::AudioProcessing::kMono) != webrtc::AudioProcessing::kNoError) {
      return absl::InternalError("vad: cannot initialize webrtc::AudioProcessing at 16 kHz mono");
    }
    webrtc::VoiceDetection* vd = apm->voice_detection();
    if (vd->Enable(true) != webrtc::AudioProcessing::kNoError ||
        vd->set_likelihood(LikelihoodFor(config.aggressiveness)) != webrtc::AudioProcessing::kNoError ||
        vd->set_frame_size_ms(10) != webrtc::AudioProcessing::kNoError) {
      return absl::InternalError("vad: cannot configure WebRTC voice detection");
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> IsVoiced(const float* samples) {
    if (!apm) return absl::InternalError("vad: WebRTC AudioProcessing failed to reinitialize");
    frame->UpdateFrame(/*id=*/0, static_cast<uint32_t>(frames_done * kFrameSamples), nullptr,
                       kFrameSamples, VadConfig::kSampleRate, webrtc::AudioFrame::kNormalSpeech,
                       webrtc::AudioFrame::kVadUnknown, /*num_channels=*/1);
    for (int i = 0; i < kFrameSamples; ++i) {
      const float clamped = std::clamp(samples[i], -1.0f, 1.0f);
      frame->data_[i] = static_cast<int16_t>(std::lround(clamped * 32767.0f));
    }
    const int ret = apm->ProcessStream(frame.get());
    if (ret != webrtc::AudioProcessing::kNoError) {
      return absl::InternalError(absl::StrCat("vad: WebRTC ProcessStream failed with code ", ret));
    }
    return apm->voice_detection()->stream_has_voice();
  }

  void EmitPendingAudio(std::vector<VadEvent>& events) {
    if (streamed >= utterance.size()) return;
    VadEvent event;
    event.type = VadEvent::Type::kSpeechAudio;
    event.audio_start = TimeOf(audio_start + static_cast<int64_t>(streamed));
    event.time = event.audio_start;
    event.audio = MonoBuffer(std::vector<float>(utterance.begin() + static_cast<std::ptrdiff_t>(streamed),
                                                utterance.end()));
    streamed = utterance.size();
    event.unvoiced_tail = TimeOf(unvoiced_run * kFrameSamples);
    events.push_back(std::move(event));
  }

  void Confirm(std::vector<VadEvent>& events) {
    const int64_t now = frames_done * kFrameSamples;
    VadEvent start;
    start.type = VadEvent::Type::kSpeechStart;
    start.time = TimeOf(onset_frame * kFrameSamples);
    start.audio_start = TimeOf(audio_start);
    events.push_back(std::move(start));
    utterance.assign(history.begin() + (audio_start - history_start), history.end());
    streamed = 0;
    history.clear();
    history_start = now;
    phase = Phase::kSpeech;
  }

  void End(bool forced, std::vector<VadEvent>& events) {
    EmitPendingAudio(events);
    VadEvent end;
    end.type = VadEvent::Type::kSpeechEnd;
    end.time = TimeOf((last_voiced_frame + 1) * kFrameSamples);
    end.audio_start = TimeOf(audio_start);
    end.audio = MonoBuffer(std::move(utterance));
    end.forced = forced;
    previous_audio_end = audio_start + static_cast<int64_t>(end.audio.samples.size());
    events.push_back(std::move(end));
    last_end_forced = forced;
    utterance.clear();
    streamed = 0;
    history.clear();
    history_start = previous_audio_end;
    phase = Phase::kSilence;
  }

  // Advances the endpointer by one classified frame (already counted in frames_done).
  void Step(const float* samples, bool voiced, std::vector<VadEvent>& events) {
    const int64_t frame = frames_done - 1;
    const int64_t frame_start = frame * kFrameSamples;
    if (phase == Phase::kSpeech) {
      utterance.insert(utterance.end(), samples, samples + kFrameSamples);
    } else {
      history.insert(history.end(), samples, samples + kFrameSamples);
    }

    switch (phase) {
      case Phase::kSilence:
        if (!voiced) {
          // Keep only the pre-roll (trimmed in batches so this stays linear).
          const int64_t keep = pre_roll_samples;
          if (static_cast<int64_t>(history.size()) > 2 * keep + 16 * kFrameSamples) {
            const int64_t drop = static_cast<int64_t>(history.size()) - keep;
            history.erase(history.begin(), history.begin() + drop);
            history_start += drop;
          }
          return;
        }
        onset_frame = frame;
        last_voiced_frame = frame;
        candidate_voiced = 1;
        unvoiced_run = 0;
        audio_start = std::max({frame_start - pre_roll_samples, previous_audio_end, history_start});
        phase = Phase::kCandidate;
        // Speech that resumes right after a forced cut is the same speech going
        // on: it must not be held to min_speech again (its words would be lost).
        if (candidate_voiced >= min_speech_frames ||
            (last_end_forced && frame_start - previous_audio_end < hangover_frames * kFrameSamples)) {
          Confirm(events);
        }
        return;

      case Phase::kCandidate:
        if (voiced) {
          last_voiced_frame = frame;
          ++candidate_voiced;
          unvoiced_run = 0;
          if (candidate_voiced >= min_speech_frames) Confirm(events);
        } else if (++unvoiced_run >= hangover_frames) {
          phase = Phase::kSilence;  // too short to be speech: discard the burst
          last_end_forced = false;
        }
        return;

      case Phase::kSpeech:
        if (voiced) {
          last_voiced_frame = frame;
          unvoiced_run = 0;
        } else {
          ++unvoiced_run;
        }
        if (frame + 1 - onset_frame >= max_utterance_frames) {
          if (voiced) last_voiced_frame = frame;
          End(/*forced=*/true, events);
        } else if (unvoiced_run >= hangover_frames) {
          End(/*forced=*/false, events);
        }
        return;
    }
  }

  void Reset() {
    partial.clear();
    frames_done = 0;
    phase = Phase::kSilence;
    history.clear();
    history_start = 0;
    onset_frame = last_voiced_frame = candidate_voiced = unvoiced_run = 0;
    audio_start = previous_audio_end = 0;
    last_end_forced = false;
    utterance.clear();
    streamed = 0;
  }
};

absl::StatusOr<VoiceActivityDetector> VoiceActivityDetector::Create(const VadConfig& config) {
  if (absl::Status valid = ValidateConfig(config); !valid.ok()) return valid;
  auto state = std::make_unique<State>();
  state->config = config;
  state->pre_roll_samples = config.pre_roll.ToSamples(VadConfig::kSampleRate);
  state->hangover_frames = FramesFor(config.hangover);
  state->min_speech_frames = config.min_speech <= MediaTime::Zero() ? 1 : FramesFor(config.min_speech);
  state->max_utterance_frames = FramesFor(config.max_utterance);
  state->frame = std::make_unique<webrtc::AudioFrame>();
  if (absl::Status apm = state->InitApm(); !apm.ok()) return apm;
  return VoiceActivityDetector(std::move(state));
}

VoiceActivityDetector::VoiceActivityDetector(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
VoiceActivityDetector::VoiceActivityDetector(VoiceActivityDetector&&) noexcept = default;
VoiceActivityDetector& VoiceActivityDetector::operator=(VoiceActivityDetector&&) noexcept = default;
VoiceActivityDetector::~VoiceActivityDetector() = default;

absl::StatusOr<std::vector<VadEvent>> VoiceActivityDetector::Push(const AudioBuffer& chunk) {
  if (chunk.empty()) return std::vector<VadEvent>{};
  if (chunk.sample_rate != VadConfig::kSampleRate || chunk.channels != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vad: input is ", chunk.sample_rate, " Hz with ", chunk.channels,
        " channel(s); the VAD takes 16000 Hz mono (resample first)"));
  }
  State& s = *state_;
  std::vector<VadEvent> events;
  size_t used = 0;
  const std::vector<float>& in = chunk.samples;
  if (!s.partial.empty()) {
    used = std::min(in.size(), static_cast<size_t>(kFrameSamples) - s.partial.size());
    s.partial.insert(s.partial.end(), in.begin(), in.begin() + static_cast<std::ptrdiff_t>(used));
    if (s.partial.size() < static_cast<size_t>(kFrameSamples)) return events;
    auto voiced = s.IsVoiced(s.partial.data());
    if (!voiced.ok()) return voiced.status();
    ++s.frames_done;
    s.voiced_frames += *voiced ? 1 : 0;
    s.Step(s.partial.data(), *voiced, events);
    s.partial.clear();
  }
  for (; used + kFrameSamples <= in.size(); used += kFrameSamples) {
    auto voiced = s.IsVoiced(in.data() + used);
    if (!voiced.ok()) return voiced.status();
    ++s.frames_done;
    s.voiced_frames += *voiced ? 1 : 0;
    s.Step(in.data() + used, *voiced, events);
  }
  s.partial.assign(in.begin() + static_cast<std::ptrdiff_t>(used), in.end());
  if (s.phase == State::Phase::kSpeech) s.EmitPendingAudio(events);
  return events;
}

std::vector<VadEvent> VoiceActivityDetector::Flush() {
  State& s = *state_;
  std::vector<VadEvent> events;
  if (s.phase == State::Phase::kSpeech) {
    // The last few milliseconds (less than a frame) belong to the utterance too.
    s.utterance.insert(s.utterance.end(), s.partial.begin(), s.partial.end());
    s.End(/*forced=*/false, events);
  }
  s.Reset();
  // A fresh stream should not inherit the noise estimate of the last one.
  if (absl::Status reinit = s.InitApm(); !reinit.ok()) {
    s.apm.reset();  // Push will fail loudly rather than classify with a broken APM
  }
  return events;
}

const VadConfig& VoiceActivityDetector::config() const { return state_->config; }
MediaTime VoiceActivityDetector::position() const {
  return TimeOf(state_->frames_done * kFrameSamples + static_cast<int64_t>(state_->partial.size()));
}
int64_t VoiceActivityDetector::voiced_frames() const { return state_->voiced_frames; }

}  // namespace lingcast
