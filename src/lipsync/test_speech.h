// Test and benchmark support (not part of the library): espeak-ng speech at
// 16 kHz with its phoneme-driven mouth track, the reference the audio-only
// tracker is tuned and measured against.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "media/audio_buffer.h"
#include "media/language.h"
#include "media/phoneme_track.h"
#include "media/viseme.h"
#include "tts/espeak_engine.h"

namespace lingcast {

struct SpokenSample {
  AudioBuffer audio;       // 16 kHz mono
  PhonemeTrack phonemes;   // espeak-ng's timeline (IPA)
  VisemeTrack reference;   // PhonemesToVisemes of it (default options)
};

absl::StatusOr<SpokenSample> SpeakForLipSync(EspeakEngine& engine, const std::string& text, Language language);

// Sentences of live-commerce speech used by the tests and the benchmark. The
// audio-only tracker's shape model is fitted on SampleSentences (the hand rules
// were tuned on their first 6); the held-out ones are never used for fitting.
const std::vector<std::string>& SampleSentences(Language language);
const std::vector<std::string>& HeldOutSentences(Language language);
std::vector<std::string> AllSentences(Language language);  // sample, then held-out

}  // namespace lingcast
