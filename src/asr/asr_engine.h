// Speech recognition engines: one model context shared across sessions, one
// streaming state per session.
//
// The split is the one every engine needs, embedded or neural: an AsrModel holds
// what is loaded once (acoustic model, dictionary, language model; for Whisper
// the weights) and is safe to share between threads; an AsrSession holds what one
// speaker's stream changes (decoder search state; for Whisper the audio window
// and KV cache) and is used by one thread at a time.
//
// A session is fed 16 kHz mono float audio utterance by utterance: the caller's
// VAD decides where an utterance ends and calls Finish() there. Partial() may be
// called at any time while audio arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/language.h"

namespace lingcast {

// The only audio format engines take (src/audio converts everything else).
inline constexpr int kAsrSampleRate = 16000;

struct AsrWord {
  std::string text;
  MediaTime start;
  MediaTime end;
  double confidence = 0.0;  // posterior probability of the word, in [0, 1]
};

struct AsrHypothesis {
  bool final = false;
  std::string text;  // the words joined by single spaces; empty when nothing was recognized
  // On the session's input timeline: the position of the utterance's first and
  // one-past-last sample.
  MediaTime start;
  MediaTime end;
  std::vector<AsrWord> words;  // finals only; start/end increasing, inside [start, end]
  Language language = Language::kEn;
  // Bytes at the start of `text` the engine has settled: every later partial of
  // the utterance and its final start with them (the rest is a guess that may
  // still change). 0: the engine promises nothing.
  std::size_t stable_prefix_chars = 0;
  // Finals only: the engine's own English translation of the utterance when it
  // was asked for one (Whisper's translate task, WhisperAsrOptions::also_translate);
  // empty otherwise, and for English speech.
  std::string translation;
};

// How well the last utterance's audio fits a few given word sequences
// (AsrSession::ScoreAlternatives): the audio is decoded again constrained to
// them, and once with nothing but a loop of phones (anything the acoustic
// model can say). The gap between the two is a per-frame log-likelihood ratio:
// near 0 when one of the sequences is what was said, large when none is.
struct AlternativesScore {
  int best = -1;     // index of the sequence that fits best; -1: none could be aligned
  double gap = 0;    // nats per frame the best sequence loses against the phone loop (>= 0 mostly)
  int frames = 0;    // 10 ms frames scored
};

class AsrSession {
 public:
  virtual ~AsrSession() = default;

  // Appends audio to the current utterance (starting one if none is open).
  // `pts` places the buffer on the session's input timeline; it may skip ahead
  // (audio the caller did not feed, such as silence between utterances) but not
  // go back. InvalidArgument for audio other than 16 kHz mono or a pts before
  // position().
  virtual absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) = 0;
  // Appends audio right after what was fed last.
  absl::Status AcceptAudio(const AudioBuffer& pcm16k) { return AcceptAudio(pcm16k, position()); }

  // The best hypothesis of the open utterance so far (final = false, no words),
  // or nullopt when no utterance is open or nothing has been recognized yet.
  virtual std::optional<AsrHypothesis> Partial() = 0;

  // Ends the open utterance and returns its final hypothesis with word times and
  // confidences. An utterance with no speech (or no audio at all) gives a final
  // with empty text and no words. The session is then ready for the next one.
  virtual absl::StatusOr<AsrHypothesis> Finish() = 0;

  // Scores the last finished utterance against `alternatives` (each a
  // sentence of recognizer words, as asr/script_lm.h's AsrWordsOf writes them).
  // Words the recognizer does not know drop their alternative. Unimplemented
  // for engines that cannot; FailedPrecondition when no utterance was finished
  // (or it was too long to keep). Costs two decodes of the utterance.
  virtual absl::StatusOr<AlternativesScore> ScoreAlternatives(const std::vector<std::string>& alternatives) {
    (void)alternatives;
    return absl::UnimplementedError("this recognizer cannot score alternatives");
  }
  // How likely the open utterance's audio so far begins with each of
  // `openings` (texts as the recognizer writes them, e.g. a script line in
  // Traditional and in Simplified characters), by the recognizer's own
  // decoder: the mean log-probability per token of each opening's first few
  // tokens (0 best; an empty opening -infinity), as of the last Partial() that
  // decoded. The script follower asks it to commit the line expected next before
  // the words heard spell it (ScriptFollower::OnOpeningScores). Unimplemented
  // for engines that cannot; FailedPrecondition when no partial has decoded
  // the utterance's opening (none yet, or the recognizer already committed words
  // of it and decodes on from them).
  virtual absl::StatusOr<std::vector<double>> ScoreOpenings(const std::vector<std::string>& openings) {
    (void)openings;
    return absl::UnimplementedError("this recognizer cannot score openings");
  }
  // One past the last sample fed, on the input timeline.
  virtual MediaTime position() const = 0;
};

// Scores an utterance's audio against alternatives as
// AsrSession::ScoreAlternatives does, apart from any session: a follower can
// check an utterance that is still open (on a pause, before its endpoint).
// Used from one thread at a time.
class AlternativesScorer {
 public:
  virtual ~AlternativesScorer() = default;
  // `audio`: one utterance, 16 kHz mono (InvalidArgument otherwise, or longer
  // than a minute). Empty audio scores nothing (best -1).
  virtual absl::StatusOr<AlternativesScore> Score(const AudioBuffer& audio,
                                                  const std::vector<std::string>& alternatives) = 0;
};

class AsrModel {
 public:
  virtual ~AsrModel() = default;

  // A new independent session. Thread-safe.
  virtual absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const = 0;

  // A scorer for the alternatives this model's sessions can be asked about.
  // Unimplemented for engines that cannot score. Thread-safe.
  virtual absl::StatusOr<std::unique_ptr<AlternativesScorer>> NewAlternativesScorer() const {
    return absl::UnimplementedError("this recognizer cannot score alternatives");
  }

  virtual Language language() const = 0;
  virtual std::string name() const = 0;

  // How this model's concurrent sessions shared its decoder's passes (Whisper's
  // step batcher), counted since it was loaded; nullopt for a model that does
  // not batch its sessions. Thread-safe.
  struct StepBatching {
    int64_t steps = 0;         // decoder steps run, alone or joined
    int64_t passes = 0;        // passes over the decoder's weights (a step alone is one)
    int64_t joined_steps = 0;  // steps that shared their pass with another session's
    int64_t largest_pass = 0;  // most steps in one pass
  };
  virtual std::optional<StepBatching> step_batching() const { return std::nullopt; }
};

// Checks that `pcm` is what engines take; InvalidArgument naming what it is otherwise.
absl::Status CheckAsrAudio(const AudioBuffer& pcm);

}  // namespace lingcast
