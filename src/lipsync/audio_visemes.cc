#include "lipsync/audio_visemes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <numbers>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lipsync/audio_viseme_model.h"

namespace lingcast {
namespace {

constexpr int kHop = 160;        // 10 ms at 16 kHz
constexpr int kWindow = 512;     // 32 ms, centred on the hop
constexpr int kHalfWindow = kWindow / 2;
constexpr float kBinHz = static_cast<float>(AudioVisemeOptions::kSampleRate) / kWindow;
constexpr int kPadded = 2 * kWindow;  // autocorrelation without wrap-around
constexpr int kMinLag = 40;           // 400 Hz
constexpr int kMaxLag = 200;          // 80 Hz: longer lags leave too little of the 32 ms window
constexpr float kVoiced = 0.6f;       // periodicity of a voiced frame
constexpr float kClosedMinLowRatio = 0.7f;
constexpr float kClosedUnderPeakDb = 6.0f;  // MayClose; when chosen, 10 cost 3 espeak-ng onsets (murmurs open), 6 one

// In-place radix-2 FFT (size a power of two).
void Fft(std::vector<std::complex<float>>& a) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const float angle = -2.0f * std::numbers::pi_v<float> / static_cast<float>(len);
    const std::complex<float> step(std::cos(angle), std::sin(angle));
    for (size_t i = 0; i < n; i += len) {
      std::complex<float> w(1.0f, 0.0f);
      for (size_t k = 0; k < len / 2; ++k) {
        const std::complex<float> u = a[i + k];
        const std::complex<float> v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
        w *= step;
      }
    }
  }
}

float ToDb(double power) { return static_cast<float>(10.0 * std::log10(std::max(power, 1e-12))); }

// Spectral-shape bands, equally wide on the mel scale from 100 to 6000 Hz.
float Mel(float hz) { return 2595.0f * std::log10(1.0f + hz / 700.0f); }
int BandOf(float hz) {
  static const float low = Mel(100.0f), high = Mel(6000.0f);
  const float mel = Mel(hz);
  if (mel < low || mel >= high) return -1;
  return static_cast<int>((mel - low) / (high - low) * kShapeBands);
}

struct Formants {
  float f1 = 0, f2 = 0;
};

// The first two formants from an LPC envelope: Levinson-Durbin on the
// autocorrelation `r` (lags 0..kLpcOrder + 1 at least) of the pre-emphasized
// frame (pre-emphasis 0.9 applied here, on r), then the envelope's first peak
// in 200-1100 Hz and the next one at least 200 Hz above it, up to 3500 Hz. Zero
// where there is none.
constexpr int kLpcOrder = 16;

Formants LpcFormants(const std::vector<float>& r) {
  constexpr double kPreEmphasis = 0.9;
  std::array<double, kLpcOrder + 1> rp{};
  for (int k = 0; k <= kLpcOrder; ++k) {
    const double before = r[static_cast<size_t>(k == 0 ? 1 : k - 1)], after = r[static_cast<size_t>(k + 1)];
    rp[static_cast<size_t>(k)] =
        (1 + kPreEmphasis * kPreEmphasis) * r[static_cast<size_t>(k)] - kPreEmphasis * (before + after);
  }
  rp[0] *= 1.0001;  // a little white noise keeps the recursion stable
  std::array<double, kLpcOrder + 1> a{}, previous{};
  a[0] = 1;
  double error = rp[0];
  for (int i = 1; i <= kLpcOrder && error > 0; ++i) {
    double acc = rp[static_cast<size_t>(i)];
    for (int j = 1; j < i; ++j) acc += a[static_cast<size_t>(j)] * rp[static_cast<size_t>(i - j)];
    const double k = -acc / error;
    previous = a;
    for (int j = 1; j < i; ++j) a[static_cast<size_t>(j)] += k * previous[static_cast<size_t>(i - j)];
    a[static_cast<size_t>(i)] = k;
    error *= 1 - k * k;
  }
  // The envelope 1/|A|^2 every 25 Hz from 150 to 3500 Hz.
  constexpr int kFirst = 150, kStep = 25, kPoints = (3500 - kFirst) / kStep + 1;
  std::array<double, kPoints> envelope{};
  for (int n = 0; n < kPoints; ++n) {
    const double omega = 2 * std::numbers::pi * (kFirst + n * kStep) / AudioVisemeOptions::kSampleRate;
    double re = 0, im = 0;
    for (int j = 0; j <= kLpcOrder; ++j) {
      re += a[static_cast<size_t>(j)] * std::cos(omega * j);
      im -= a[static_cast<size_t>(j)] * std::sin(omega * j);
    }
    envelope[static_cast<size_t>(n)] = 1.0 / std::max(re * re + im * im, 1e-12);
  }
  Formants formants;
  for (int n = 1; n + 1 < kPoints; ++n) {
    const auto i = static_cast<size_t>(n);
    if (envelope[i] < envelope[i - 1] || envelope[i] < envelope[i + 1]) continue;
    const auto hz = static_cast<float>(kFirst + n * kStep);
    if (formants.f1 == 0) {
      if (hz >= 200 && hz <= 1100) formants.f1 = hz;
    } else if (hz >= formants.f1 + 200) {
      formants.f2 = hz;
      break;
    }
  }
  return formants;
}

// The most likely shape under the fitted linear (softmax) model; A only where
// `may_close` (State::MayClose: what closed lips can let out).
Viseme FittedShape(const std::array<float, kShapeModelInputs>& inputs, bool may_close) {
  Viseme best = Viseme::kB;
  float best_score = -1e30f;
  for (int v = 0; v < kVisemeCount; ++v) {
    if (static_cast<Viseme>(v) == Viseme::kX) continue;  // silence is decided by the gate
    if (static_cast<Viseme>(v) == Viseme::kA && !may_close) continue;
    const auto& w = kShapeModelWeights[static_cast<size_t>(v)];
    float score = w[kShapeModelInputs];  // bias
    for (int i = 0; i < kShapeModelInputs; ++i) {
      const auto k = static_cast<size_t>(i);
      score += w[k] * (inputs[k] - kShapeModelMean[k]) / kShapeModelScale[k];
    }
    if (score > best_score) {
      best_score = score;
      best = static_cast<Viseme>(v);
    }
  }
  return best;
}

}  // namespace

std::array<float, kShapeModelInputs> ShapeModelInputs(const AudioFrameFeatures& now,
                                                      const AudioFrameFeatures& before) {
  constexpr size_t kOwn = kShapeModelInputs / 2;
  auto own = [](const AudioFrameFeatures& f) {
    std::array<float, kOwn> values{(f.level_db - f.peak_db) / 10.0f, f.f1_hz / 1000.0f, f.f2_hz / 1000.0f,
                                   f.low_ratio, f.high_ratio, f.zcr, f.tilt_db / 10.0f, f.periodicity,
                                   f.lpc_f1_hz / 1000.0f, f.lpc_f2_hz / 1000.0f};
    for (size_t b = 0; b < kShapeBands; ++b) values[10 + b] = f.band_db[b] / 10.0f;
    return values;
  };
  const std::array<float, kOwn> a = own(now), b = own(before);
  std::array<float, kShapeModelInputs> inputs{};
  for (size_t i = 0; i < kOwn; ++i) {
    inputs[i] = a[i];
    inputs[i + kOwn] = a[i] - b[i];
  }
  return inputs;
}

struct AudioVisemeTracker::State {
  AudioVisemeOptions options;
  int lookahead_frames = 4;
  int hold_frames = 6;
  int closure_frames = 15;
  std::array<float, kWindow> hann{};
  std::vector<float> hann_autocorrelation;  // normalized, lags 0..kMaxLag

  // Samples from `buffer_start` on; frame k's window starts at k * kHop + kHop/2 - kHalfWindow.
  std::vector<float> buffer;
  int64_t buffer_start = 0;
  int64_t samples_in = 0;
  int64_t next_frame = 0;  // next frame to analyse

  // Analysis state.
  float floor_db = 0;
  float peak_db = -120;
  float previous_level_db = -120;
  bool have_floor = false;
  // Under this a frame is digital silence, not the room. -85 dBFS with the
  // fixed-level gate; with adapt_level -100 dBFS (about the quantization noise
  // of 16-bit audio), or a quiet room turned down 20 dB (-85) would read as
  // silence.
  float digital_silence_db = -100.0f;
  static constexpr size_t kRecentUnvoiced = 30;
  // The adaptive floor rises to the quietest room frame once it has this many
  // (room frames are never speech, so fewer are needed than the fixed path's
  // 30 unvoiced ones): en-jfk's hum after digital silence lasts 25 frames
  // before the voice, and with 30 the floor was still -100 dBFS when the
  // phrase ended, so the hum after it was "speech".
  static constexpr size_t kRecentRoomMin = 10;
  // Frames after one of digital silence whose 32 ms windows still hold some of
  // it (the window reaches 26 ms before the frame's end): transitions, not
  // levels of the room or of a mouth.
  static constexpr int kStraddlingFrames = 3;
  int frames_since_digital_silence = 1 << 20;
  static constexpr int kMaxUnvoicedRun = 30;  // 300 ms of "speech" without a voiced frame is the room
  int frames_since_voice = 1 << 20;
  static constexpr int kBridgeFrames = 10;  // weak sound within 100 ms of speech continues it (adapt_level)
  int frames_since_strong = 1 << 20;
  bool last_was_room = true;  // the frame before was room sound (adapt_level's floor)
  std::deque<float> recent;  // levels of the last kRecentUnvoiced non-silent, unvoiced frames
  int frames_since_speech = 1 << 20;

  // Raw labels of analysed frames not yet decided, from `first_raw`.
  std::deque<Viseme> raw;
  std::deque<bool> raw_from_gate;  // per raw label: decided by the speech gate (silence, closure)
  std::deque<bool> raw_weak;       // per raw label: not speech, but sound 6 dB over the floor (adapt_level)
  static constexpr int kLeadInFrames = 10;  // the longest weak lead-in into speech the mouth opens on (100 ms)
  int decided_weak_run = 0;  // weak frames decided in a row just before raw.front()
  std::deque<Viseme> history;  // the last four raw labels before raw.front()
  std::deque<bool> history_from_gate;
  int64_t first_raw = 0;

  // Decision state.
  Viseme current = Viseme::kX;
  int current_frames = 0;
  int64_t decided = 0;  // frames decided

  std::deque<AudioFrameFeatures> previous;  // the last two analysed frames
  bool log_features = false;
  std::vector<AudioFrameFeatures> log;

  std::vector<std::complex<float>> fft = std::vector<std::complex<float>>(kWindow);
  std::vector<std::complex<float>> padded = std::vector<std::complex<float>>(kPadded);

  // Normalized autocorrelation of `windowed` (kWindow values) at lags 0..kMaxLag,
  // through the power spectrum of the zero-padded frame.
  std::vector<float> Autocorrelation(const std::vector<std::complex<float>>& windowed) {
    std::fill(padded.begin(), padded.end(), std::complex<float>(0.0f, 0.0f));
    std::copy(windowed.begin(), windowed.end(), padded.begin());
    Fft(padded);
    for (auto& c : padded) c = {std::norm(c), 0.0f};
    Fft(padded);  // the power spectrum is real and even: its forward transform is N * autocorrelation
    std::vector<float> r(kMaxLag + 1, 0.0f);
    const float zero = padded[0].real();
    if (zero <= 0) return r;
    for (int lag = 0; lag <= kMaxLag; ++lag) {
      r[static_cast<size_t>(lag)] = padded[static_cast<size_t>(lag)].real() / zero;
    }
    return r;
  }

  // Boersma's correction: the frame's autocorrelation over the window's, so a
  // periodic signal scores near 1 at its period whatever the window does.
  float Periodicity(const std::vector<float>& r) const {
    float best = 0;
    for (int lag = kMinLag + 1; lag < kMaxLag; ++lag) {
      const auto i = static_cast<size_t>(lag);
      if (r[i] < r[i - 1] || r[i] < r[i + 1]) continue;  // local peaks only
      best = std::max(best, std::min(1.0f, r[i] / hann_autocorrelation[i]));
    }
    return best;
  }

  float Sample(int64_t index) const {
    if (index < buffer_start || index >= buffer_start + static_cast<int64_t>(buffer.size())) return 0.0f;
    return buffer[static_cast<size_t>(index - buffer_start)];
  }

  // The noise floor of the fixed-level tracker (adapt_level = false): drops at
  // once, creeps up 3 dB/s (speech never drags it far). Digital silence
  // (under -85 dBFS: padding, muted input) says nothing about the room, so it
  // neither sets nor lowers the floor; the first real sound does, and a floor
  // left far below it by a quiet start (a fade-in, a hum that was not there a
  // moment ago) rises to the quietest of the last 30 frames that were not voiced.
  void FixedLevelFloor(const AudioFrameFeatures& f) {
    if (f.level_db >= digital_silence_db) {
      if (f.periodicity < kVoiced) {  // the voice is not the room
        recent.push_back(f.level_db);
        if (recent.size() > kRecentUnvoiced) recent.pop_front();
      }
      if (!have_floor || f.level_db < floor_db) {
        floor_db = f.level_db;
        have_floor = true;
      } else {
        const float quietest = recent.empty() ? floor_db : *std::min_element(recent.begin(), recent.end());
        floor_db = std::max(floor_db + 0.03f, recent.size() == kRecentUnvoiced ? quietest : floor_db);
      }
    } else if (!have_floor) {
      floor_db = digital_silence_db;
    }
  }

  // The adaptive noise floor (adapt_level), where the fixed one went wrong on
  // real recordings. It drops at once to any quieter frame, as before, but:
  //   * not to the kStraddlingFrames after digital silence, whose windows
  //     straddle it: en-jfk fades in from digital silence through one
  //     -93 dBFS frame into a -42 dBFS hum, and that one frame as the floor
  //     made the hum 50 dB of "speech"; 20 dB quieter, the same frame is
  //     digital silence itself, so the two copies got floors 4 dB apart.
  //     (Dropping only to a level held for 2-3 frames instead lifted the floor
  //     of speech without pauses -- espeak-ng clips -- and cost 4-10 points of
  //     exact-shape agreement.) A stream that starts in digital silence has
  //     digital silence as its floor: sound straight after it is not the room
  //     (a TTS clip's first vowel set the floor and never opened the mouth);
  //   * it creeps up (3 dB/s) only over room frames (last_was_room), not
  //     through speech: over AISHELL's 2.6 s phrase without a pause it crept
  //     from -57 to -49 dBFS and the quiet ends of syllables fell under the gate;
  //   * it rises to the quietest of the last 30 room frames (once there are
  //     kRecentRoomMin), not of any 30 unvoiced frames: inside a quiet
  //     Mandarin phrase those were an /x/, a weak /i/ and closures, and lifted
  //     the floor 12 dB mid-phrase.
  // Digital silence is under -100 dBFS here (about 16-bit quantization noise).
  void AdaptFloor(const AudioFrameFeatures& f) {
    if (f.level_db < digital_silence_db) {
      frames_since_digital_silence = 0;
      if (!have_floor) {
        floor_db = digital_silence_db;
        have_floor = true;
      }
      return;
    }
    if (++frames_since_digital_silence <= kStraddlingFrames) return;
    if (!have_floor || f.level_db < floor_db) {
      floor_db = f.level_db;
      have_floor = true;
      return;
    }
    if (last_was_room) floor_db += 0.03f;
    if (recent.size() >= kRecentRoomMin) {
      floor_db = std::max(floor_db, *std::min_element(recent.begin(), recent.end()));
    }
  }

  AudioFrameFeatures Analyse(int64_t frame) {
    AudioFrameFeatures f;
    const int64_t first = frame * kHop + kHop / 2 - kHalfWindow;
    double energy = 0;
    int crossings = 0;
    float previous = Sample(frame * kHop);
    for (int i = 0; i < kWindow; ++i) {
      const float x = Sample(first + i);
      energy += static_cast<double>(x) * x * hann[static_cast<size_t>(i)];
      fft[static_cast<size_t>(i)] = {x * hann[static_cast<size_t>(i)], 0.0f};
    }
    for (int i = 1; i < kHop; ++i) {
      const float x = Sample(frame * kHop + i);
      if ((x >= 0) != (previous >= 0)) ++crossings;
      previous = x;
    }
    f.zcr = static_cast<float>(crossings) / kHop;
    f.level_db = ToDb(energy / (kWindow / 2.0));  // Hann's mean square is 1/2... of its sum
    // Only frames that could pass a gate need it (it costs two 1024-point FFTs).
    const bool could_pass = f.level_db > digital_silence_db && f.level_db > floor_db + options.gate_db / 2 - 1;
    if (could_pass) {
      const std::vector<float> r = Autocorrelation(fft);
      f.periodicity = Periodicity(r);
      const Formants formants = LpcFormants(r);
      f.lpc_f1_hz = formants.f1;
      f.lpc_f2_hz = formants.f2;
    }

    Fft(fft);
    std::array<double, kShapeBands> bands{};
    double upper = 0, lower = 0;
    double total = 0, low = 0, high = 0, f1_power = 0, f1_moment = 0, f2_power = 0, f2_moment = 0;
    for (int bin = 1; bin < kWindow / 2; ++bin) {
      const float hz = static_cast<float>(bin) * kBinHz;
      const double p = std::norm(fft[static_cast<size_t>(bin)]);
      if (hz < 80) continue;
      total += p;
      const int band = BandOf(hz);
      if (band >= 0) bands[static_cast<size_t>(band)] += p;
      if (hz < 350) low += p;
      if (hz >= 3500) high += p;
      if (hz >= 250 && hz < 1000) lower += p;
      if (hz >= 1000 && hz < 3000) upper += p;
      if (hz >= 250 && hz < 1000) {
        f1_power += p;
        f1_moment += p * hz;
      }
      if (hz >= 900 && hz < 2800) {
        f2_power += p;
        f2_moment += p * hz;
      }
    }
    f.low_ratio = total > 0 ? static_cast<float>(low / total) : 0;
    f.high_ratio = total > 0 ? static_cast<float>(high / total) : 0;
    f.tilt_db = ToDb(upper + 1e-9) - ToDb(lower + 1e-9);
    f.f1_hz = f1_power > 0 ? static_cast<float>(f1_moment / f1_power) : 0;
    f.f2_hz = f2_power > 0 ? static_cast<float>(f2_moment / f2_power) : 0;
    for (size_t b = 0; b < bands.size(); ++b) f.band_db[b] = ToDb(bands[b] + 1e-9) - ToDb(total + 1e-9);

    if (options.adapt_level) {
      AdaptFloor(f);
    } else {
      FixedLevelFloor(f);
    }
    f.floor_db = floor_db;
    // Fricatives (s, sh, f) are quiet but hiss: they need only 2/3 of the gate;
    // voiced frames only half of it.
    const bool hiss = f.high_ratio > 0.3f && f.zcr > 0.25f;
    const bool voiced = f.periodicity >= kVoiced;
    const float gate = voiced ? options.gate_db / 2 : hiss ? options.gate_db * 2 / 3 : options.gate_db;
    // The lowest level that can be speech. Fixed (silence_dbfs), a quiet
    // speaker's whole phrase was under it: AISHELL 20 dB quieter (speech at
    // -53..-66 dBFS) kept the mouth shut in 93% of its speech. With
    // adapt_level it is relative to the speaker instead: `speech_range_db`
    // under the running speech peak, so the same sound gets the same decision
    // at any volume (the floor is relative already).
    const float lowest = options.adapt_level ? peak_db - options.speech_range_db : options.silence_dbfs;
    f.speech = f.level_db > floor_db + gate && f.level_db > lowest - (options.gate_db - gate);
    // No floor yet, or a window that straddles digital silence (a transition,
    // not a mouth: en-jfk's fade-in frame at -61 dBFS opened it on the hum).
    if (options.adapt_level && (!have_floor || frames_since_digital_silence <= kStraddlingFrames)) f.speech = false;
    const bool strong = f.speech;
    // Inside an utterance (up to kBridgeFrames after a frame that passed the
    // full gate) weak sound needs only half the gate: the Mandarin initial /x/
    // (h) of IT0011's huan, 11-17 dB over the floor with no clear pitch or hiss,
    // dipped a dB under the gate once and the mouth, from rest again, waited
    // 90 ms for the vowel; weak syllable ends and stop releases do the same.
    // Measured from the last strong frame, so room noise cannot chain itself on.
    if (options.adapt_level && !f.speech && have_floor && frames_since_strong < kBridgeFrames &&
        f.level_db > floor_db + options.gate_db / 2 && f.level_db > lowest) {
      f.speech = true;
    }
    // From rest, only what a mouth makes opens it: voicing, a clear hiss, or
    // loud sound with energy above 350 Hz. A hum (all low, with or without a
    // pitch) or a breath (a weak, diffuse hiss) leaves it closed.
    const bool at_rest = frames_since_speech > 0;
    // Energy all below 350 Hz opens the mouth only with a clear pitch (a /w/, an
    // /m/ released into a vowel), not as a hum, whose harmonics can look
    // weakly periodic.
    const bool bridged = f.speech && !strong;
    if (f.speech && at_rest && f.low_ratio > 0.7f && f.periodicity < 0.75f) f.speech = false;
    if (f.speech && at_rest && !voiced) {
      const bool clear_hiss = hiss && f.high_ratio > 0.45f;
      const bool loud_and_bright = f.level_db > floor_db + 20.0f && f.low_ratio < 0.7f;  // not a hum
      // A burst or a vowel starts within a frame or two; a breath swells.
      const bool sharp_rise = f.level_db > previous_level_db + 8.0f && f.low_ratio < 0.7f;
      f.speech = clear_hiss || loud_and_bright || sharp_rise;
    }
    if (f.speech && !bridged) {
      frames_since_strong = 0;
    } else {
      ++frames_since_strong;
    }
    if (voiced && f.speech) {
      frames_since_voice = 0;
    } else {
      ++frames_since_voice;
    }
    // The room, for the adaptive floor: a frame that is neither voiced nor
    // speech, or any unvoiced frame once the "speech" has gone without a voiced
    // frame for kMaxUnvoicedRun (a fan switched on reads as speech only that long).
    last_was_room = !voiced && (!f.speech || frames_since_voice > kMaxUnvoicedRun);
    if (options.adapt_level && f.level_db >= digital_silence_db && frames_since_digital_silence > kStraddlingFrames &&
        last_was_room) {
      recent.push_back(f.level_db);
      if (recent.size() > kRecentUnvoiced) recent.pop_front();
    }
    if (f.speech) {
      peak_db = std::max(peak_db - 0.06f, f.level_db);
    } else {
      peak_db = std::max(peak_db - 0.06f, -120.0f);
    }
    f.peak_db = peak_db;
    previous_level_db = f.level_db;
    return f;
  }

  // Weak sound that may lead into speech: not speech, 6 dB over the floor.
  bool Weak(const AudioFrameFeatures& f) const {
    return !f.speech && have_floor && frames_since_digital_silence > kStraddlingFrames &&
           f.level_db > f.floor_db + options.gate_db / 2;
  }

  void Remember(const AudioFrameFeatures& f) {
    previous.push_back(f);
    if (previous.size() > 2) previous.pop_front();
  }

  // Whether the fitted model may call a speech frame closed (A): closed lips
  // pass only a nasal murmur, with energy mostly under 350 Hz (real soft
  // onsets and an /n/ looked like espeak-ng's quiet closures to the model) and,
  // with adapt_level, at least kClosedUnderPeakDb under the running speech
  // peak. Real voices put far more of a vowel under 350 Hz than espeak-ng
  // does: IT0011's /i/ and /ɤ/, 6 dB under the phrase's peak with 70-90 % of
  // their energy that low, came out closed for 70-170 ms at a time.
  bool MayClose(const AudioFrameFeatures& f) const {
    if (f.low_ratio < kClosedMinLowRatio) return false;
    return !options.adapt_level || f.level_db <= f.peak_db - kClosedUnderPeakDb;
  }

  Viseme Label(const AudioFrameFeatures& f) {
    if (!f.speech) {
      ++frames_since_speech;
      return frames_since_speech <= closure_frames ? Viseme::kA : Viseme::kX;
    }
    frames_since_speech = 0;
    if (options.fitted_shapes) {
      return FittedShape(ShapeModelInputs(f, previous.size() == 2 ? previous.front() : f), MayClose(f));
    }
    const float relative = f.level_db - f.peak_db;  // <= 0
    if (f.high_ratio > 0.35f || f.zcr > 0.30f) return Viseme::kB;            // hiss: s, sh, f, z
    if (f.low_ratio > 0.75f && relative < -15.0f) return Viseme::kA;         // murmur: m, n, voice bar
    if (f.tilt_db < -10.0f && f.f1_hz < 550.0f && f.low_ratio < 0.6f) return Viseme::kF;  // little above 1 kHz: u, w
    if (f.low_ratio > 0.3f && f.f1_hz < 480.0f) return Viseme::kB;           // low F1, voicing-heavy: i, ə
    if (f.f1_hz >= 640.0f && relative > -8.0f) return Viseme::kD;            // high F1, loud: a
    return f.f2_hz < 1600.0f ? Viseme::kE : Viseme::kC;                       // mid: o/er (low F2) vs e/æ
  }

  // The smoothed label of raw.front(): the most common of the four frames
  // before, it and the lookahead frames after; ties go to the frame's own label.
  Viseme Smoothed() const {
    std::array<int, kVisemeCount> votes{};
    // Only shapes vote: silence around a speech frame says nothing about its
    // shape (with it, a mouth opening on varied shapes was outvoted by the rest
    // before it and opened late).
    for (size_t i = 0; i < history.size(); ++i) {
      if (!history_from_gate[i]) ++votes[static_cast<size_t>(history[i])];
    }
    for (size_t i = 0; i < raw.size() && i <= static_cast<size_t>(lookahead_frames); ++i) {
      if (!raw_from_gate[i]) ++votes[static_cast<size_t>(raw[i])];
    }
    Viseme best = raw.front();
    for (int v = 0; v < kVisemeCount; ++v) {
      if (votes[static_cast<size_t>(v)] > votes[static_cast<size_t>(best)]) best = static_cast<Viseme>(v);
    }
    // Silence and closures (the gate's) are not voted away: the mouth must rest
    // when the sound stops and close when the lips close. The hand rules' murmur
    // A is a closure too; the fitted model's A is a guess like its other shapes.
    const bool closure = raw_from_gate.front() || (!options.fitted_shapes && raw.front() == Viseme::kA);
    if (closure) return raw.front();
    return best;
  }

  // A mouth at rest opens on the weak sound that leads into speech within the
  // look-ahead (an /h/, /x/, a voice bar, too quiet for the gate alone),
  // showing the shape it leads into, as h-like sounds do in the
  // phoneme-driven track: espeak-ng's onsets came 38-58 ms late where such a
  // sound started them. Only a lead-in of up to kLeadInFrames of weak sound:
  // a hum running into a vowel is no lead-in.
  void OpenOnLeadIn() {
    if (!options.adapt_level || current != Viseme::kX || !raw_from_gate.front() || !raw_weak.front()) return;
    for (size_t j = 1; j < raw.size() && j <= static_cast<size_t>(lookahead_frames); ++j) {
      if (!raw_from_gate[j]) {
        if (decided_weak_run + static_cast<int>(j) > kLeadInFrames) return;
        raw.front() = raw[j];
        raw_from_gate.front() = false;
        return;
      }
      if (!raw_weak[j]) return;
    }
  }

  void DecideFront(std::vector<VisemeCue>& out) {
    OpenOnLeadIn();
    const Viseme wanted = Smoothed();
    const bool free_change = wanted == Viseme::kA || wanted == Viseme::kX || current == Viseme::kX ||
                             current == Viseme::kA;
    if (wanted != current && (free_change || current_frames >= hold_frames)) {
      current = wanted;
      current_frames = 0;
    }
    ++current_frames;
    const MediaTime start = MediaTime::Micros(decided * kFrame.micros());
    out.push_back({start, start + kFrame, current});
    ++decided;
    history.push_back(raw.front());
    history_from_gate.push_back(raw_from_gate.front());
    if (history.size() > 4) {
      history.pop_front();
      history_from_gate.pop_front();
    }
    decided_weak_run = raw_weak.front() ? decided_weak_run + 1 : 0;
    raw.pop_front();
    raw_from_gate.pop_front();
    raw_weak.pop_front();
    ++first_raw;
  }
};

AudioVisemeTracker::AudioVisemeTracker(std::unique_ptr<State> state) : state_(std::move(state)) {}
AudioVisemeTracker::AudioVisemeTracker(AudioVisemeTracker&&) noexcept = default;
AudioVisemeTracker& AudioVisemeTracker::operator=(AudioVisemeTracker&&) noexcept = default;
AudioVisemeTracker::~AudioVisemeTracker() = default;

absl::StatusOr<AudioVisemeTracker> AudioVisemeTracker::Create(const AudioVisemeOptions& options) {
  if (options.lookahead < MediaTime::Zero() || options.lookahead > MediaTime::Millis(49)) {
    return absl::InvalidArgumentError(absl::StrCat("lookahead must be 0..49 ms (60 ms with the analysis window), got ",
                                                   options.lookahead.micros() / 1000, " ms"));
  }
  if (options.min_hold < MediaTime::Zero() || options.closure_max < MediaTime::Zero()) {
    return absl::InvalidArgumentError("min_hold and closure_max must not be negative");
  }
  auto state = std::make_unique<State>();
  state->options = options;
  state->digital_silence_db = options.adapt_level ? -100.0f : -85.0f;
  state->lookahead_frames = static_cast<int>(options.lookahead.micros() / kFrame.micros());
  state->hold_frames = static_cast<int>(options.min_hold.micros() / kFrame.micros());
  state->closure_frames = static_cast<int>(options.closure_max.micros() / kFrame.micros());
  std::vector<std::complex<float>> window(kWindow);
  for (int i = 0; i < kWindow; ++i) {
    state->hann[static_cast<size_t>(i)] =
        0.5f - 0.5f * std::cos(2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kWindow);
    window[static_cast<size_t>(i)] = {state->hann[static_cast<size_t>(i)], 0.0f};
  }
  state->hann_autocorrelation = state->Autocorrelation(window);
  return AudioVisemeTracker(std::move(state));
}

absl::StatusOr<std::vector<VisemeCue>> AudioVisemeTracker::Push(const AudioBuffer& pcm16k) {
  if (pcm16k.sample_rate != AudioVisemeOptions::kSampleRate || pcm16k.channels != 1) {
    return absl::InvalidArgumentError(absl::StrCat("audio lip sync takes 16000 Hz mono, got ", pcm16k.sample_rate,
                                                   " Hz with ", pcm16k.channels, " channels (resample first)"));
  }
  State& s = *state_;
  s.buffer.insert(s.buffer.end(), pcm16k.samples.begin(), pcm16k.samples.end());
  s.samples_in += pcm16k.frames();
  std::vector<VisemeCue> out;
  // Frame k can be analysed once its window's last sample has arrived.
  while (s.next_frame * kHop + kHop / 2 + kHalfWindow <= s.samples_in) {
    const AudioFrameFeatures f = s.Analyse(s.next_frame);
    if (s.log_features) s.log.push_back(f);
    s.raw.push_back(s.Label(f));
    s.raw_from_gate.push_back(!f.speech);
    s.raw_weak.push_back(s.Weak(f));
    s.Remember(f);
    ++s.next_frame;
    if (static_cast<int>(s.raw.size()) > s.lookahead_frames) s.DecideFront(out);
  }
  // Keep only what later windows still need.
  const int64_t keep_from = s.next_frame * kHop + kHop / 2 - kHalfWindow;
  if (keep_from > s.buffer_start) {
    const auto drop = static_cast<size_t>(std::min<int64_t>(keep_from - s.buffer_start,
                                                            static_cast<int64_t>(s.buffer.size())));
    s.buffer.erase(s.buffer.begin(), s.buffer.begin() + static_cast<std::ptrdiff_t>(drop));
    s.buffer_start += static_cast<int64_t>(drop);
  }
  return out;
}

std::vector<VisemeCue> AudioVisemeTracker::Flush() {
  State& s = *state_;
  std::vector<VisemeCue> out;
  // Analyse the frames the input reaches into (their windows padded with silence).
  const int64_t frames = (s.samples_in + kHop - 1) / kHop;
  while (s.next_frame < frames) {
    const AudioFrameFeatures f = s.Analyse(s.next_frame);
    if (s.log_features) s.log.push_back(f);
    s.raw.push_back(s.Label(f));
    s.raw_from_gate.push_back(!f.speech);
    s.raw_weak.push_back(s.Weak(f));
    s.Remember(f);
    ++s.next_frame;
  }
  while (!s.raw.empty()) s.DecideFront(out);
  // The last piece ends with the audio, not on the 10 ms grid.
  const MediaTime end = MediaTime::FromSamples(s.samples_in, AudioVisemeOptions::kSampleRate);
  while (!out.empty() && out.back().start >= end) out.pop_back();
  if (!out.empty()) out.back().end = end;

  const AudioVisemeOptions options = s.options;
  const bool log = s.log_features;
  std::vector<AudioFrameFeatures> kept_log = std::move(s.log);
  auto fresh = Create(options);
  state_ = std::move(fresh->state_);
  state_->log_features = log;
  state_->log = std::move(kept_log);
  return out;
}

MediaTime AudioVisemeTracker::decided_until() const {
  return MediaTime::Micros(state_->decided * kFrame.micros());
}

const std::vector<AudioFrameFeatures>* AudioVisemeTracker::features_log() const {
  return state_->log_features ? &state_->log : nullptr;
}

void AudioVisemeTracker::EnableFeaturesLog() { state_->log_features = true; }

void AppendCues(VisemeTrack& track, const std::vector<VisemeCue>& pieces) {
  for (const VisemeCue& piece : pieces) {
    if (piece.shape == Viseme::kX || piece.end <= piece.start) continue;
    if (!track.cues.empty() && track.cues.back().shape == piece.shape && track.cues.back().end == piece.start) {
      track.cues.back().end = piece.end;
    } else {
      track.cues.push_back(piece);
    }
  }
}

absl::StatusOr<VisemeTrack> AudioToVisemes(const AudioBuffer& pcm16k, const AudioVisemeOptions& options) {
  absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create(options);
  if (!tracker.ok()) return tracker.status();
  VisemeTrack track;
  absl::StatusOr<std::vector<VisemeCue>> pieces = tracker->Push(pcm16k);
  if (!pieces.ok()) return pieces.status();
  AppendCues(track, *pieces);
  AppendCues(track, tracker->Flush());
  return track;
}

}  // namespace lingcast
