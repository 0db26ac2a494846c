// Audio -> mouth shapes with no phoneme timeline: a remote speaker, a recording,
// another TTS. Causal, so it runs live: every 10 ms frame is decided from the
// audio up to at most `lookahead` + 11 ms after it (<= 60 ms in all with the
// defaults), and the decided cues come out of Push() as soon as they are known.
//
// Per 10 ms frame (32 ms Hann window centred on it, 512-point FFT at 16 kHz):
//   * level: window energy in dBFS; a running noise floor (follows drops at
//     once, rises 3 dB/s or to the quietest level of the last second, whichever
//     is higher; digital silence under -85 dBFS is ignored) and a running
//     speech peak (falls 6 dB/s);
//   * periodicity: the autocorrelation peak at pitch lags (80-400 Hz),
//     corrected for the window (voiced: >= 0.6); the noise floor learns only
//     from frames that are not voiced, so a long phrase does not lift it;
//   * speech gate: level above floor + `gate_db` and above `silence_dbfs`
//     (two thirds of the gate for hissing frames: quiet fricative onsets; half
//     of it for voiced frames: a soft vowel onset in a noisy room). With
//     `adapt_level` (the default) nothing is absolute but digital silence
//     (-100 dBFS): `silence_dbfs` becomes `speech_range_db` under the running
//     speech peak, the floor learns only from room frames (not speech, or
//     300 ms without a voiced frame) and never from the frames straddling
//     digital silence, and weak sound within 100 ms of speech needs half the
//     gate (a Mandarin /x/, a weak syllable end): the same recording 20 dB
//     quieter gets the same cues (README.md, "Level independence"). From rest
//     the mouth opens only on sound a mouth makes: voicing, a clear hiss, or
//     sound 20 dB over the floor (or 8 dB over the frame before) with energy
//     above 350 Hz -- not a hum (mostly below 350 Hz, no clear pitch) or a
//     breath (a weak diffuse hiss);
//   * band energies: low 80-350 Hz, F1 band 250-1000 Hz, F2 band 900-2800 Hz,
//     high 3500-8000 Hz; centroids of the F1 and F2 bands (formant-ish);
//     spectral tilt (1-3 kHz over 250-1000 Hz); zero-crossing rate.
// Frame label: not speech -> A for `closure_max`, then X; speech -> the fitted
// shape model (audio_viseme_model.h, README.md), or with fitted_shapes = false
// the older hand rules, in order (thresholds in audio_visemes.cc and README.md):
//   * not speech: A for the first `closure_max` after speech (the lips close:
//     stop closures, m/b/p, phrase ends), then X (rest);
//   * hiss (high band dominant or many zero crossings: s, sh, f, z) -> B;
//   * murmur (quiet, energy almost all below 350 Hz: m, n, ng, voice bars) -> A;
//   * little energy above 1 kHz with a low F1 (u, w) -> F;
//   * low F1 with strong voicing (i, schwa, voiced consonants) -> B;
//   * high F1 and loud (a) -> D;
//   * otherwise E when the F2-band centroid is low (o, er), else C.
// Smoothing: each speech frame takes the most common shape of the speech frames
// in [k-4, k+L] (L = lookahead in frames, its own label winning ties), and a new shape
// replaces the current one only after the current one has lasted `min_hold`
// (an A closure or a change to/from silence is never delayed by the hold).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/viseme.h"

namespace lingcast {

struct AudioVisemeOptions {
  static constexpr int kSampleRate = 16000;  // the only rate accepted (src/audio resamples)
  MediaTime lookahead = MediaTime::Millis(40);  // frames after the decided one; <= 49 ms
  MediaTime min_hold = MediaTime::Millis(60);   // shortest cue except closures and silence
  MediaTime closure_max = MediaTime::Millis(50);  // silence inside speech shown as A up to this
  float gate_db = 12.0f;         // speech: this far above the noise floor ...
  float silence_dbfs = -50.0f;  // ... and above this absolute level (adapt_level = false)
  float speech_range_db = 50.0f;  // ... or, with adapt_level, at most this far under the speech peak (the
                                  // fixed -50 dBFS was 50 dB under a loud speaker's peak; 40 cut quiet consonants)
  // Speech frames are labelled by the fitted shape model (audio_viseme_model.h,
  // fitted by `lipsync_bench --fit` on the tuning sentences); false: the older
  // hand-set rules (kept to compare against in the benchmark).
  bool fitted_shapes = true;
  // Level-independent decisions (issue 19): every level threshold relative to
  // the noise floor or the speaker's running peak, none absolute but digital
  // silence (-100 dBFS), so a recording 20 dB quieter gets the same cues; and
  // the floor learns only from frames that are not speech. false: the fixed
  // -50 dBFS gate of before, kept to compare against in the benchmark.
  bool adapt_level = true;
};

inline constexpr size_t kShapeBands = 12;  // spectral-shape bands, mel-spaced 100-6000 Hz

// Per-frame features, exposed for tests and tuning tools.
struct AudioFrameFeatures {
  float level_db = -120;    // window energy, dBFS
  float floor_db = -120;    // running noise floor
  float peak_db = -120;     // running speech peak
  bool speech = false;
  float low_ratio = 0;      // 80-350 Hz share of 80-8000 Hz energy
  float high_ratio = 0;     // 3500-8000 Hz share
  float f1_hz = 0;          // centroid of 250-1000 Hz
  float f2_hz = 0;          // centroid of 900-2800 Hz
  float zcr = 0;            // zero crossings per sample
  float tilt_db = 0;        // energy 1-3 kHz over 250-1000 Hz: low for rounded and open back vowels
  float periodicity = 0;    // normalized autocorrelation peak at 2.5-12.5 ms lags (pitch 80-400 Hz)
  float lpc_f1_hz = 0;      // first two formants from an LPC (order 16) envelope; 0: none found
  float lpc_f2_hz = 0;      //   (computed only for frames loud enough to be speech)
  std::array<float, kShapeBands> band_db{};  // each band's energy over the frame's (80-8000 Hz), dB
};

// The shape model's inputs for a frame: its own features (level under the
// peak, band centroids, band shares, zero crossings, tilt, periodicity, LPC
// formants, the 12 band levels) and their change since two frames (20 ms)
// before, scaled to similar ranges. Causal.
inline constexpr int kShapeModelInputs = 2 * (10 + static_cast<int>(kShapeBands));
std::array<float, kShapeModelInputs> ShapeModelInputs(const AudioFrameFeatures& now,
                                                      const AudioFrameFeatures& before);

class AudioVisemeTracker {
 public:
  static constexpr MediaTime kFrame = MediaTime::Millis(10);

  // InvalidArgument naming the field for a lookahead over 49 ms (60 ms in all)
  // or a negative duration.
  static absl::StatusOr<AudioVisemeTracker> Create(const AudioVisemeOptions& options = {});
  AudioVisemeTracker(AudioVisemeTracker&&) noexcept;
  AudioVisemeTracker& operator=(AudioVisemeTracker&&) noexcept;
  ~AudioVisemeTracker();

  // Feeds the next samples (mono, 16 kHz, any length). Returns the cues decided
  // by them, contiguous with those returned before: consecutive pieces of the
  // same shape continue one cue (AppendCues joins them). InvalidArgument for
  // another rate or channel count, with nothing consumed.
  absl::StatusOr<std::vector<VisemeCue>> Push(const AudioBuffer& pcm16k);
  // Decides the remaining frames as if silence followed; the tracker can then
  // be reused for a new stream starting at time 0.
  std::vector<VisemeCue> Flush();

  MediaTime decided_until() const;  // end of the last decided frame
  const std::vector<AudioFrameFeatures>* features_log() const;  // when enabled
  void EnableFeaturesLog();

 private:
  struct State;
  explicit AudioVisemeTracker(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Appends cue pieces to a track, joining a piece to the last cue when it
// continues it with the same shape; X pieces become gaps.
void AppendCues(VisemeTrack& track, const std::vector<VisemeCue>& pieces);

// The whole buffer at once (16 kHz mono): Push + Flush.
absl::StatusOr<VisemeTrack> AudioToVisemes(const AudioBuffer& pcm16k, const AudioVisemeOptions& options = {});

}  // namespace lingcast
