// Text that travels through the pipeline, and subtitle cues on the output timeline.
#pragma once

#include <string>

#include "core/media_time.h"
#include "media/language.h"

namespace lingcast {

struct TextSegment {
  std::string text;  // UTF-8
  Language language = Language::kEn;
};

// One subtitle: the spoken line and its translation, shown from start to end.
struct SubtitleCue {
  MediaTime start;
  MediaTime end;
  TextSegment primary;    // what the anchor speaks
  TextSegment secondary;  // its translation (may be empty)
};

}  // namespace lingcast
