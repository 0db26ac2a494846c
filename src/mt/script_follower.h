// ScriptFollower: which line of the prepared script is the host saying, and is it
// sure enough yet to start the line's translation?
//
// Fed the streaming recognizer's hypotheses of one utterance at a time (partials
// while the host speaks, a final at the VAD endpoint), it aligns the words heard so
// far with the start of every script line (an edit distance over match tokens:
// words for English, characters for Chinese) and commits as soon as
//   * enough has been heard (`min_tokens`),
//   * the heard words match the line's beginning well (`commit_quality`), and
//   * no other line matches nearly as well (`commit_margin`): lines that begin
//     alike wait until the words that tell them apart.
// The line after the last one committed gets a small bonus (hosts mostly read in
// order), so skipped, repeated and out-of-order lines are still found, only with
// a little more evidence. At the final hypothesis an uncommitted utterance is
// matched against whole lines (`final_quality`), then against stretches of lines
// (`fragment_quality`: the host started mid-line, or its start was misheard); if
// nothing matches, it is off script (an ad-lib) and goes to the fallback translator.
//
// One utterance may hold more than one line (a host who does not pause): once a
// committed line has been heard to its end, the words after it are followed as
// the start of the next line. One line may also span utterances (a host who
// pauses mid-line): an utterance that goes on with the rest of the line committed
// last is its continuation, not a new line or an ad-lib.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/media_time.h"
#include "media/language.h"
#include "mt/match_text.h"

namespace lingcast {

struct FollowerLine {
  int line_number = 0;       // in the script file, for reports
  std::string source;        // as written in the script
  std::string spoken;        // as the recognizer would write it (numbers as words ...); empty: `source`
  std::string translation;   // empty when the script has none
};

struct FollowerConfig {
  int min_tokens = 3;            // heard before any commit (words, or characters for Chinese)
  double commit_quality = 0.75;  // 1 - edit distance / tokens heard, against the line's beginning
  double commit_margin = 0.15;   // over the second-best line
  double final_quality = 0.6;    // whole-line similarity that still counts as the line at the endpoint
  double next_line_bonus = 0.05; // for the line after the last committed one
  // The line expected next (after the last committed one; the first line at the
  // start) commits on fewer words: this many heard exactly as its beginning,
  // when no other line begins that way. Hosts mostly read in order, so two
  // words that only that line starts with are enough; any other line still
  // needs `min_tokens`. Set it to `min_tokens` to turn it off.
  int expected_line_min_tokens = 2;
  // A line's first words may be missing from the words heard (the recognizer
  // often loses an utterance's first word or two): up to this many, each
  // counted as half an edit, and such a match needs one word more than
  // `min_tokens` before it commits.
  int skippable_start_tokens = 2;
  // At the endpoint, words that match no whole line may still be a stretch of one
  // (a host who starts mid-line, or whose line start was misheard): at least this
  // many words matching a stretch this well.
  int min_fragment_tokens = 4;
  double fragment_quality = 0.8;
  // ... or the line with some of its words lost: every word heard is one of
  // the line's, in the line's order, at least this many words and this
  // fraction of the line ("see you next week" for "see you at the same time
  // next week"), and no other line holds them as well. A recognizer that
  // loses words to a voice it fits poorly (espeak-ng's en-gb above all) does
  // this; an ad-lib seldom does: in the follow bench no ad-lib of 3 words or
  // more had more than 3 of 5 of its words in a line, in order.
  int min_lost_words_tokens = 3;
  double lost_words_coverage = 0.4;
  // Words the recognizer dropped or misheard can leave a scripted line looking
  // off script. Before calling an utterance off script, the audio is checked
  // against this many of the closest lines (OnFinal's AcousticCheck); the best
  // is taken when it costs at most `acoustic_max_gap` nats per frame over a
  // free loop of context-independent phones. Measured gaps of lines that were
  // said: 1.0-1.5 on espeak-ng speech (bench/follow_bench), -0.4 on a real
  // recording (LibriSpeech); lines that were not said mostly cannot be aligned
  // at all (the search beam drops them before the line's end). 0 candidates
  // turns the check off.
  int acoustic_candidates = 3;
  double acoustic_max_gap = 2.0;
  // ... and only when the words heard agree with the line in part: at least
  // this many of its tokens, and this fraction of them, among the words heard
  // in the same order. The audio finds lines whose words were mostly lost or
  // misheard ("to to everyone" for "welcome to the live room everyone": 2 of
  // 6), but an ad-lib heard right shares a word or none with any line, and a
  // grammar of one short line can still be stretched over its sounds (the
  // follow bench's "the weather outside is terrible i almost ..." aligned with
  // "welcome to the live room everyone" at a gap of 1.10: 1 word of 6). The
  // lines the audio found in the bench agreed in 2 of 8 to 5 of 10 words.
  int acoustic_min_agreeing_tokens = 2;
  double acoustic_min_agreement = 0.2;
  // The recognizer's own score of an utterance's opening (AsrSession::
  // ScoreOpenings: Whisper's log-probability of a line's first tokens, which it
  // can give before its greedy text spells them) commits the line expected next
  // when that line scores at least `opening_min_logp` per token and
  // `opening_margin` more than every other line scored. Measured with
  // bench/whisper_line_check on real Mandarin speech against 34 lines: 换一首歌
  // was accepted from 800 ms of its audio, where Whisper base's greedy text first
  // began with it at 1000 ms; no wrong line was accepted in 202 decodes (the
  // closest came 1.05 ahead). The other lines are what make it safe, so the
  // expected line is scored with up to `opening_lines` - 1 of the lines nearest
  // it, and a script of fewer than `opening_min_lines` lines is not scored at all.
  // `opening_lines` 0 turns it off.
  int opening_lines = 34;
  int opening_min_lines = 8;
  double opening_min_logp = -3.0;
  double opening_margin = 1.5;
};

// What the audio of an utterance says about a few candidate lines: the one it
// fits best and how far (nats per 10 ms frame) that is from the best any
// sequence of phones could do. Computed by the recognizer (SpeechFollower).
struct AcousticMatch {
  int line = -1;    // index into the follower's lines
  double gap = 0;
};
using AcousticCheck = std::function<std::optional<AcousticMatch>(const std::vector<int>& candidate_lines)>;

// A decision about (part of) one utterance.
struct FollowDecision {
  std::optional<int> line;        // index into the lines given; nullopt when off script
  int line_number = 0;            // the script's line number (0 when off script)
  bool off_script = false;
  double confidence = 0;          // match quality of the decision, 0-1
  MediaTime commit_time;          // input time of the last audio heard when committed
  std::optional<double> commit_point;  // fraction of the line heard at the commit (null off script)
  bool at_endpoint = false;       // decided only at the final hypothesis
  std::optional<double> acoustic_gap;  // set when the audio, not the words, decided it (AcousticMatch::gap)
  // Set when the recognizer's score of the line's opening, not the words,
  // committed it (ScriptFollower::OnOpeningScores): its log-probability per token.
  std::optional<double> opening_logp;
  std::string heard;              // the recognized words the decision is based on (match tokens, spelled as matched)
  std::string translation;        // the line's translation (empty off script)
  // Off script, at the endpoint: the recognizer's own English for the utterance
  // (Whisper's translate task), the fallback when no translator answers.
  std::string speech_translation;
};

class ScriptFollower {
 public:
  // `spelling`: how lines and what is heard are written before they are matched
  // (mt/match_text.h): with the language followed, digits and numerals, prices
  // and percentages, Traditional and Simplified characters match. The default
  // matches them as written.
  ScriptFollower(std::vector<FollowerLine> lines, FollowerConfig config = {}, MatchSpelling spelling = {});

  // A partial hypothesis of the current utterance: the whole text heard so far
  // and the input time it reaches. Returns the lines committed by it (usually
  // none or one).
  std::vector<FollowDecision> OnPartial(const std::string& text, MediaTime heard_until);

  // The final hypothesis: ends the utterance. Returns what the utterance still
  // needs decided: a line not committed before (at_endpoint), or an off-script
  // decision for words that matched no line. Empty when every word was already
  // part of a committed line.
  // `check`, when given, is asked about the closest lines before words that
  // match no line are called off script.
  std::vector<FollowDecision> OnFinal(const std::string& text, MediaTime end, const AcousticCheck& check = nullptr);

  // The utterance's audio has ended but its final hypothesis is still being
  // computed (a recognizer's second pass, then maybe the acoustic check): `text`
  // is the streaming hypothesis of the whole utterance. Commits the lines those
  // words already decide at the bar a partial must clear (`commit_quality`), so
  // a line decided at the endpoint need not wait for the final pass. Never calls
  // anything off script (the final pass or the acoustic check may still find a
  // line): when the words decide nothing for sure, nothing changes and OnFinal
  // decides as if this had not been called. OnFinal must follow, as always.
  // `check`, when given, may answer for words that match no line from what is
  // already known (a check run on a pause, see Preview); a line it finds is
  // committed here too. It should answer nullopt rather than do slow work.
  std::vector<FollowDecision> OnEndpoint(const std::string& text, MediaTime end, const AcousticCheck& check = nullptr);

  // What OnFinal would decide for `text` now, without changing anything: the
  // utterance's speech has paused and may be over. The point is the `check` it
  // asks (only when the words match no line): run early, during the VAD's
  // hangover, its answer can be given to OnEndpoint and OnFinal.
  std::vector<FollowDecision> Preview(const std::string& text, MediaTime end, const AcousticCheck& check);

  // The lines whose openings the recognizer should score now, the line
  // expected next first; none when the utterance has already committed a line or
  // may go on with the last one, when the script is shorter than
  // `opening_min_lines`, or when opening scores are off.
  std::vector<int> OpeningCandidates() const;
  // The recognizer's scores of those lines (one per candidate, in their order:
  // the best of each line's spellings) for the partial last given to OnPartial
  // (`text`, `heard_until`). Commits the expected line (candidates[0]) when it
  // clears `opening_min_logp` and leads every other candidate by
  // `opening_margin`; otherwise changes nothing.
  std::vector<FollowDecision> OnOpeningScores(const std::vector<int>& candidates, const std::vector<double>& scores,
                                              const std::string& text, MediaTime heard_until);

  const std::vector<FollowerLine>& lines() const { return lines_; }
  std::optional<int> last_line() const { return last_committed_; }

 private:
  struct Alignment {
    int line = -1;
    double quality = 0;      // over the tokens heard
    double score = 0;        // quality + order bonus
    int offset = 0;               // line tokens said in earlier utterances (a continuation)
    int line_tokens_matched = 0;  // the end of the matched part, from `offset`
    int heard_end = -1;      // where in the heard tokens the whole line ends (-1: not reached)
    bool skipped_start = false;   // the best match leaves out the line's first words
  };
  struct Progress {
    int line = -1;
    int tokens = 0;  // how much of the line has been heard
  };

  std::vector<FollowDecision> Decide(const std::vector<uint32_t>& heard, MediaTime time, bool final,
                                     const AcousticCheck& check = nullptr);
  Alignment AlignPrefix(int line, const std::vector<uint32_t>& heard, int offset = 0) const;
  // The line that partial words `heard` (from the utterance's start or the end
  // of the line before) commit to, if they clear the bar: enough words, quality
  // and margin over every other line.
  std::optional<Alignment> PartialCommit(const std::vector<uint32_t>& heard) const;
  std::optional<Alignment> FindFragment(const std::vector<uint32_t>& heard) const;
  // Lines a and b are written alike (as matched): a line the script says twice.
  bool SameLine(int a, int b) const;
  std::optional<Alignment> FindWithWordsLost(const std::vector<uint32_t>& heard) const;
  std::optional<AcousticMatch> CheckAcoustically(std::vector<std::pair<double, int>> ranked,
                                                 const std::vector<uint32_t>& heard,
                                                 const AcousticCheck& check) const;
  std::vector<uint32_t> Tokens(const std::string& text);
  FollowDecision Commit(const Alignment& best, const std::vector<uint32_t>& heard, MediaTime time, bool final);

  std::vector<FollowerLine> lines_;
  FollowerConfig config_;
  MatchSpelling spelling_;
  std::vector<std::vector<uint32_t>> line_tokens_;
  std::vector<std::string> vocabulary_;  // token id -> token (for `heard` text)
  std::unordered_map<std::string, uint32_t> token_ids_;
  std::optional<int> last_committed_;

  // The utterance in progress.
  int consumed_ = 0;                    // heard tokens already part of committed lines
  std::optional<Alignment> committed_;  // the line committed for heard[consumed_..], if any
  std::optional<Progress> unfinished_;  // the last line committed, when its end was not heard
  // OnEndpoint's decisions are taken back when one of them is not sure enough.
  struct State {
    std::optional<int> last_committed;
    int consumed = 0;
    std::optional<Alignment> committed;
    std::optional<Progress> unfinished;
  };
};

}  // namespace lingcast
