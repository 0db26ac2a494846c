// TtsEngine: text in, speech out, with the phoneme timing that drives the mouth.
//
// Engines sit behind this interface so the pipeline does not care whether speech
// comes from espeak-ng or (later) a neural voice. Issue 3 adds streaming synthesis
// clause by clause; it will be a second entry point that delivers SynthesisResults
// piece by piece (each piece timed from its own start, appended with
// AppendSynthesis), so Synthesize() stays the simple whole-text call.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/language.h"
#include "media/phoneme_track.h"

namespace lingcast {

struct SynthesisRequest {
  std::string text;  // UTF-8
  Language language = Language::kEn;
  std::string voice;   // empty = the engine's default voice for `language`
  double rate = 1.0;   // relative speaking rate: 1 = normal, 2 = twice as fast
  double pitch = 1.0;  // relative pitch
  double volume = 1.0; // relative loudness
};

struct SynthesisResult {
  AudioBuffer audio;    // mono float at the engine's sample_rate()
  PhonemeTrack track;   // times from the start of `audio`; word offsets into request.text
};

class TtsEngine {
 public:
  virtual ~TtsEngine();

  // Empty (or unspeakable) text gives OK with empty audio. Bad voices or
  // parameters are InvalidArgument naming the value.
  virtual absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) = 0;
  virtual int sample_rate() const = 0;
  virtual std::string name() const = 0;
};

// Appends `piece` after `into` on one timeline: piece's phoneme and word times are
// shifted by into's audio duration and its word offsets by `text_offset_shift`.
// Both must have the same sample rate (an empty `into` takes piece's).
void AppendSynthesis(SynthesisResult& into, SynthesisResult piece, int text_offset_shift = 0);

// Puts a track in the shape PhonemeTrack promises: phonemes sorted, one per start
// time (the later of two at the same time wins), consecutive pauses merged, each
// lasting until the next and the last until the end of the audio; words sorted.
void FinishPhonemeTrack(SynthesisResult& result);

// Cuts silence (|sample| below `threshold`) at both ends down to at most
// `max_leading` / `max_trailing`, shifting the track to match. Audio with no sound
// is left as it is.
void TrimSilence(SynthesisResult& result, MediaTime max_leading, MediaTime max_trailing,
                 float threshold = 0.01f);

// Checks the relative rate/pitch/volume of a request: finite and in (0, 4] for rate
// and pitch, [0, 4] for volume; InvalidArgument naming the field otherwise.
absl::Status ValidateSynthesisRequest(const SynthesisRequest& request);

}  // namespace lingcast
