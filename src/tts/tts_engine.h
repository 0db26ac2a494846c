// TtsEngine: text in, speech out, with the phoneme timing that drives the mouth.
//
// Engines sit behind this interface so the pipeline does not care whether speech
// comes from espeak-ng or a neural voice (Piper/VITS, FastSpeech2 in src/neural). Two ways in:
//   * Synthesize(): the whole text at once (offline renders, tests);
//   * OpenSession(): a session that speaks one clause at a time, for streaming
//     (tts/tts_stream.h feeds it clauses as text arrives). The engine is the model
//     context, loaded once and shared; a session is the per-stream state (voice
//     and parameters for espeak-ng; decoder state and a speaker for a neural
//     voice), so a live job opens one session per output stream.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/language.h"
#include "media/phoneme_track.h"

namespace lingcast {

// How to speak: everything of a request but its text.
struct VoiceSettings {
  Language language = Language::kEn;
  std::string voice;    // empty = the engine's default voice for `language`
  double rate = 1.0;    // relative speaking rate: 1 = the language's default, 2 = twice as fast
  double pitch = 1.0;   // relative pitch
  double volume = 1.0;  // relative loudness (linear gain on the language's default level)
};

struct SynthesisRequest : VoiceSettings {
  std::string text;  // UTF-8
};

struct SynthesisResult {
  AudioBuffer audio;    // mono float at the engine's sample_rate()
  PhonemeTrack track;   // times from the start of `audio`; word offsets into request.text
};

// A clause's speech in the order it is made (TtsSession::StreamClause): each
// part's audio follows the part before it; its track holds the phonemes and words
// that became known with it, already timed from the clause's start, each event
// lasting until the next one known (word offsets into the clause). Joined by
// AppendClausePart, the parts are what SynthesizeClause gives.
using ClausePartSink = std::function<absl::Status(SynthesisResult part)>;

// Per-stream synthesis state; see the header comment. Not thread-safe except
// Cancel(): one thread synthesizes, any thread may cancel.
class TtsSession {
 public:
  virtual ~TtsSession();

  // Speaks one clause in `language` (the session's voice settings otherwise).
  // The result is timed from its own start; word offsets are into `clause`.
  // Text with nothing to say gives OK with empty audio. Cancelled once Cancel()
  // has been called (a synthesis in progress stops early).
  virtual absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) = 0;

  // Speaks one clause as SynthesizeClause does, handing its speech to `sink` in
  // parts as they are made, so playback can start before the clause is done: a
  // neural voice decodes its waveform a few frames at a time and hands each
  // chunk over as soon as it is decoded. An error from `sink` stops the synthesis
  // and is returned. This default hands the whole clause over as one part.
  virtual absl::Status StreamClause(std::string_view clause, Language language, const ClausePartSink& sink);

  // Stops the synthesis in progress (if any) and every later one.
  virtual void Cancel() = 0;
  virtual bool cancelled() const = 0;
};

class TtsEngine {
 public:
  virtual ~TtsEngine();

  // Empty (or unspeakable) text gives OK with empty audio. Bad voices or
  // parameters are InvalidArgument naming the value.
  virtual absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) = 0;

  // A session speaking with `settings`. Bad voices or parameters fail here, before
  // any text arrives. The session must not outlive the engine.
  virtual absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) = 0;

  virtual int sample_rate() const = 0;
  virtual std::string name() const = 0;
};

// Appends `piece` after `into` on one timeline: piece's phoneme and word times are
// shifted by into's audio duration and its word offsets by `text_offset_shift`.
// Both must have the same sample rate (an empty `into` takes piece's).
void AppendSynthesis(SynthesisResult& into, SynthesisResult piece, int text_offset_shift = 0);

// Joins a part of a clause's speech (ClausePartSink) after the parts before it:
// the audio is appended, the track's events (already timed from the clause's
// start) are added as they are, except that a pause beginning where the last
// pause ends lengthens it.
void AppendClausePart(SynthesisResult& into, SynthesisResult part);

// Puts a track in the shape PhonemeTrack promises: phonemes sorted, one per start
// time (the later of two at the same time wins), consecutive pauses merged, each
// lasting until the next and the last until the end of the audio; words sorted.
void FinishPhonemeTrack(SynthesisResult& result);
// The same for a track whose audio lasts `end` (known before the audio is made).
void FinishPhonemeTrack(PhonemeTrack& track, MediaTime end);

// Cuts silence (|sample| below `threshold`) at both ends down to at most
// `max_leading` / `max_trailing`, shifting the track to match. Audio with no sound
// is left as it is.
void TrimSilence(SynthesisResult& result, MediaTime max_leading, MediaTime max_trailing,
                 float threshold = 0.01f);

// When word `index` of `track` ends: where the next word starts, pulled back over
// any pause before it, or the end of the last sounding phoneme (`audio_end` when
// there is none).
MediaTime WordEnd(const PhonemeTrack& track, size_t index, MediaTime audio_end);

// Maps the word offsets of `track`, made from a transformed text (sanitized,
// normalized), back to the source text: to_source[i] is the source offset of byte i
// of the transformed text; a word ends where its last source character does.
void MapWordOffsets(PhonemeTrack& track, const std::vector<int>& to_source, std::string_view source);

// Checks the relative rate/pitch/volume of settings: finite and in (0, 4] for rate
// and pitch, [0, 4] for volume; InvalidArgument naming the field otherwise.
absl::Status ValidateVoiceSettings(const VoiceSettings& settings);
inline absl::Status ValidateSynthesisRequest(const SynthesisRequest& request) {
  return ValidateVoiceSettings(request);
}

}  // namespace lingcast
