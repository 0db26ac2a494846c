// SubRip (.srt) subtitle sidecar for `--subtitles srt`: one cue per spoken
// line, the spoken text first and its translation on the second line.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/text_segment.h"

namespace lingcast {

// "HH:MM:SS,mmm" (milliseconds rounded down; hours may exceed 99).
std::string FormatSrtTimestamp(MediaTime t);

// The whole SRT document (UTF-8, LF line ends, cues numbered from 1 in the
// given order). Line breaks inside a text become spaces, since a blank line
// would end the cue. InvalidArgument, naming the cue, for a negative start,
// an end not after its start, a cue starting before the previous one, or an
// empty primary text.
absl::StatusOr<std::string> FormatSrt(const std::vector<SubtitleCue>& cues);

// FormatSrt, written atomically to `path` (checked with CheckOutputPath).
absl::Status WriteSrtFile(const std::string& path, const std::vector<SubtitleCue>& cues);

}  // namespace lingcast
