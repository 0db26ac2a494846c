// What travels between the stages of `lingcast live`:
//
//  IngestStage --AudioBuffer--> FollowStage --LiveEvent--> TranslateStage --LiveEvent--> VoiceStage
//        \                                                                              |
//         \--AudioBuffer (host voice, optional)--> PlayoutStage <--VoiceEvent-----------/
//
// One timeline for everything: microseconds since the session started. The
// host's audio sample n is at n / 16000 s on it, and the output's audio sample
// m is at m / output rate on it, so "the avatar starts 0.8 s after the host
// finished" is a difference of two times on that timeline.
#pragma once

#include <optional>
#include <string>

#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/phoneme_track.h"

namespace lingcast {

// One decision of the script follower (a line, or off-script speech), and
// later its translation.
struct HeardLine {
  int64_t id = 0;         // 0-based, in decision order
  int64_t utterance = 0;  // 0-based utterance (VAD segment) it was heard in
  std::optional<int> line_number;  // the script line; nullopt off script
  double confidence = 0;
  std::optional<double> commit_point;  // fraction of the script line heard at the commit
  // Set when the recognizer's score of the line's opening, not its words,
  // committed it: the log-probability per token (ScriptFollower::OnOpeningScores).
  std::optional<double> opening_logp;
  bool at_endpoint = false;            // decided only when the utterance ended
  std::string source_text;  // the script line as written, or what was heard off script
  std::string heard;        // the recognized words the decision rests on
  std::string translation;  // empty: nothing to say (subtitles only)
  std::string engine;       // "script", "tm", "llm", "marian", "whisper", or "" (subtitles only)
  // Off script: the recognizer's own English (Whisper's translate task), said when
  // no translator of the chain answers (engine "whisper").
  std::string speech_translation;
  // Off-script speech translated while it was spoken (TranslateStage): how many
  // provisional captions of its utterance were sent before this line closed it,
  // and whether its final translation does not begin with the stable text shown.
  int provisional_updates = 0;
  bool revised = false;
  MediaTime utterance_start;
  MediaTime decided_at;      // on the timeline: the host audio heard when it was decided
  MediaTime trigger_origin;  // clock reading when that audio arrived (compute latency starts here)
};

struct UtteranceEnded {
  int64_t utterance = 0;
  MediaTime start;
  MediaTime end;  // end of the host's speech
  std::string text;  // the recognizer's final hypothesis
};

// A partial hypothesis of the utterance being heard (FollowStage -> TranslateStage,
// only when provisional captions are on).
struct HeardPartial {
  int64_t utterance = 0;
  std::string text;  // everything heard of the utterance so far
  MediaTime utterance_start;
  MediaTime decided_at;  // on the timeline: the host audio heard when it was known
};

// A provisional translation of off-script speech while the host is still
// saying it (TranslateStage -> VoiceStage -> PlayoutStage). The subtitle area
// shows it while the avatar is silent, until a line of its utterance arrives.
struct ProvisionalCaption {
  int64_t utterance = 0;
  std::string source;       // the words heard so far
  std::string stable;       // will not change while the utterance lasts; only grows
  std::string provisional;  // the rest of the latest translation; may change
  int update = 0;           // 1 for the utterance's first caption
  MediaTime utterance_start;
  MediaTime decided_at;     // of the partial it translates: shown from this moment on
};

// FollowStage -> TranslateStage -> VoiceStage. `watermark`: all host audio before it
// has been heard, and every decision it led to sent before this event.
struct LiveEvent {
  std::optional<HeardLine> line;
  std::optional<UtteranceEnded> ended;
  std::optional<HeardPartial> partial;        // to TranslateStage only
  std::optional<ProvisionalCaption> caption;  // from TranslateStage on
  MediaTime watermark;
};

// A line ready for the avatar to say, or a later part of one. The voice sends a
// line as soon as its first part is synthesized (part 0, with everything but the
// rest of its speech), then the parts that follow it (same line.id, part 1, 2,
// ...: only pcm and phonemes set); `continues` is false on the last one (which
// may carry no audio). A line sent whole is part 0 and does not continue.
struct SpokenLine {
  HeardLine line;
  AudioBuffer pcm;        // at the output rate; empty when skipped or nothing to say
  PhonemeTrack phonemes;  // what is said, relative to the speech's first sample (of the line, in every part)
  int part = 0;
  bool continues = false;  // true: more of this line's speech follows
  double rate = 1.0;      // speaking rate used (the lag policy may raise it)
  bool skipped = false;   // too stale under the lag policy: subtitles only
  MediaTime planned_start;  // where the voice stage expects it to start on the output
  bool follows_gap = true;  // false: start right after the previous line (shorten policy)
  // The playout's: the first frame at which it could have started had the avatar
  // been free (decided, and arrived at the playout).
  std::optional<MediaTime> ready_at;
};

// Joins a later part of a line (same line.id) onto what has arrived of it.
inline void AppendLinePart(SpokenLine& line, const SpokenLine& part) {
  line.pcm.samples.insert(line.pcm.samples.end(), part.pcm.samples.begin(), part.pcm.samples.end());
  line.phonemes.phonemes.insert(line.phonemes.phonemes.end(), part.phonemes.phonemes.begin(),
                                part.phonemes.phonemes.end());
  line.continues = part.continues;
}

struct VoiceEvent {
  std::optional<SpokenLine> spoken;
  std::optional<UtteranceEnded> ended;
  std::optional<ProvisionalCaption> caption;
  MediaTime watermark;
};

}  // namespace lingcast
