// What `lingcast render` will say, in order: the script's items turned into
// utterances (text to speak, in which language, with the subtitle lines shown
// while it is spoken) and pauses, according to --speak.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/render_options.h"
#include "core/media_time.h"
#include "media/text_segment.h"
#include "text/script.h"
#include "tts/speech_stage.h"

namespace lingcast {

// The plan's items (Utterance, PlannedPause) are the speech stage's input.

// --speak first: each line's first segment. --speak zh|en: the segment in that
// language (the first segment where a line has none). --speak both: every
// segment of the line in turn, each shown with the line's other segment.
// `@emotion NAME` sets the expression of the utterances after it; `@title`
// changes the title at the item after it (--speak both: its first utterance).
std::vector<PlanItem> PlanRender(const Script& script, SpeakMode speak);

}  // namespace lingcast
