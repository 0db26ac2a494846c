// Text that travels through the pipeline, and subtitle cues on the output timeline.
#pragma once

#include <string>
#include <vector>

#include "core/media_time.h"
#include "media/language.h"

namespace lingcast {

struct TextSegment {
  std::string text;  // UTF-8
  Language language = Language::kEn;
};

// A word of a cue's spoken line and when it is said (from the TTS word timing):
// for the word-by-word highlight.
struct CueWord {
  int text_offset = 0;  // bytes into the cue's primary.text
  int text_length = 0;  // bytes
  MediaTime start;      // absolute, like the cue's times
  MediaTime end;
};

// One subtitle: the spoken line and its translation, shown from start to end.
struct SubtitleCue {
  MediaTime start;
  MediaTime end;
  TextSegment primary;    // what the anchor speaks
  TextSegment secondary;  // its translation (may be empty)
  std::vector<CueWord> words = {};  // sorted by start; empty: no word timing
};

}  // namespace lingcast
