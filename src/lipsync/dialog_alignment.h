// Mouth cues for a recording, with or without its transcript (Rhubarb's
// --dialog): the best method available for what is given.
//
//   * English dialog and the pocketsphinx model installed: recognize the audio
//     in script mode (the dialog is the script, so its sentences win), take each
//     recognized word's start and end, look its phones up in CMUdict (guess them
//     from the spelling when it is not there), spread them over the word with a
//     duration model (vowels longer than consonants, stressed longer than
//     unstressed, stops short), and drive PhonemesToVisemes with that ARPAbet
//     track;
//   * anything else (no dialog, Mandarin dialog, no English model, nothing
//     recognized): the audio-only tracker (audio_visemes.h), with the reason.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/share_paths.h"
#include "lipsync/audio_visemes.h"
#include "lipsync/phonemes_to_visemes.h"
#include "media/audio_buffer.h"
#include "media/phoneme_track.h"
#include "media/viseme.h"

namespace lingcast {

inline constexpr char kCmuDictPath[] = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict";

enum class LipSyncMethod { kAsrAlignment, kAudioOnly };
const char* LipSyncMethodName(LipSyncMethod method);  // "asr-alignment", "audio-only"

struct RecordingLipSyncOptions {
  std::string dialog_path;  // empty: no transcript
  std::string model_dir;    // pocketsphinx en-us folder; empty = the Debian package's
  std::string dictionary = SharePath(kCmuDictPath);  // a bundle's copy first
  VisemeOptions visemes;       // for the aligned phone track (alphabet set to ARPAbet)
  AudioVisemeOptions audio;    // for the audio-only tracker
  double frame_rate = 0;       // snap cues to frames (frame_snap.h); 0: no snapping
};

struct RecordingLipSync {
  VisemeTrack track;
  LipSyncMethod method = LipSyncMethod::kAudioOnly;
  std::string note;            // why audio-only was used, or what was aligned
  PhonemeTrack phones;         // the aligned ARPAbet phones (alignment only)
};

// `pcm16k` is 16 kHz mono. Errors only for what the caller must fix: an
// unreadable dialog file (NotFound / PermissionDenied / InvalidArgument naming
// it) or audio at another rate. A missing model or a recognizer failure is not
// an error: it falls back to audio-only and says so in `note`.
absl::StatusOr<RecordingLipSync> LipSyncRecording(const AudioBuffer& pcm16k, const RecordingLipSyncOptions& options);

// The ARPAbet phones of one word, stress digits kept, from a CMUdict-format file
// ("word PH1 PH2 ...", alternates "word(2)"). Only the words asked for are kept.
class PronunciationDictionary {
 public:
  static absl::StatusOr<PronunciationDictionary> LoadWords(const std::string& path,
                                                           const std::vector<std::string>& words);
  // The first pronunciation of `word` (lower case), or nothing.
  std::vector<std::string> Lookup(const std::string& word) const;

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> entries_;  // sorted by word
};

// Splits [start, end) among `phones` by a duration model; returns the events.
std::vector<PhonemeEvent> SpreadPhones(const std::vector<std::string>& phones, MediaTime start, MediaTime end);

}  // namespace lingcast
