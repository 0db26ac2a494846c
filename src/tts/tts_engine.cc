#include "tts/tts_engine.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace lingcast {

TtsEngine::~TtsEngine() = default;
TtsSession::~TtsSession() = default;

absl::Status TtsSession::StreamClause(std::string_view clause, Language language, const ClausePartSink& sink) {
  absl::StatusOr<SynthesisResult> whole = SynthesizeClause(clause, language);
  if (!whole.ok()) return whole.status();
  return sink(*std::move(whole));
}

void AppendClausePart(SynthesisResult& into, SynthesisResult part) {
  if (into.audio.sample_rate == 0) into.audio.sample_rate = part.audio.sample_rate;
  if (into.track.phonemes.empty() && into.track.words.empty()) into.track.language = part.track.language;
  std::vector<PhonemeEvent>& joined = into.track.phonemes;
  for (PhonemeEvent& p : part.track.phonemes) {
    // A pause that starts where the pause before it ends is the same pause (as
    // FinishPhonemeTrack merges them): one engine call ends in silence and the
    // next begins with it.
    if (p.phoneme == "_" && !joined.empty() && joined.back().phoneme == "_" &&
        joined.back().start + joined.back().duration == p.start) {
      joined.back().duration += p.duration;
      continue;
    }
    joined.push_back(std::move(p));
  }
  for (const WordBoundary& w : part.track.words) into.track.words.push_back(w);
  into.audio.samples.insert(into.audio.samples.end(), part.audio.samples.begin(), part.audio.samples.end());
}

void AppendSynthesis(SynthesisResult& into, SynthesisResult piece, int text_offset_shift) {
  if (into.audio.sample_rate == 0) into.audio.sample_rate = piece.audio.sample_rate;
  const MediaTime shift = into.audio.duration();
  for (PhonemeEvent& p : piece.track.phonemes) {
    p.start += shift;
    into.track.phonemes.push_back(std::move(p));
  }
  for (WordBoundary& w : piece.track.words) {
    w.start += shift;
    w.text_offset += text_offset_shift;
    into.track.words.push_back(w);
  }
  into.audio.samples.insert(into.audio.samples.end(), piece.audio.samples.begin(),
                            piece.audio.samples.end());
}

void FinishPhonemeTrack(SynthesisResult& result) { FinishPhonemeTrack(result.track, result.audio.duration()); }

void FinishPhonemeTrack(PhonemeTrack& track, MediaTime end) {
  std::vector<PhonemeEvent>& phonemes = track.phonemes;
  std::stable_sort(phonemes.begin(), phonemes.end(),
                   [](const PhonemeEvent& a, const PhonemeEvent& b) { return a.start < b.start; });
  std::vector<PhonemeEvent> kept;
  for (PhonemeEvent& p : phonemes) {
    if (p.start >= end) continue;
    if (!kept.empty() && kept.back().start == p.start) kept.pop_back();
    if (!kept.empty() && kept.back().phoneme == "_" && p.phoneme == "_") continue;
    kept.push_back(std::move(p));
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    kept[i].duration = (i + 1 < kept.size() ? kept[i + 1].start : end) - kept[i].start;
  }
  phonemes = std::move(kept);
  std::stable_sort(track.words.begin(), track.words.end(),
                   [](const WordBoundary& a, const WordBoundary& b) { return a.start < b.start; });
}

void TrimSilence(SynthesisResult& result, MediaTime max_leading, MediaTime max_trailing, float threshold) {
  std::vector<float>& samples = result.audio.samples;
  const auto loud = [threshold](float s) { return std::fabs(s) >= threshold; };
  const auto first = std::find_if(samples.begin(), samples.end(), loud);
  if (first == samples.end()) return;
  const auto last = std::find_if(samples.rbegin(), samples.rend(), loud);
  const int rate = result.audio.sample_rate;
  const int64_t lead = std::max<int64_t>(0, (first - samples.begin()) - max_leading.ToSamples(rate));
  const int64_t keep_end = std::min<int64_t>(static_cast<int64_t>(samples.size()),
                                             (samples.rend() - last) + max_trailing.ToSamples(rate));
  samples.erase(samples.begin() + keep_end, samples.end());
  samples.erase(samples.begin(), samples.begin() + lead);
  const MediaTime shift = MediaTime::FromSamples(lead, rate);
  for (PhonemeEvent& p : result.track.phonemes) p.start = std::max(MediaTime::Zero(), p.start - shift);
  for (WordBoundary& w : result.track.words) {
    w.start = std::clamp(w.start - shift, MediaTime::Zero(), result.audio.duration());
  }
}

MediaTime WordEnd(const PhonemeTrack& track, size_t index, MediaTime audio_end) {
  MediaTime end = index + 1 < track.words.size() ? track.words[index + 1].start : audio_end;
  const MediaTime start = track.words[index].start;
  // The last phoneme that starts inside the word: a pause there is not the word.
  const auto after = std::upper_bound(track.phonemes.begin(), track.phonemes.end(), end,
                                      [](MediaTime t, const PhonemeEvent& p) { return t <= p.start; });
  for (auto p = after; p != track.phonemes.begin();) {
    --p;
    if (p->start < start) break;
    if (p->phoneme != "_") {
      end = std::min(end, p->start + p->duration);
      break;
    }
    end = p->start;
  }
  return std::max(end, start);
}

void MapWordOffsets(PhonemeTrack& track, const std::vector<int>& to_source, std::string_view source) {
  const int size = static_cast<int>(to_source.size());
  for (WordBoundary& w : track.words) {
    if (w.text_length <= 0 || w.text_offset < 0 || w.text_offset + w.text_length > size) continue;
    const int begin = to_source[w.text_offset];
    int end = to_source[w.text_offset + w.text_length - 1] + 1;
    while (end < static_cast<int>(source.size()) && (static_cast<unsigned char>(source[end]) & 0xC0) == 0x80) ++end;
    w.text_offset = begin;
    w.text_length = std::max(end - begin, 1);
  }
}

absl::Status ValidateVoiceSettings(const VoiceSettings& request) {
  const auto check = [](const char* field, double value, double min, bool min_inclusive) -> absl::Status {
    const bool above_min = min_inclusive ? value >= min : value > min;
    if (std::isfinite(value) && above_min && value <= 4.0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("speech ", field, " ", value, " is out of range (",
                                                   min_inclusive ? "0 <= " : "0 < ", field, " <= 4)"));
  };
  if (absl::Status s = check("rate", request.rate, 0, false); !s.ok()) return s;
  if (absl::Status s = check("pitch", request.pitch, 0, false); !s.ok()) return s;
  return check("volume", request.volume, 0, true);
}

}  // namespace lingcast
