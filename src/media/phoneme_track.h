// PhonemeTrack: what the TTS said and when, relative to the start of its audio.
// Drives visemes (mouth shapes) and word-level subtitle timing.
#pragma once

#include <string>
#include <vector>

#include "core/media_time.h"
#include "media/language.h"

namespace lingcast {

struct PhonemeEvent {
  std::string phoneme;  // IPA, one phoneme (e.g. "a", "tʃ", "ŋ"); "_" for a pause
  MediaTime start;      // from the start of the utterance's audio
  MediaTime duration;
};

struct WordBoundary {
  MediaTime start;
  int text_offset = 0;  // byte offset into the synthesized text
  int text_length = 0;  // bytes
};

struct PhonemeTrack {
  Language language = Language::kEn;
  std::vector<PhonemeEvent> phonemes;  // sorted by start, non-overlapping
  std::vector<WordBoundary> words;     // sorted by start
};

}  // namespace lingcast
