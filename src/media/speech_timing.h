// What the video side of a render needs to know about a stretch of the audio
// timeline: the speech stage (tts/speech_stage.h) sends one per line or pause,
// the render stage (compose/render_stage.h) draws the frames inside it.
#pragma once

#include <optional>
#include <string>

#include "media/expression.h"
#include "media/phoneme_track.h"
#include "media/text_segment.h"

namespace lingcast {

struct SpeechTiming {
  PhonemeTrack phonemes;            // what was said, relative to the packet's pts; empty for pauses
  std::optional<SubtitleCue> cue;   // absolute times; none for pauses
  std::optional<Expression> expression;  // the face while this line is said (`@emotion`); none for pauses
  // `@title` at this stretch's start: the new lower third ("" clears it); none: unchanged.
  std::optional<std::string> title;
};

}  // namespace lingcast
