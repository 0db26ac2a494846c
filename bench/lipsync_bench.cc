// lipsync_bench: the lip-sync figures of issue 5.
//
//   (a) real recordings (../shared/data/speech), per file: mouth-open onsets
//       of the audio-only tracker against voiced-speech onsets
//       (lipsync/voiced_onsets.h; share within one frame at 30 fps, target
//       >= 90%), the share of silent frames where the mouth rests (X or A) and
//       mouth openings in silence; the WebRTC VAD's onsets beside them, with the
//       signal's numbers wherever the VAD fires more than a frame before the voice;
//   (a2) more onsets with exact timing: espeak-ng sentences in a row, against
//       where the phoneme-driven track opens the mouth;
//   (b) audio-only against the phoneme-driven track on espeak-ng speech, zh and
//       en: frame agreement at 30 fps over the speech span, exact shape and
//       shape class (closed / open / rounded); target >= 70%;
//   (c) audio-only speed: x realtime, against the WebRTC VAD on the same audio
//       (the reference measured in the same run);
//   (L) level independence (issue 19 item 5): each real recording and the
//       espeak-ng sentences in a row, at their own level and 20 dB quieter, through
//       what `lingcast lipsync` runs (LipSyncRecording, audio-only, 30 fps):
//       mouth open (not A or X) in % of speech frames, at rest (A or X) in % of
//       silent frames, onsets within one frame; targets >= 60 %, >= 80 %.
//
//   lipsync_bench [--confusion | --levels | --fit]
//     --confusion: features and reference x audio-only counts per language
//     --levels:    only (L)
//   lipsync_bench --frames FILE [GAIN_DB]: per-frame features and shapes of one file
// Never fails on time.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "audio/audio_decoder.h"
#include "audio/vad.h"
#include "lipsync/audio_visemes.h"
#include "lipsync/dialog_alignment.h"
#include "lipsync/test_speech.h"
#include "lipsync/viseme_compare.h"
#include "lipsync/voiced_onsets.h"

namespace lingcast {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kFps = 30;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

bool IsRest(Viseme v) { return v == Viseme::kX || v == Viseme::kA; }

struct VadSpans {
  std::vector<MediaTime> onsets;
  std::vector<std::pair<MediaTime, MediaTime>> speech;  // first voiced .. end of last voiced
};

VadSpans RunVad(const AudioBuffer& audio) {
  VadConfig config;
  config.hangover = MediaTime::Millis(200);
  config.min_speech = MediaTime::Millis(100);
  VadSpans spans;
  absl::StatusOr<VoiceActivityDetector> vad = VoiceActivityDetector::Create(config);
  if (!vad.ok()) return spans;
  std::vector<VadEvent> events = *vad->Push(audio);
  for (VadEvent& e : vad->Flush()) events.push_back(std::move(e));
  for (const VadEvent& e : events) {
    if (e.type == VadEvent::Type::kSpeechStart) spans.onsets.push_back(e.time);
    if (e.type == VadEvent::Type::kSpeechStart) spans.speech.push_back({e.time, e.time});
    if (e.type == VadEvent::Type::kSpeechEnd && !spans.speech.empty()) spans.speech.back().second = e.time;
  }
  return spans;
}

// Mouth-open onsets: an open (non-rest) cue that follows rest or a gap.
std::vector<MediaTime> MouthOnsets(const VisemeTrack& track) {
  std::vector<MediaTime> mouth;
  Viseme before = Viseme::kX;
  MediaTime before_end = MediaTime::Zero();
  for (const VisemeCue& c : track.cues) {
    const bool after_rest = IsRest(before) || c.start > before_end;
    if (!IsRest(c.shape) && after_rest) mouth.push_back(c.start);
    before = c.shape;
    before_end = c.end;
  }
  return mouth;
}

// Signed offset (mouth minus speech) of the mouth onset nearest to `onset`.
int64_t NearestOffset(const std::vector<MediaTime>& mouth, MediaTime onset) {
  int64_t best = 1LL << 40;
  for (MediaTime m : mouth) {
    if (std::llabs((m - onset).micros()) < std::llabs(best)) best = (m - onset).micros();
  }
  return best;
}

bool WithinFrame(int64_t offset_us) { return std::llabs(offset_us) <= static_cast<int64_t>(1e6 / kFps); }

struct OnsetTally {
  int onsets = 0, within = 0;
  int64_t silent_frames = 0, resting = 0;
  int false_openings = 0;  // mouth onsets in reference silence, > 1 frame from any speech onset
  void Add(const OnsetTally& o) {
    onsets += o.onsets;
    within += o.within;
    silent_frames += o.silent_frames;
    resting += o.resting;
    false_openings += o.false_openings;
  }
  std::string Summary() const {
    return absl::StrFormat("%d/%d onsets within one frame = %.1f%%; mouth at rest in %.1f%% of %lld silent frames; "
                           "%d mouth openings in silence",
                           within, onsets, onsets ? 100.0 * within / onsets : 0.0, RestShare(),
                           static_cast<long long>(silent_frames), false_openings);
  }
  double RestShare() const {
    return silent_frames ? 100.0 * static_cast<double>(resting) / static_cast<double>(silent_frames) : 0.0;
  }
};

// Scores a mouth track against speech onsets and speech spans. Silence is
// outside every span widened by 50 ms before and 200 ms after (the mouth may
// close late: closures, smoothing).
OnsetTally ScoreOnsets(const VisemeTrack& track, const std::vector<MediaTime>& onsets,
                       const std::vector<std::pair<MediaTime, MediaTime>>& speech, MediaTime end,
                       std::string* offsets) {
  OnsetTally tally;
  const std::vector<MediaTime> mouth = MouthOnsets(track);
  for (MediaTime onset : onsets) {
    const int64_t best = NearestOffset(mouth, onset);
    if (WithinFrame(best)) ++tally.within;
    if (offsets != nullptr) *offsets += absl::StrFormat(" %+d@%.2fs", static_cast<int>(best / 1000), onset.seconds());
  }
  tally.onsets = static_cast<int>(onsets.size());
  auto in_speech = [&](MediaTime t) {
    for (const auto& [a, b] : speech) {
      if (t >= a - MediaTime::Millis(50) && t < b + MediaTime::Millis(200)) return true;
    }
    return false;
  };
  for (int64_t k = 0;; ++k) {
    const MediaTime t = MediaTime::Micros(static_cast<int64_t>((static_cast<double>(k) + 0.5) * 1e6 / kFps));
    if (t >= end) break;
    if (in_speech(t)) continue;
    ++tally.silent_frames;
    if (IsRest(track.At(t))) ++tally.resting;
  }
  for (MediaTime m : mouth) {
    bool near_onset = false;
    for (MediaTime onset : onsets) near_onset |= WithinFrame((m - onset).micros());
    bool inside = false;
    for (const auto& [a, b] : speech) inside |= m >= a && m < b;
    if (!near_onset && !inside) ++tally.false_openings;
  }
  return tally;
}

// What the signal does between a VAD onset and the voiced onset after it:
// level over the file's floor and the best periodicity (the numbers behind a
// disagreement).
struct EarlyVadOnsets {
  int count = 0;
  double most_over_floor_db = -1e9;  // the highest mean level over the floor among them
};

std::string ExplainGap(const VoicedSpeech& voiced, MediaTime from, MediaTime to, EarlyVadOnsets* early) {
  float level = -120, periodicity = 0;
  double sum = 0;
  int n = 0;
  for (int64_t k = from.micros() / 10000; k < to.micros() / 10000 && k < static_cast<int64_t>(voiced.frames.size());
       ++k) {
    const VoicingFrame& f = voiced.frames[static_cast<size_t>(k)];
    level = std::max(level, f.level_db);
    periodicity = std::max(periodicity, f.periodicity);
    sum += f.level_db;
    ++n;
  }
  if (n == 0) return "";
  ++early->count;
  early->most_over_floor_db = std::max(early->most_over_floor_db, sum / n - voiced.floor_db);
  return absl::StrFormat("%.2f-%.2fs before the voice: mean %.1f dBFS (%.1f dB over the floor), max %.1f dBFS, "
                         "periodicity <= %.2f",
                         from.seconds(), to.seconds(), sum / n, sum / n - voiced.floor_db, level, periodicity);
}

void RealRecordings() {
  const std::filesystem::path dir = std::filesystem::path(LINGCAST_SOURCE_DIR) / ".." / "shared" / "data" / "speech";
  if (!std::filesystem::is_directory(dir)) {
    std::printf("(a) skipped: %s not found\n", dir.c_str());
    return;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::printf("(a) real recordings (%s): audio-only mouth-open onsets within one frame (30 fps) of speech onsets\n"
              "    reference: voiced-speech onsets (lipsync/voiced_onsets.h: sound joined to a voiced nucleus\n"
              "    (periodicity + level), pauses >= 150 ms); the WebRTC VAD's onsets shown beside it\n",
              dir.c_str());
  OnsetTally voiced_total, vad_total;
  EarlyVadOnsets early;
  for (const auto& path : files) {
    absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(path.string(), 16000);
    if (!audio.ok()) continue;
    absl::StatusOr<VisemeTrack> track = AudioToVisemes(*audio);
    absl::StatusOr<VoicedSpeech> voiced = FindVoicedSpeech(*audio);
    if (!track.ok() || !voiced.ok()) continue;
    const VadSpans vad = RunVad(*audio);
    std::string voiced_offsets, vad_offsets;
    const OnsetTally v = ScoreOnsets(*track, voiced->onsets, voiced->segments, audio->duration(), &voiced_offsets);
    const OnsetTally w = ScoreOnsets(*track, vad.onsets, vad.speech, audio->duration(), &vad_offsets);
    voiced_total.Add(v);
    vad_total.Add(w);
    std::printf("  %s (%.1f s; floor %.1f dBFS, loud %.1f dBFS)\n", path.filename().c_str(),
                audio->duration().seconds(), voiced->floor_db, voiced->loud_db);
    std::printf("    voiced reference: %s\n      offsets ms (mouth - speech):%s\n", v.Summary().c_str(),
                voiced_offsets.c_str());
    std::printf("    WebRTC VAD:       %s\n      offsets ms (mouth - speech):%s\n", w.Summary().c_str(),
                vad_offsets.c_str());
    // Where the two references disagree by more than a frame, the numbers.
    for (MediaTime onset : vad.onsets) {
      MediaTime next = onset;
      bool found = false;
      for (MediaTime o : voiced->onsets) {
        if (o >= onset - MediaTime::Millis(34) && (!found || o < next)) {
          next = o;
          found = true;
        }
      }
      if (found && next - onset > MediaTime::Millis(34)) {
        std::printf("      VAD onset %.2fs is %lld ms before the voiced onset %.2fs; %s\n", onset.seconds(),
                    static_cast<long long>((next - onset).micros() / 1000), next.seconds(),
                    ExplainGap(*voiced, onset, next, &early).c_str());
      }
    }
  }
  std::printf("  total, voiced reference: %s (target >= 90%% within one frame)\n", voiced_total.Summary().c_str());
  std::printf("  total, WebRTC VAD:       %s\n", vad_total.Summary().c_str());
  if (early.count > 0) {
    // Sound within 6 dB of the room's floor is not a voice starting.
    const bool floor_level = early.most_over_floor_db < 6.0;
    std::printf("  verdict: in the %d places where the VAD starts speech more than a frame before the voice, the\n"
                "  sound before the voice averages at most %.1f dB over the file's floor: %s\n",
                early.count, early.most_over_floor_db,
                floor_level ? "room sound (hum, breath), so the VAD's onsets are the wrong reference there and the "
                              "voiced onsets are the ones scored"
                            : "some of it may be speech; look at those places before trusting either reference");
  }
}

// espeak-ng sentences one after another with pauses, in a quiet room (white
// noise at about -65 dBFS); the reference onsets are where the phoneme-driven
// track opens the mouth (the synthesizer's own timing, no detector involved).
struct SentenceStream {
  AudioBuffer audio;
  std::vector<MediaTime> onsets;
  std::vector<std::pair<MediaTime, MediaTime>> speech;  // mouth-open spans, joined across < 150 ms
};

SentenceStream BuildSentenceStream(EspeakEngine& engine, Language language) {
  SentenceStream stream;
  stream.audio.sample_rate = 16000;
  int index = 0;
  for (const std::string& text : AllSentences(language)) {
    absl::StatusOr<SpokenSample> sample = SpeakForLipSync(engine, text, language);
    if (!sample.ok() || sample->phonemes.phonemes.empty()) continue;
    const auto pause = static_cast<size_t>(16000 * (0.3 + 0.1 * (index++ % 7)));
    stream.audio.samples.insert(stream.audio.samples.end(), pause, 0.0f);
    const MediaTime at = stream.audio.duration();
    stream.audio.samples.insert(stream.audio.samples.end(), sample->audio.samples.begin(),
                                sample->audio.samples.end());
    // The phoneme-driven track's mouth-open onsets (m/b/p start closed: the
    // mouth opens at the vowel after them), pauses >= 150 ms apart.
    for (const VisemeCue& c : sample->reference.cues) {
      const MediaTime start = at + c.start, end = at + c.end;
      if (IsRest(c.shape)) continue;
      if (!stream.speech.empty() && start - stream.speech.back().second < MediaTime::Millis(150)) {
        stream.speech.back().second = end;
      } else {
        stream.speech.push_back({start, end});
        stream.onsets.push_back(start);
      }
    }
  }
  uint32_t state = 7;
  for (float& s : stream.audio.samples) {  // a quiet room: white noise at about -65 dBFS
    state = state * 1664525u + 1013904223u;
    s += (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.002f;
  }
  return stream;
}

void SynthesizedOnsets(EspeakEngine& engine) {
  std::printf("(a2) espeak-ng sentences in a row (pauses 0.3-0.9 s, -65 dBFS noise): onsets where the phoneme-driven "
              "track opens the mouth\n");
  for (Language language : {Language::kEn, Language::kZh}) {
    const SentenceStream stream = BuildSentenceStream(engine, language);
    absl::StatusOr<VisemeTrack> track = AudioToVisemes(stream.audio);
    if (!track.ok()) continue;
    std::string offsets;
    const OnsetTally t = ScoreOnsets(*track, stream.onsets, stream.speech, stream.audio.duration(), &offsets);
    std::printf("  %s: %s\n    offsets ms (mouth - speech):%s\n", language == Language::kZh ? "zh" : "en",
                t.Summary().c_str(), offsets.c_str());
  }
}

// (L) Level independence. What `lingcast lipsync` does without a dialog
// (LipSyncRecording: the audio-only tracker, cues snapped to 30 fps frames),
// scored on 30 fps frames: speech frames are those whose centre lies inside a
// reference speech span, silent frames those outside every span widened by
// 50 ms before and 200 ms after (the mouth may close late). The reference is
// computed once, on the recording at its own level, and kept for the quieter
// copy: the truth does not change with the volume.
struct LevelScore {
  int speech_frames = 0, open = 0;
  int silent_frames = 0, resting = 0;
  int onsets = 0, within = 0;
  std::string offsets;
  std::string Row() const {
    auto share = [](int a, int b) { return b ? 100.0 * a / b : 0.0; };
    return absl::StrFormat("open %5.1f%% of %4d   rest %5.1f%% of %4d   onsets %2d/%-2d", share(open, speech_frames),
                           speech_frames, share(resting, silent_frames), silent_frames, within, onsets);
  }
};

LevelScore ScoreLevel(const VisemeTrack& track, const std::vector<MediaTime>& onsets,
                      const std::vector<std::pair<MediaTime, MediaTime>>& speech, MediaTime end) {
  LevelScore score;
  auto inside = [&](MediaTime t, MediaTime before, MediaTime after) {
    for (const auto& [a, b] : speech) {
      if (t >= a - before && t < b + after) return true;
    }
    return false;
  };
  for (int64_t k = 0;; ++k) {
    const MediaTime t = MediaTime::Micros(static_cast<int64_t>((static_cast<double>(k) + 0.5) * 1e6 / kFps));
    if (t >= end) break;
    const bool rest = IsRest(track.At(t));
    if (inside(t, MediaTime::Zero(), MediaTime::Zero())) {
      ++score.speech_frames;
      score.open += !rest;
    } else if (!inside(t, MediaTime::Millis(50), MediaTime::Millis(200))) {
      ++score.silent_frames;
      score.resting += rest;
    }
  }
  const std::vector<MediaTime> mouth = MouthOnsets(track);
  for (MediaTime onset : onsets) {
    const int64_t best = NearestOffset(mouth, onset);
    ++score.onsets;
    score.within += WithinFrame(best);
    score.offsets += best > (1LL << 39) ? absl::StrFormat(" none@%.2fs", onset.seconds())
                                        : absl::StrFormat(" %+d@%.2fs", static_cast<int>(best / 1000), onset.seconds());
  }
  return score;
}

AudioBuffer Scaled(const AudioBuffer& audio, float gain_db) {
  AudioBuffer out = audio;
  const float gain = std::pow(10.0f, gain_db / 20.0f);
  for (float& s : out.samples) s *= gain;
  return out;
}

float PeakDbfs(const AudioBuffer& audio) {
  float peak = 0;
  for (float s : audio.samples) peak = std::max(peak, std::abs(s));
  return 20.0f * std::log10(std::max(peak, 1e-9f));
}

void ScoreAtLevels(const std::string& name, const AudioBuffer& audio, const std::vector<MediaTime>& onsets,
                   const std::vector<std::pair<MediaTime, MediaTime>>& speech, const char* reference) {
  std::printf("  %s (%.1f s, peak %.1f dBFS; reference: %s)\n", name.c_str(), audio.duration().seconds(),
              PeakDbfs(audio), reference);
  for (float gain : {0.0f, -20.0f}) {
    const AudioBuffer scaled = Scaled(audio, gain);
    for (bool after : {false, true}) {
      RecordingLipSyncOptions options;
      options.frame_rate = kFps;
      options.audio.adapt_level = after;
      absl::StatusOr<RecordingLipSync> result = LipSyncRecording(scaled, options);
      if (!result.ok()) {
        std::printf("    failed: %s\n", result.status().ToString().c_str());
        continue;
      }
      const LevelScore score = ScoreLevel(result->track, onsets, speech, scaled.duration());
      std::printf("    %-7s %-6s %s   offsets ms:%s\n", gain == 0 ? "own" : "-20 dB", after ? "after" : "before",
                  score.Row().c_str(), score.offsets.c_str());
    }
  }
}

// --frames FILE [GAIN_DB]: the tracker's features and shapes per 10 ms frame of
// one file, beside the voiced-speech reference (what the figures above hide).
void DumpFrames(const char* file, float gain_db) {
  absl::StatusOr<AudioBuffer> original = DecodeAudioFile(file, 16000);
  if (!original.ok()) {
    std::printf("%s\n", original.status().ToString().c_str());
    return;
  }
  absl::StatusOr<VoicedSpeech> voiced = FindVoicedSpeech(*original);
  const AudioBuffer audio = Scaled(*original, gain_db);
  absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
  tracker->EnableFeaturesLog();
  VisemeTrack track;
  AppendCues(track, *tracker->Push(audio));
  AppendCues(track, tracker->Flush());
  const std::vector<AudioFrameFeatures>& log = *tracker->features_log();
  std::printf("   t(s) ref level floor  peak sp  low  high  per  f1    f2   lpc1 lpc2  tilt  zcr  shape\n");
  for (size_t k = 0; k < log.size(); ++k) {
    const AudioFrameFeatures& f = log[k];
    const MediaTime t = MediaTime::Micros(static_cast<int64_t>(k) * 10000 + 5000);
    std::printf("%7.2f  %c %6.1f %5.1f %5.1f %d %5.2f %5.2f %4.2f %4.0f %5.0f %4.0f %4.0f %5.1f %4.2f  %c\n", t.seconds(),
                voiced.ok() && voiced->InSpeech(t) ? 'S' : '.', f.level_db, f.floor_db, f.peak_db, f.speech ? 1 : 0,
                f.low_ratio, f.high_ratio, f.periodicity, f.f1_hz, f.f2_hz, f.lpc_f1_hz, f.lpc_f2_hz, f.tilt_db,
                f.zcr, VisemeLetter(track.At(t)));
  }
}

void LevelIndependence(EspeakEngine* engine) {
  std::printf("(L) level independence: `lingcast lipsync` (audio-only, 30 fps) at the recording's own level and 20 dB\n"
              "    quieter; open = not A or X in speech frames (target >= 60%%), rest = A or X in silent frames (>= 80%%),\n"
              "    onsets = mouth-open onsets within one frame; before = fixed-level tracker (adapt_level = false)\n");
  const std::filesystem::path dir = std::filesystem::path(LINGCAST_SOURCE_DIR) / ".." / "shared" / "data" / "speech";
  if (std::filesystem::is_directory(dir)) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(path.string(), 16000);
      if (!audio.ok()) continue;
      absl::StatusOr<VoicedSpeech> voiced = FindVoicedSpeech(*audio);
      if (!voiced.ok()) continue;
      ScoreAtLevels(path.filename().string(), *audio, voiced->onsets, voiced->segments,
                    "voiced speech of the file at its own level (voiced_onsets.h)");
    }
  } else {
    std::printf("  real recordings skipped: %s not found\n", dir.c_str());
  }
  if (engine == nullptr) return;
  for (Language language : {Language::kEn, Language::kZh}) {
    const SentenceStream stream = BuildSentenceStream(*engine, language);
    ScoreAtLevels(language == Language::kZh ? "espeak-ng zh, 22 sentences" : "espeak-ng en, 22 sentences",
                  stream.audio, stream.onsets, stream.speech, "espeak-ng's phoneme events (phoneme-driven track)");
  }
}

struct ShapeTally {
  int frames = 0, exact = 0, same_class = 0;
  std::array<int, 3> class_frames{}, class_hits{};  // per phoneme-driven class: closed, open, rounded
  void Add(Viseme reference, Viseme audio) {
    ++frames;
    exact += reference == audio;
    same_class += ClassOf(reference) == ClassOf(audio);
    ++class_frames[static_cast<size_t>(ClassOf(reference))];
    class_hits[static_cast<size_t>(ClassOf(reference))] += ClassOf(reference) == ClassOf(audio);
  }
  std::string Summary() const {
    auto share = [](int a, int b) { return b ? 100.0 * a / b : 0.0; };
    return absl::StrFormat("%4d frames, exact %.1f%%, class %.1f%% (closed %.0f%% of %d, open %.0f%% of %d, "
                           "rounded %.0f%% of %d)",
                           frames, share(exact, frames), share(same_class, frames), share(class_hits[0], class_frames[0]),
                           class_frames[0], share(class_hits[1], class_frames[1]), class_frames[1],
                           share(class_hits[2], class_frames[2]), class_frames[2]);
  }
};

void Synthesized(EspeakEngine& engine, bool confusion) {
  std::printf("(b) audio-only vs phoneme-driven track on espeak-ng speech (30 fps frames over the speech span);\n"
              "    the fitted shape model was fitted on the tuning sentences only; target >= 70%% by class\n");
  std::array<std::array<int, kVisemeCount>, kVisemeCount> counts{};
  struct FeatureSums {
    double n = 0, speech = 0, rel = 0, f1 = 0, f2 = 0, low = 0, high = 0, zcr = 0, tilt = 0, periodicity = 0;
  };
  std::array<FeatureSums, kVisemeCount> sums{};
  AudioVisemeOptions rules;
  rules.fitted_shapes = false;
  AudioVisemeOptions fixed_level;  // the fitted model behind the tracker of before issue 19
  fixed_level.adapt_level = false;
  for (Language language : {Language::kEn, Language::kZh}) {
    for (bool held_out : {false, true}) {
      counts = {};
      sums = {};
      ShapeTally fitted_tally, rules_tally, fixed_tally;
      const std::vector<std::string>& sentences = held_out ? HeldOutSentences(language) : SampleSentences(language);
      for (const std::string& text : sentences) {
        absl::StatusOr<SpokenSample> sample = SpeakForLipSync(engine, text, language);
        if (!sample.ok() || sample->reference.cues.empty()) {
          std::printf("  synthesis failed: %s\n", sample.status().ToString().c_str());
          continue;
        }
        absl::StatusOr<VisemeTrack> fitted_track = AudioToVisemes(sample->audio);
        absl::StatusOr<VisemeTrack> rules_track = AudioToVisemes(sample->audio, rules);
        absl::StatusOr<VisemeTrack> fixed_track = AudioToVisemes(sample->audio, fixed_level);
        if (!fitted_track.ok() || !rules_track.ok() || !fixed_track.ok()) continue;
        if (confusion) {
          // Mean features per reference shape.
          absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
          tracker->EnableFeaturesLog();
          (void)tracker->Push(sample->audio);
          tracker->Flush();
          const std::vector<AudioFrameFeatures>& log = *tracker->features_log();
          for (size_t k = 0; k < log.size(); ++k) {
            const Viseme ref = sample->reference.At(MediaTime::Micros(static_cast<int64_t>(k) * 10000 + 5000));
            FeatureSums& f = sums[static_cast<size_t>(ref)];
            f.n += 1;
            f.speech += log[k].speech;
            f.rel += log[k].level_db - log[k].peak_db;
            f.f1 += log[k].f1_hz;
            f.f2 += log[k].f2_hz;
            f.low += log[k].low_ratio;
            f.high += log[k].high_ratio;
            f.zcr += log[k].zcr;
            f.tilt += log[k].tilt_db;
            f.periodicity += log[k].periodicity;
          }
        }
        const MediaTime from = sample->reference.cues.front().start, to = sample->reference.cues.back().end;
        for (int k = 0;; ++k) {
          const MediaTime t = from + MediaTime::Micros(static_cast<int64_t>((k + 0.5) * 1e6 / kFps));
          if (t >= to) break;
          const Viseme reference = sample->reference.At(t);
          fitted_tally.Add(reference, fitted_track->At(t));
          rules_tally.Add(reference, rules_track->At(t));
          fixed_tally.Add(reference, fixed_track->At(t));
          ++counts[static_cast<size_t>(reference)][static_cast<size_t>(fitted_track->At(t))];
        }
      }
      const char* name = language == Language::kZh ? "zh" : "en";
      std::printf("  %s %-8s (%zu sentences) fitted model: %s\n", name, held_out ? "held-out" : "tuning",
                  sentences.size(), fitted_tally.Summary().c_str());
      std::printf("  %s %-8s                hand rules:   %s\n", name, held_out ? "held-out" : "tuning",
                  rules_tally.Summary().c_str());
      std::printf("  %s %-8s                fixed level:  %s\n", name, held_out ? "held-out" : "tuning",
                  fixed_tally.Summary().c_str());
      if (confusion) {
        std::printf("  mean features per phoneme-driven shape (10 ms frames)\n");
        for (int i = 0; i < kVisemeCount; ++i) {
          const FeatureSums& f = sums[static_cast<size_t>(i)];
          if (f.n == 0) continue;
          std::printf("  %c n=%5.0f speech %.2f rel %6.1f dB f1 %5.0f f2 %5.0f low %.2f high %.2f zcr %.2f tilt %5.1f "
                      "periodicity %.2f\n",
                      VisemeLetter(static_cast<Viseme>(i)), f.n, f.speech / f.n, f.rel / f.n, f.f1 / f.n, f.f2 / f.n,
                      f.low / f.n, f.high / f.n, f.zcr / f.n, f.tilt / f.n, f.periodicity / f.n);
        }
        std::printf("  confusion of the fitted model (rows: phoneme-driven, columns: audio-only)\n     ");
        for (int j = 0; j < kVisemeCount; ++j) std::printf("%6c", VisemeLetter(static_cast<Viseme>(j)));
        std::printf("\n");
        for (int i = 0; i < kVisemeCount; ++i) {
          std::printf("  %c  ", VisemeLetter(static_cast<Viseme>(i)));
          for (int j = 0; j < kVisemeCount; ++j) {
            std::printf("%6d", counts[static_cast<size_t>(i)][static_cast<size_t>(j)]);
          }
          std::printf("\n");
        }
      }
    }
  }
}

// Fits the shape model (audio_viseme_model.h) on the tuning sentences only:
// multinomial logistic regression, inputs standardized, L2 0.001, full-batch
// gradient descent. Prints the header to stdout.
void Fit(EspeakEngine& engine) {
  std::vector<std::array<float, kShapeModelInputs>> inputs;
  std::vector<int> labels;
  for (Language language : {Language::kEn, Language::kZh}) {
    for (const std::string& text : SampleSentences(language)) {
      absl::StatusOr<SpokenSample> sample = SpeakForLipSync(engine, text, language);
      if (!sample.ok()) continue;
      absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
      tracker->EnableFeaturesLog();
      (void)tracker->Push(sample->audio);
      tracker->Flush();
      const std::vector<AudioFrameFeatures>& log = *tracker->features_log();
      for (size_t k = 0; k < log.size(); ++k) {
        // Speech frames where the phoneme track shows a mouth (its silences at the
        // edges of speech are the gate's business, not the shape model's).
        const Viseme shape = sample->reference.At(MediaTime::Micros(static_cast<int64_t>(k) * 10000 + 5000));
        if (!log[k].speech || shape == Viseme::kX) continue;
        inputs.push_back(ShapeModelInputs(log[k], log[k >= 2 ? k - 2 : k]));
        labels.push_back(static_cast<int>(shape));
      }
    }
  }
  const size_t n = inputs.size();
  constexpr int kIn = kShapeModelInputs;
  std::array<double, kIn> mean{}, scale{};
  for (const auto& x : inputs) for (int i = 0; i < kIn; ++i) mean[i] += x[i] / static_cast<double>(n);
  for (const auto& x : inputs) for (int i = 0; i < kIn; ++i) scale[i] += (x[i] - mean[i]) * (x[i] - mean[i]) / static_cast<double>(n);
  for (double& v : scale) v = std::max(std::sqrt(v), 1e-6);
  std::vector<std::array<double, kIn + 1>> z(n);
  for (size_t j = 0; j < n; ++j) {
    for (int i = 0; i < kIn; ++i) z[j][i] = (inputs[j][i] - mean[i]) / scale[i];
    z[j][kIn] = 1.0;
  }
  std::array<std::array<double, kIn + 1>, kVisemeCount> w{};  // X stays all zero and is never chosen
  for (int iteration = 0; iteration < 6000; ++iteration) {
    std::array<std::array<double, kIn + 1>, kVisemeCount> gradient{};
    for (size_t j = 0; j < n; ++j) {
      std::array<double, kVisemeCount> p{};
      double top = -1e300, sum = 0;
      constexpr int kShapes = kVisemeCount - 1;  // A..H
      for (int v = 0; v < kShapes; ++v) {
        for (int i = 0; i <= kIn; ++i) p[v] += w[v][i] * z[j][i];
        top = std::max(top, p[v]);
      }
      for (int v = 0; v < kShapes; ++v) sum += (p[v] = std::exp(p[v] - top));
      for (int v = 0; v < kShapes; ++v) {
        const double error = p[v] / sum - (labels[j] == v ? 1.0 : 0.0);
        for (int i = 0; i <= kIn; ++i) gradient[v][i] += error * z[j][i] / static_cast<double>(n);
      }
    }
    for (int v = 0; v < kVisemeCount - 1; ++v) {
      for (int i = 0; i <= kIn; ++i) w[v][i] -= 0.5 * (gradient[v][i] + (i < kIn ? 0.0001 * w[v][i] : 0.0));
    }
  }
  std::fprintf(stderr, "fitted on %zu speech frames of %zu tuning sentences\n", n,
               SampleSentences(Language::kEn).size() + SampleSentences(Language::kZh).size());
  std::printf("// Generated by `lipsync_bench --fit` (bench/lipsync_bench.cc) from the tuning\n"
              "// sentences (test_speech.h SampleSentences, en and zh, %zu speech frames): a\n"
              "// multinomial logistic regression of the phoneme-driven shape on\n"
              "// ShapeModelInputs (X is never chosen: silence is the gate's). Do not edit by hand.\n#pragma once\n\n#include <array>\n\n"
              "#include \"lipsync/audio_visemes.h\"\n#include \"media/viseme.h\"\n\nnamespace lingcast {\n\n", n);
  auto row = [](const double* values, int count) {
    std::string text;
    for (int i = 0; i < count; ++i) text += absl::StrFormat("%s%.5ef", i ? ", " : "", values[i]);
    return text;
  };
  std::printf("inline constexpr std::array<float, kShapeModelInputs> kShapeModelMean{%s};\n",
              row(mean.data(), kIn).c_str());
  std::printf("inline constexpr std::array<float, kShapeModelInputs> kShapeModelScale{%s};\n",
              row(scale.data(), kIn).c_str());
  std::printf("inline constexpr std::array<std::array<float, kShapeModelInputs + 1>, kVisemeCount> kShapeModelWeights{{\n");
  for (int v = 0; v < kVisemeCount; ++v) std::printf("    {%s},  // %c\n", row(w[v].data(), kIn + 1).c_str(), VisemeLetter(static_cast<Viseme>(v)));
  std::printf("}};\n\n}  // namespace lingcast\n");
}

void Speed() {
  const std::filesystem::path path =
      std::filesystem::path(LINGCAST_SOURCE_DIR) / ".." / "shared" / "data" / "speech" / "en-jfk.wav";
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(path.string(), 16000);
  if (!audio.ok()) {
    std::printf("(c) skipped: %s\n", audio.status().ToString().c_str());
    return;
  }
  std::vector<double> lips, vad;
  for (int run = 0; run < 5; ++run) {
    auto start = Clock::now();
    absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
    AudioBuffer chunk;
    chunk.sample_rate = 16000;
    for (size_t i = 0; i < audio->samples.size(); i += 320) {  // 20 ms pieces, as live audio arrives
      chunk.samples.assign(audio->samples.begin() + static_cast<std::ptrdiff_t>(i),
                           audio->samples.begin() + static_cast<std::ptrdiff_t>(std::min(i + 320, audio->samples.size())));
      (void)tracker->Push(chunk);
    }
    tracker->Flush();
    lips.push_back(Seconds(start));
    start = Clock::now();
    absl::StatusOr<VoiceActivityDetector> detector = VoiceActivityDetector::Create();
    for (size_t i = 0; i < audio->samples.size(); i += 320) {
      chunk.samples.assign(audio->samples.begin() + static_cast<std::ptrdiff_t>(i),
                           audio->samples.begin() + static_cast<std::ptrdiff_t>(std::min(i + 320, audio->samples.size())));
      (void)detector->Push(chunk);
    }
    detector->Flush();
    vad.push_back(Seconds(start));
  }
  std::sort(lips.begin(), lips.end());
  std::sort(vad.begin(), vad.end());
  const double seconds = audio->duration().seconds();
  std::printf("(c) speed on %s (%.1f s, 20 ms pushes, median of 5): audio-only lip sync %.0fx realtime "
              "(%.2f ms per second of audio); WebRTC VAD %.0fx; lip sync / VAD time = %.2f\n",
              path.filename().c_str(), seconds, seconds / lips[2], 1000.0 * lips[2] / seconds, seconds / vad[2],
              lips[2] / vad[2]);
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  const bool confusion = argc > 1 && std::strcmp(argv[1], "--confusion") == 0;
  const bool fit = argc > 1 && std::strcmp(argv[1], "--fit") == 0;
  const bool levels = argc > 1 && std::strcmp(argv[1], "--levels") == 0;
  if (argc > 2 && std::strcmp(argv[1], "--frames") == 0) {
    lingcast::DumpFrames(argv[2], argc > 3 ? std::strtof(argv[3], nullptr) : 0.0f);
    return 0;
  }
  if (!fit && !levels) lingcast::RealRecordings();
  lingcast::EspeakOptions espeak;
  // build/bench/lipsync_bench -> build/data/zh_lexicon.tsv, unless LINGCAST_DATA_DIR says otherwise.
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path lexicon = exe.parent_path().parent_path() / "data" / "zh_lexicon.tsv";
  if (std::getenv("LINGCAST_DATA_DIR") == nullptr && std::filesystem::exists(lexicon)) espeak.lexicon_path = lexicon;
  absl::StatusOr<std::unique_ptr<lingcast::EspeakEngine>> engine = lingcast::EspeakEngine::Create(espeak);
  if (engine.ok() && fit) {
    lingcast::Fit(**engine);
    return 0;
  }
  if (levels) {
    lingcast::LevelIndependence(engine.ok() ? engine->get() : nullptr);
    return 0;
  }
  if (engine.ok()) {
    lingcast::SynthesizedOnsets(**engine);
    lingcast::Synthesized(**engine, confusion);
  } else {
    std::printf("(b) skipped: %s\n", engine.status().ToString().c_str());
  }
  lingcast::Speed();
  lingcast::LevelIndependence(engine.ok() ? engine->get() : nullptr);
  return 0;
}
