// What `lingcast render` will say, in order: the script's items turned into
// utterances (text to speak, in which language, with the subtitle lines shown
// while it is spoken) and pauses, according to --speak.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/render_options.h"
#include "avatar/avatar_state.h"
#include "core/media_time.h"
#include "media/text_segment.h"
#include "text/script.h"

namespace lingcast {

struct Utterance {
  int line_number = 0;     // in the script, for error messages
  TextSegment spoken;      // what the TTS says; also the first subtitle line
  TextSegment translation; // the second subtitle line (may be empty)
  Expression expression = Expression::kNeutral;  // from the last `@emotion` before the line
  // `@title` just before this item (the last one when several): the lower
  // third from the item's start, "NAME|SUBTITLE"; "" clears it (`@title off`).
  std::optional<std::string> title;
};

struct PlannedPause {
  MediaTime duration;
  std::optional<std::string> title;  // as Utterance::title
};

using PlanItem = std::variant<Utterance, PlannedPause>;

// --speak first: each line's first segment. --speak zh|en: the segment in that
// language (the first segment where a line has none). --speak both: every
// segment of the line in turn, each shown with the line's other segment.
// `@emotion NAME` sets the expression of the utterances after it; `@title`
// changes the title at the item after it (--speak both: its first utterance).
std::vector<PlanItem> PlanRender(const Script& script, SpeakMode speak);

}  // namespace lingcast
