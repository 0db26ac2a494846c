// Voiced-speech onsets of a whole recording: the reference that lip-sync
// timing is measured against (bench/lipsync_bench, tests). Offline and
// non-causal on purpose: it sees the whole file, so its noise floor and speech
// level are the file's own, and it does not share the live tracker's analysis
// (a reference that made the tracker's mistakes would hide them).
//
// Why not the VAD: the WebRTC VAD's speech decision fires on low-level hum and
// breaths before the voice (en-jfk at 5.31 s: a -40 dBFS hum 4 dB over the floor,
// the vowel starts at 5.41 s). Speech here is anchored on voicing instead:
//
//   1. 10 ms frames; level = RMS over a 30 ms window (dBFS); periodicity = the
//      largest normalized cross-correlation of the window with itself shifted by
//      2.5-16 ms (pitch 62.5-400 Hz).
//   2. Floor = 10th percentile of the frame levels, loud = 95th percentile
//      (frames under -85 dBFS, digital silence, are left out).
//   3. Voiced frame: periodicity >= `min_periodicity`, level >= floor +
//      `voiced_over_floor_db` and >= loud - `voiced_under_loud_db`.
//   4. Active frame: level >= floor + `active_over_floor_db` and >= loud -
//      `active_under_loud_db`, or periodic (>= `min_periodicity`) at >= floor +
//      `onset_over_floor_db` (a quiet syllable's vowel). Active runs closer than `min_pause` form a group.
//   5. A group is speech when it holds a voiced nucleus: voiced frames (gaps up
//      to 20 ms bridged) lasting `min_nucleus`. Its start is an onset. So onset
//      consonants joined to the voice (a /k/ burst, an /s/) count, and a breath,
//      click or hum that never voices does not; nor does sound too quiet to be
//      active (a hum a few dB over the floor) start a group.
//   6. The onset moves back over the contiguous frames at >= floor +
//      `onset_over_floor_db` just before the group (at most `max_onset_growth`):
//      a quiet fricative that starts the word (Mandarin "sh" in a quiet room).
#pragma once

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"

namespace lingcast {

struct VoicedOnsetOptions {
  static constexpr int kSampleRate = 16000;  // the only rate accepted
  float min_periodicity = 0.6f;
  float voiced_over_floor_db = 12.0f;
  float voiced_under_loud_db = 40.0f;
  MediaTime min_nucleus = MediaTime::Millis(50);
  float active_over_floor_db = 12.0f;
  float active_under_loud_db = 35.0f;
  float onset_over_floor_db = 6.0f;
  MediaTime max_onset_growth = MediaTime::Millis(200);
  MediaTime min_pause = MediaTime::Millis(150);
};

struct VoicingFrame {
  float level_db = -120;   // 30 ms RMS, dBFS
  float periodicity = 0;   // 0..1
  float pitch_hz = 0;      // lag of the best periodicity, as a frequency
  bool voiced = false;     // step 3
};

struct VoicedSpeech {
  std::vector<VoicingFrame> frames;  // one per 10 ms, frame k centred at k*10+5 ms
  float floor_db = -120;
  float loud_db = -120;
  std::vector<std::pair<MediaTime, MediaTime>> segments;  // speech [start, end), sorted, >= min_pause apart
  std::vector<MediaTime> onsets;                          // segment starts

  bool InSpeech(MediaTime t) const;
};

// InvalidArgument for another rate or channel count.
absl::StatusOr<VoicedSpeech> FindVoicedSpeech(const AudioBuffer& pcm16k, const VoicedOnsetOptions& options = {});

}  // namespace lingcast
