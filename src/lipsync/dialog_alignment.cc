#include "lipsync/dialog_alignment.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "asr/letter_to_sound.h"
#include "asr/pocketsphinx_engine.h"
#include "audio/vad.h"
#include "core/status.h"
#include "lipsync/frame_snap.h"
#include "text/language_detect.h"

namespace lingcast {
namespace {

absl::StatusOr<std::string> ReadDialog(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder, not a dialog text file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": dialog file not found"));
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot read the dialog file: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the dialog file (is it a folder?)"));
  return text.str();
}

// Relative duration of a phone (ARPAbet; a stress digit when the dictionary has
// one -- the pocketsphinx en-us dictionary has none).
double PhoneWeight(const std::string& phone) {
  std::string name;
  char stress = 0;
  for (char c : phone) {
    if (c >= '0' && c <= '9') {
      stress = c;
    } else {
      name.push_back(c);
    }
  }
  if (ShapeOfArpabet(name).kind == PhonemeKind::kVowel) {
    const bool diphthong = name == "AW" || name == "AY" || name == "EY" || name == "OW" || name == "OY";
    const double base = stress == '0' ? 1.3 : stress == 0 ? 1.8 : 2.2;
    return diphthong ? base * 1.3 : base;
  }
  if (name == "P" || name == "B" || name == "T" || name == "D" || name == "K" || name == "G") return 0.8;
  if (name == "S" || name == "SH" || name == "Z" || name == "ZH" || name == "F" || name == "V" || name == "TH" ||
      name == "DH" || name == "CH" || name == "JH") {
    return 1.1;
  }
  return 0.9;  // nasals, liquids, glides, HH
}

std::vector<std::string> SplitPhones(const std::string& joined) {
  return absl::StrSplit(joined, ' ', absl::SkipEmpty());
}

std::string NormalizeWord(const std::string& word) {
  std::string out = absl::AsciiStrToLower(word);
  const size_t paren = out.find('(');
  if (paren != std::string::npos && paren > 0) out.resize(paren);
  return out;
}

}  // namespace

const char* LipSyncMethodName(LipSyncMethod method) {
  return method == LipSyncMethod::kAsrAlignment ? "asr-alignment" : "audio-only";
}

absl::StatusOr<PronunciationDictionary> PronunciationDictionary::LoadWords(const std::string& path,
                                                                           const std::vector<std::string>& words) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": pronunciation dictionary not found"));
  std::vector<std::string> wanted = words;
  std::sort(wanted.begin(), wanted.end());
  PronunciationDictionary dict;
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.find('(') < space) continue;  // alternates: first one wins
    const std::string word = line.substr(0, space);
    if (!std::binary_search(wanted.begin(), wanted.end(), word)) continue;
    dict.entries_.emplace_back(word, SplitPhones(line.substr(space + 1)));
  }
  std::sort(dict.entries_.begin(), dict.entries_.end());
  return dict;
}

std::vector<std::string> PronunciationDictionary::Lookup(const std::string& word) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), word,
                             [](const auto& entry, const std::string& w) { return entry.first < w; });
  if (it == entries_.end() || it->first != word) return {};
  return it->second;
}

std::vector<PhonemeEvent> SpreadPhones(const std::vector<std::string>& phones, MediaTime start, MediaTime end) {
  std::vector<PhonemeEvent> events;
  if (phones.empty() || end <= start) return events;
  double total = 0;
  for (const std::string& p : phones) total += PhoneWeight(p);
  const int64_t length = (end - start).micros();
  double cumulative = 0;
  int64_t previous = 0;
  for (const std::string& p : phones) {
    cumulative += PhoneWeight(p);
    const int64_t edge = static_cast<int64_t>(static_cast<double>(length) * cumulative / total);
    if (edge > previous) {
      events.push_back({p, start + MediaTime::Micros(previous), MediaTime::Micros(edge - previous)});
    }
    previous = edge;
  }
  return events;
}

absl::StatusOr<RecordingLipSync> LipSyncRecording(const AudioBuffer& pcm16k, const RecordingLipSyncOptions& options) {
  RecordingLipSync result;
  auto audio_only = [&](std::string why) -> absl::StatusOr<RecordingLipSync> {
    LC_ASSIGN_OR_RETURN(result.track, AudioToVisemes(pcm16k, options.audio));
    if (options.frame_rate > 0) {
      result.track =
          SnapToFrames(result.track, options.frame_rate, MinFramesFor(options.audio.min_hold, options.frame_rate));
    }
    result.method = LipSyncMethod::kAudioOnly;
    result.note = std::move(why);
    result.phones = {};
    return result;
  };
  if (pcm16k.sample_rate != AudioVisemeOptions::kSampleRate || pcm16k.channels != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("lip sync takes 16000 Hz mono audio, got ", pcm16k.sample_rate, " Hz, ", pcm16k.channels, " channels"));
  }
  if (options.dialog_path.empty()) return audio_only("no dialog given");

  LC_ASSIGN_OR_RETURN(const std::string dialog, ReadDialog(options.dialog_path));
  if (!HasLanguageEvidence(dialog)) return audio_only("the dialog has no words");
  if (DetectLanguage(dialog) == Language::kZh) {
    return audio_only("the dialog is Chinese and there is no Mandarin recognizer to align it");
  }

  PocketsphinxOptions asr;
  if (!options.model_dir.empty()) asr.model_dir = options.model_dir;
  asr.script_path = options.dialog_path;
  // A recording is aligned offline: each utterance whose channel moved is
  // decoded again whole, on its own mean, rather than restarted after its first
  // second as live partials need (that estimate includes the leading silence and
  // lost JFK's "fellow").
  asr.early_channel_check = MediaTime::Zero();
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load(asr);
  if (!model.ok()) return audio_only(absl::StrCat("the English recognizer is unavailable (", model.status().message(), ")"));

  // Utterances as the VAD finds them, each recognized on its own timeline position.
  LC_ASSIGN_OR_RETURN(VoiceActivityDetector vad, VoiceActivityDetector::Create());
  LC_ASSIGN_OR_RETURN(std::vector<VadEvent> events, vad.Push(pcm16k));
  for (VadEvent& e : vad.Flush()) events.push_back(std::move(e));
  std::vector<AsrWord> words;
  for (const VadEvent& e : events) {
    if (e.type != VadEvent::Type::kSpeechEnd) continue;
    absl::StatusOr<std::unique_ptr<AsrSession>> session = (*model)->NewSession();
    if (!session.ok()) return audio_only(absl::StrCat("recognizer failed (", session.status().message(), ")"));
    const MediaTime audio_start = e.audio_start;
    if (absl::Status s = (*session)->AcceptAudio(e.audio, audio_start); !s.ok()) {
      return audio_only(absl::StrCat("recognizer failed (", s.message(), ")"));
    }
    absl::StatusOr<AsrHypothesis> final = (*session)->Finish();
    if (!final.ok()) return audio_only(absl::StrCat("recognizer failed (", final.status().message(), ")"));
    for (const AsrWord& w : final->words) words.push_back(w);
  }
  if (words.empty()) return audio_only("the recognizer found no words");

  std::vector<std::string> names;
  for (const AsrWord& w : words) names.push_back(NormalizeWord(w.text));
  absl::StatusOr<PronunciationDictionary> dict = PronunciationDictionary::LoadWords(options.dictionary, names);
  if (!dict.ok()) return audio_only(std::string(dict.status().message()));

  PhonemeTrack phones;
  phones.language = Language::kEn;
  int guessed = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    std::vector<std::string> word_phones = dict->Lookup(names[i]);
    if (word_phones.empty()) {
      ++guessed;
      word_phones = SplitPhones(SpellingToPhones(names[i]));
    }
    for (PhonemeEvent& e : SpreadPhones(word_phones, words[i].start, words[i].end)) phones.phonemes.push_back(std::move(e));
  }
  VisemeOptions visemes = options.visemes;
  visemes.alphabet = PhoneAlphabet::kArpabet;
  visemes.frame_rate = options.frame_rate;
  result.track = PhonemesToVisemes(phones, visemes);
  result.method = LipSyncMethod::kAsrAlignment;
  result.note = absl::StrCat(words.size(), " words aligned with ", (*model)->name(),
                             guessed ? absl::StrCat(" (", guessed, " pronounced from spelling)") : std::string());
  result.phones = std::move(phones);
  return result;
}

}  // namespace lingcast
