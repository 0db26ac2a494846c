// Voice activity detection and endpointing for 16 kHz mono audio.
//
// Frame decisions come from the WebRTC VAD inside Debian's
// libwebrtc-audio-processing 0.3 (webrtc::AudioProcessing with voice_detection()
// enabled), one decision per 10 ms frame. On top of them sits our endpointer:
//
//   * an utterance starts once min_speech of voiced frames has been seen with no
//     silence of `hangover` or more in between (shorter bursts -- clicks, coughs --
//     are discarded);
//   * its audio begins `pre_roll` before the first voiced frame (never before 0,
//     nor before the end of the previous utterance's audio, so no sample is in two
//     utterances);
//   * it ends after `hangover` of unvoiced frames; the end time is the end of the
//     last voiced frame, and its audio runs on to the moment the end was decided;
//   * it is cut at `max_utterance` (counted from its first voiced frame): a forced
//     end. Speech that goes on (voiced again within `hangover`) opens the next
//     utterance at once, without waiting for min_speech, and that utterance's
//     audio begins exactly where the cut one's ended (no gap, no overlap).
//
// Aggressiveness maps to the WebRTC likelihood setting (which selects the
// underlying WebRtcVad mode 0..3 of the same number):
//   0 -> kHighLikelihood      (least aggressive: most frames called speech)
//   1 -> kModerateLikelihood
//   2 -> kLowLikelihood       (default)
//   3 -> kVeryLowLikelihood   (most aggressive: noise is rarely called speech)
//
// Times are on the input's media timeline: sample count / 16000 from the first
// sample pushed; never wall-clock. Events do not depend on how the input is
// chunked (only the number of kSpeechAudio pieces does).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"

namespace lingcast {

struct VadConfig {
  static constexpr int kSampleRate = 16000;  // the only rate accepted

  int aggressiveness = 2;                          // 0..3, see the mapping above
  MediaTime pre_roll = MediaTime::Millis(300);     // >= 0
  MediaTime hangover = MediaTime::Millis(500);     // >= 10 ms
  MediaTime min_speech = MediaTime::Millis(200);   // >= 0 (0: the first voiced frame starts)
  MediaTime max_utterance = MediaTime::Seconds(20);  // >= 100 ms and >= min_speech
};

struct VadEvent {
  enum class Type {
    kSpeechStart,  // an utterance begins; `time` is its first voiced frame
    kSpeechAudio,  // the next piece of the current utterance's audio (pre-roll first)
    kSpeechEnd,    // the utterance is over; `time` is the end of its last voiced frame
  };

  Type type = Type::kSpeechStart;
  // kSpeechStart: the first voiced frame. kSpeechAudio: the piece's first sample.
  // kSpeechEnd: the end of the last voiced frame. (10 ms frame resolution.)
  MediaTime time;
  // Where `audio`'s first sample lies on the timeline. For kSpeechStart (no audio)
  // it is where the utterance's audio begins (time - pre_roll, clamped).
  MediaTime audio_start;
  // kSpeechAudio: this piece. kSpeechEnd: the whole utterance (all its pieces
  // joined), for consumers that want it in one go. kSpeechStart: empty.
  AudioBuffer audio;
  // kSpeechEnd only: the utterance reached max_utterance and was cut.
  bool forced = false;
  // kSpeechAudio: the unvoiced frames in a row at the end of this piece (0 when
  // its last frame is voiced). The utterance ends once this reaches the
  // hangover, unless speech resumes: a consumer can start its end-of-utterance
  // work early on a pause (speculatively) and drop it if speech resumes.
  MediaTime unvoiced_tail;
};

const char* VadEventTypeName(VadEvent::Type type);  // "speech_start", "speech_audio", "speech_end"

// One detector per input stream (it holds the stream's WebRTC state), used from
// one thread at a time.
class VoiceActivityDetector {
 public:
  // InvalidArgument naming the field for a value out of range.
  static absl::StatusOr<VoiceActivityDetector> Create(const VadConfig& config = {});

  VoiceActivityDetector(VoiceActivityDetector&&) noexcept;
  VoiceActivityDetector& operator=(VoiceActivityDetector&&) noexcept;
  ~VoiceActivityDetector();

  // Feeds the next samples (mono, 16 kHz, any length). InvalidArgument for another
  // rate or channel count (resample first), with nothing consumed.
  absl::StatusOr<std::vector<VadEvent>> Push(const AudioBuffer& chunk);
  // Ends the input: an utterance in progress ends at its last voiced frame (one
  // still shorter than min_speech is discarded). The detector can then be reused
  // for a new stream that starts again at time 0.
  std::vector<VadEvent> Flush();

  const VadConfig& config() const;
  MediaTime position() const;      // the end of the audio pushed so far
  int64_t voiced_frames() const;   // 10 ms frames the WebRTC VAD called speech, in total

 private:
  struct State;
  explicit VoiceActivityDetector(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace lingcast
