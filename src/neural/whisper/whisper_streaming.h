// Streaming Whisper: the LocalAgreement-n policy (Machacek et al., 2023) that
// decides which words of a growing utterance are settled.
//
// Whisper hears whole windows, so a live session decodes the open utterance's
// audio again and again as it grows. A word is committed (shown as final, never
// changed again) once the last n hypotheses all begin with it; the rest of the
// newest hypothesis is the unconfirmed tail. The session feeds committed words
// back as the forced start of the next decode, so every hypothesis continues the
// committed text and the policy only compares what follows it.
//
// The policy is pure: words in, words out, no model, no clock, so it is tested
// with scripted hypotheses. SplitWords (which needs a tokenizer) cuts a decoded
// token sequence into the words it compares.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/media_time.h"

namespace lingcast::neural {

class WhisperTranscriber;

struct WhisperStreamingOptions {
  // n of LocalAgreement-n: a word is committed when the last n hypotheses agree
  // on it (1 commits every hypothesis at once; larger n is steadier but later).
  int agreement = 2;
  // A Partial() decodes again only after this much new audio (else it repeats
  // the last partial): the cost cap, one decode per interval of speech.
  MediaTime min_partial_interval = MediaTime::Millis(500);
  // No word is committed from a decode of less than this much of the
  // utterance: its hypothesis is shown whole as the unconfirmed tail and not
  // counted for agreement. Two quick decodes of an utterance's first few
  // hundred ms can agree on hallucinated words (at a 150 ms cadence on the H200
  // they did, and 2 of 6 script lines were then heard off script: committed
  // words are forced into every later decode). With this guard, partials may
  // come often where decodes are cheap (a GPU) and still commit only on audio
  // long enough to mean something.
  MediaTime commit_after = MediaTime::Millis(1000);
  // The cadence adapts to the machine: after a partial decode that took d of
  // wall time, the next one waits for at least d / max_compute_share of new
  // audio, so partials never take more than this share of real time however
  // slow the CPU or long the window (a 10 s window on 2 cores: one partial a
  // second or two instead of one each 500 ms). 0 turns it off (the interval alone).
  double max_compute_share = 0.4;
  // Once the window of undropped audio grows past this, the audio of committed
  // words is dropped up to the end of the last committed segment, and their
  // text becomes the decoder's previous-text prompt. At most the 30 s window.
  MediaTime trim_after = MediaTime::Seconds(20);
};

// InvalidArgument naming the field and value when `options` cannot work with a
// window of `window` audio.
absl::Status CheckStreamingOptions(const WhisperStreamingOptions& options, MediaTime window);

// One word of a transcript and the tokens that spell it. Words are compared by
// `text` alone: timestamps move a little between decodes of growing audio.
struct StreamWord {
  std::string text;                   // as the tokens decode, leading space kept ("" for a bare timestamp)
  std::vector<std::int64_t> tokens;   // its text tokens with the timestamp tokens before and after it
  std::vector<std::int64_t> text_tokens;  // the text tokens alone (below <|endoftext|>)
  std::optional<double> segment_end;  // seconds from the window's start when a segment closes after it
  // Its text tokens' span (seconds from the window's start) from the word
  // timestamps of the decode that spelled it (whisper_word_timestamps.h), when
  // that decode asked for them.
  std::optional<double> start, end;
};

// LocalAgreement-n over hypotheses of what follows the committed words.
class LocalAgreement {
 public:
  // InvalidArgument for agreement < 1.
  static absl::StatusOr<LocalAgreement> Create(int agreement);

  // Takes the newest hypothesis (the words after the committed ones) and returns
  // the words it commits now: the longest prefix on which it and the n - 1
  // hypotheses before it agree, spelled as the newest one spells them.
  std::vector<StreamWord> Add(std::vector<StreamWord> hypothesis);
  // The newest hypothesis's words that are not committed yet.
  const std::vector<StreamWord>& tail() const;
  // Forgets the hypotheses (the window moved: they described other audio).
  void Reset() { recent_.clear(); }
  int agreement() const { return agreement_; }

 private:
  explicit LocalAgreement(int agreement) : agreement_(agreement) {}

  int agreement_;
  std::deque<std::vector<StreamWord>> recent_;  // the last `agreement_` hypotheses, newest last
};

// How many of `agreed` (words LocalAgreement commits now, after `committed`)
// may be committed: those before a phrase of at least 4 Han characters,
// Latin letters or digits said again right after itself. Whisper
// loops across decodes too: each decode continues the committed words, and
// where the audio has not moved on it may say the phrase just committed once
// more; two decodes agree on the copy, it is committed and forced into the next
// decode, which says it again. (On an H100 one utterance came out as
// 甚至出现交易, six times over and then the rest; whether those copies were
// committed that way or came from the final decode was not traced.) The words held back
// wait for the next decodes, and at the latest for the final, which hears the
// whole utterance again. A phrase said twice for real waits the same way; it is
// not lost.
std::size_t CommittableWords(const std::vector<StreamWord>& committed, const std::vector<StreamWord>& agreed);

// Cuts generated tokens into words (other special tokens than timestamps ride
// along in the word they fall in, outside its text): a word starts at a token that begins with a space, at a non-ASCII
// character next to another word (Chinese has no spaces: each character stands
// alone) and after a closing timestamp, but never inside a UTF-8 character.
// `after_text`: the token before `tokens` was text (a timestamp first closes a
// segment). A trailing opening timestamp with no text yet is left out.
std::vector<StreamWord> SplitWords(const std::vector<std::int64_t>& tokens, const WhisperTranscriber& transcriber,
                                   bool after_text);

// The words' tokens, in order; `text_only` leaves out the timestamps.
std::vector<std::int64_t> TokensOf(const std::vector<StreamWord>& words, bool text_only);

}  // namespace lingcast::neural
