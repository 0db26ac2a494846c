#include "mt/script_follower.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "mt/match_text.h"

namespace lingcast {
namespace {

// Edit distances between every prefix of `heard` and every prefix of `line`, in
// half edits (a wrong, missing or extra word costs 2). With `skippable_start`,
// the line's first words may be missing from what was heard at half the cost
// (1 each, up to that many): the recognizer often loses an utterance's first
// word or two (the VAD opens late, the decoder has no context yet), and the
// rest of the line should still count, if with a little more evidence.
std::vector<std::vector<int>> PrefixDistances(const std::vector<uint32_t>& heard, const std::vector<uint32_t>& line,
                                              int skippable_start) {
  const size_t n = heard.size(), m = line.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (size_t j = 0; j <= m; ++j) {
    const int skipped = std::min(static_cast<int>(j), skippable_start);
    d[0][j] = skipped + 2 * (static_cast<int>(j) - skipped);
  }
  for (size_t i = 1; i <= n; ++i) {
    d[i][0] = 2 * static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      d[i][j] = std::min({d[i - 1][j - 1] + (heard[i - 1] == line[j - 1] ? 0 : 2), d[i - 1][j] + 2, d[i][j - 1] + 2});
    }
  }
  return d;
}

// How many of `line`'s tokens appear in `heard` in the same order (the longest
// common subsequence).
int TokensInOrder(const std::vector<uint32_t>& heard, const std::vector<uint32_t>& line) {
  std::vector<int> previous(line.size() + 1, 0), current(line.size() + 1, 0);
  for (uint32_t token : heard) {
    for (size_t j = 1; j <= line.size(); ++j) {
      current[j] = token == line[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], current[j - 1]);
    }
    std::swap(previous, current);
  }
  return previous[line.size()];
}

// Leftover words after a finished line shorter than this are noise ("uh", "OK").
constexpr size_t kMinLeftoverTokens = 2;

}  // namespace

ScriptFollower::ScriptFollower(std::vector<FollowerLine> lines, FollowerConfig config, MatchSpelling spelling)
    : lines_(std::move(lines)), config_(config), spelling_(std::move(spelling)) {
  for (const FollowerLine& line : lines_) {
    line_tokens_.push_back(Tokens(line.spoken.empty() ? line.source : line.spoken));
  }
}

std::vector<uint32_t> ScriptFollower::Tokens(const std::string& text) {
  std::vector<uint32_t> ids;
  for (std::string& token : spelling_.Tokens(text)) {
    auto [it, inserted] = token_ids_.try_emplace(token, static_cast<uint32_t>(vocabulary_.size()));
    if (inserted) vocabulary_.push_back(std::move(token));
    ids.push_back(it->second);
  }
  return ids;
}

ScriptFollower::Alignment ScriptFollower::AlignPrefix(int line, const std::vector<uint32_t>& heard,
                                                      int offset) const {
  const std::vector<uint32_t>& all = line_tokens_[static_cast<size_t>(line)];
  const std::vector<uint32_t> tokens(all.begin() + std::min<std::ptrdiff_t>(offset, static_cast<std::ptrdiff_t>(all.size())),
                                     all.end());
  Alignment a;
  a.line = line;
  a.offset = offset;
  if (heard.empty() || tokens.empty()) return a;
  // Only a line's own start may be missing; a continuation goes on where it was.
  const int skippable = offset == 0 ? config_.skippable_start_tokens : 0;
  const std::vector<std::vector<int>> d = PrefixDistances(heard, tokens, skippable);
  const size_t n = heard.size(), m = tokens.size();
  // The line's prefix that the words heard match best (the longest on a tie).
  int best = d[n][0];
  size_t best_j = 0;
  for (size_t j = 1; j <= m; ++j) {
    if (d[n][j] <= best) {
      best = d[n][j];
      best_j = j;
    }
  }
  a.quality = std::max(0.0, 1.0 - static_cast<double>(best) / static_cast<double>(2 * n));
  if (skippable > 0) {
    const std::vector<std::vector<int>> whole = PrefixDistances(heard, tokens, 0);
    a.skipped_start = *std::min_element(whole[n].begin(), whole[n].end()) > best;
  }
  a.line_tokens_matched = static_cast<int>(best_j);
  // Where the whole line ends among the words heard, if it has been heard whole.
  int end_best = d[0][m];
  size_t end_i = 0;
  // On a tie the later end: words the line's end matches equally well (a repeated
  // "the") belong to the line, not to whatever follows it.
  for (size_t i = 1; i <= n; ++i) {
    if (d[i][m] <= end_best) {
      end_best = d[i][m];
      end_i = i;
    }
  }
  if (1.0 - static_cast<double>(end_best) / static_cast<double>(2 * m) >= config_.commit_quality) {
    a.heard_end = static_cast<int>(end_i);
  }
  const int next = last_committed_ ? *last_committed_ + 1 : 0;
  a.score = a.quality + (line == next ? config_.next_line_bonus : 0.0);
  return a;
}

bool ScriptFollower::SameLine(int a, int b) const {
  return line_tokens_[static_cast<size_t>(a)] == line_tokens_[static_cast<size_t>(b)];
}

std::optional<ScriptFollower::Alignment> ScriptFollower::PartialCommit(const std::vector<uint32_t>& heard) const {
  const int fewest = std::min(config_.min_tokens, config_.expected_line_min_tokens);
  if (static_cast<int>(heard.size()) < fewest || lines_.empty()) return std::nullopt;
  std::vector<Alignment> alignments;
  for (int i = 0; i < static_cast<int>(lines_.size()); ++i) alignments.push_back(AlignPrefix(i, heard));
  // Stable: of lines that score alike (a line written twice, neither expected
  // next), the earlier one, the same on every platform's sort.
  std::stable_sort(alignments.begin(), alignments.end(),
                   [](const Alignment& a, const Alignment& b) { return a.score > b.score; });
  const Alignment& best = alignments[0];
  // The runner-up among the other lines; the same line written again later in
  // the script (a host's second 谢谢大家) is that line, not a rival of it.
  double second = 0.0;
  for (size_t i = 1; i < alignments.size(); ++i) {
    if (!SameLine(alignments[i].line, best.line)) {
      second = alignments[i].score;
      break;
    }
  }
  const size_t line_length = line_tokens_[static_cast<size_t>(best.line)].size();
  // The expected line heard word for word from its start may commit sooner.
  const int next = last_committed_ ? *last_committed_ + 1 : 0;
  const bool expected_exactly = best.line == next && best.quality >= 1.0 && !best.skipped_start;
  const int needed = expected_exactly ? fewest : config_.min_tokens;
  const bool heard_enough =
      static_cast<int>(heard.size()) >= needed &&
      heard.size() >= std::min(line_length, static_cast<size_t>(needed)) + (best.skipped_start ? 1 : 0);
  if (best.quality < config_.commit_quality || best.score - second < config_.commit_margin || !heard_enough) {
    return std::nullopt;
  }
  return best;
}

FollowDecision ScriptFollower::Commit(const Alignment& best, const std::vector<uint32_t>& heard, MediaTime time,
                                      bool final) {
  const FollowerLine& line = lines_[static_cast<size_t>(best.line)];
  FollowDecision decision;
  decision.line = best.line;
  decision.line_number = line.line_number;
  decision.confidence = best.quality;
  decision.commit_time = time;
  const size_t line_length = line_tokens_[static_cast<size_t>(best.line)].size();
  decision.commit_point =
      final ? 1.0 : std::min(1.0, static_cast<double>(best.line_tokens_matched) / static_cast<double>(line_length));
  decision.at_endpoint = final;
  for (uint32_t id : heard) decision.heard += (decision.heard.empty() ? "" : " ") + vocabulary_[id];
  decision.translation = line.translation;
  last_committed_ = best.line;
  return decision;
}

std::optional<ScriptFollower::Alignment> ScriptFollower::FindFragment(const std::vector<uint32_t>& heard) const {
  // Every line's best stretch for the words heard: an edit distance in which the
  // line's words before and after the stretch are free.
  if (static_cast<int>(heard.size()) < config_.min_fragment_tokens) return std::nullopt;
  const size_t n = heard.size();
  std::optional<Alignment> best;
  double second = 0;
  for (int line = 0; line < static_cast<int>(lines_.size()); ++line) {
    const std::vector<uint32_t>& tokens = line_tokens_[static_cast<size_t>(line)];
    const StretchMatch stretch = BestStretch(heard, tokens);
    const size_t end = stretch.end;
    const double quality = 1.0 - static_cast<double>(stretch.distance) / static_cast<double>(n);
    if (!best || quality > best->quality) {
      if (best) second = std::max(second, best->quality);
      Alignment a;
      a.line = line;
      a.quality = quality;
      a.score = quality;
      a.offset = static_cast<int>(end > n ? end - n : 0);
      a.line_tokens_matched = static_cast<int>(end) - a.offset;
      best = a;
    } else {
      second = std::max(second, quality);
    }
  }
  if (!best || best->quality < config_.fragment_quality || best->quality - second < config_.commit_margin) {
    return std::nullopt;
  }
  return best;
}

std::optional<ScriptFollower::Alignment> ScriptFollower::FindWithWordsLost(const std::vector<uint32_t>& heard) const {
  if (heard.empty() || static_cast<int>(heard.size()) < config_.min_lost_words_tokens) return std::nullopt;
  std::optional<Alignment> best;
  double second = 0;
  for (int line = 0; line < static_cast<int>(lines_.size()); ++line) {
    const std::vector<uint32_t>& tokens = line_tokens_[static_cast<size_t>(line)];
    if (tokens.empty() || TokensInOrder(heard, tokens) != static_cast<int>(heard.size())) continue;
    const double coverage = static_cast<double>(heard.size()) / static_cast<double>(tokens.size());
    if (!best || coverage > best->quality) {
      if (best) second = best->quality;
      Alignment a;
      a.line = line;
      a.quality = coverage;
      a.score = coverage;
      a.line_tokens_matched = static_cast<int>(tokens.size());
      best = a;
    } else {
      second = std::max(second, coverage);
    }
  }
  // Two lines that hold the same words as well: nothing tells them apart.
  if (!best || best->quality < config_.lost_words_coverage || best->quality <= second) return std::nullopt;
  return best;
}

std::vector<FollowDecision> ScriptFollower::Decide(const std::vector<uint32_t>& all_heard, MediaTime time,
                                                   bool final, const AcousticCheck& check) {
  std::vector<FollowDecision> decisions;
  while (true) {
    const size_t from = std::min(static_cast<size_t>(consumed_), all_heard.size());
    const std::vector<uint32_t> heard(all_heard.begin() + static_cast<std::ptrdiff_t>(from), all_heard.end());
    if (!committed_ && consumed_ == 0 && unfinished_) {
      // The first words after a pause: the rest of the line committed last?
      // Patient: a misheard first word should not turn the rest of a line into a
      // new decision, so the words get until twice min_tokens (or the endpoint).
      const int line = unfinished_->line;
      Alignment rest = AlignPrefix(line, heard, unfinished_->tokens);
      const double needed = final ? config_.final_quality : config_.commit_quality;
      if (rest.quality >= needed && (final || static_cast<int>(heard.size()) >= std::min(config_.min_tokens, 2))) {
        unfinished_.reset();
        committed_ = rest;
        continue;
      }
      // Unless the words are clearly the start of a line (the same line said
      // again, or another) and fit it better than the continuation.
      if (!final && static_cast<int>(heard.size()) < 2 * config_.min_tokens) {
        const std::optional<Alignment> fresh = PartialCommit(heard);
        if (!fresh || fresh->quality <= rest.quality) break;
      }
      unfinished_.reset();
    }
    if (committed_) {
      // The line is already on its way; has the host finished it and gone on?
      Alignment again = AlignPrefix(committed_->line, heard, committed_->offset);
      if (again.heard_end > 0 && static_cast<size_t>(again.heard_end) < heard.size()) {
        consumed_ += again.heard_end;
        committed_.reset();
        continue;
      }
      break;
    }
    if (heard.empty()) break;
    if (final && heard.size() < kMinLeftoverTokens && consumed_ > 0) break;

    if (!final) {
      const std::optional<Alignment> best = PartialCommit(heard);
      if (!best) break;
      decisions.push_back(Commit(*best, heard, time, false));
      committed_ = best;
      continue;
    }

    // The endpoint: compare whole lines with what was heard.
    int best_line = -1;
    double best_score = -1, best_similarity = 0, second_score = -1;
    const int next = last_committed_ ? *last_committed_ + 1 : 0;
    std::vector<std::pair<double, int>> ranked;  // (score, line), for the acoustic check
    for (int i = 0; i < static_cast<int>(lines_.size()); ++i) {
      const double similarity = TokenSimilarity(heard, line_tokens_[static_cast<size_t>(i)]);
      const double score = similarity + (i == next ? config_.next_line_bonus : 0.0);
      ranked.emplace_back(score, i);
      if (score > best_score) {
        best_score = score;
        best_line = i;
        best_similarity = similarity;
      }
    }
    // The runner-up; as for a partial, a line written twice is no rival of itself.
    for (const auto& [score, line] : ranked) {
      if (line != best_line && !SameLine(line, best_line)) second_score = std::max(second_score, score);
    }
    std::optional<Alignment> fragment, words_lost;
    if (best_line < 0 || best_similarity < config_.final_quality || best_score <= second_score) {
      fragment = FindFragment(heard);
      if (!fragment) words_lost = FindWithWordsLost(heard);
    }
    if (!fragment && best_line >= 0 && best_similarity >= config_.final_quality && best_score > second_score) {
      Alignment best;
      best.line = best_line;
      best.quality = best_similarity;
      decisions.push_back(Commit(best, heard, time, true));
    } else if (fragment) {
      decisions.push_back(Commit(*fragment, heard, time, true));
      // Part of a line: the next utterance may go on with the rest.
      const size_t length = line_tokens_[static_cast<size_t>(fragment->line)].size();
      decisions.back().commit_point =
          static_cast<double>(fragment->offset + fragment->line_tokens_matched) / static_cast<double>(length);
      committed_ = fragment;
    } else if (words_lost) {
      decisions.push_back(Commit(*words_lost, heard, time, true));
    } else if (std::optional<AcousticMatch> heard_line = consumed_ == 0 ? CheckAcoustically(ranked, heard, check)
                                                                        : std::nullopt) {
      Alignment best;
      best.line = heard_line->line;
      best.quality = TokenSimilarity(heard, line_tokens_[static_cast<size_t>(heard_line->line)]);
      decisions.push_back(Commit(best, heard, time, true));
      decisions.back().acoustic_gap = heard_line->gap;
    } else {
      FollowDecision off;
      off.off_script = true;
      off.confidence = 1.0 - best_similarity;
      off.commit_time = time;
      off.at_endpoint = true;
      for (uint32_t id : heard) off.heard += (off.heard.empty() ? "" : " ") + vocabulary_[id];
      decisions.push_back(std::move(off));
    }
    break;
  }
  return decisions;
}

std::vector<FollowDecision> ScriptFollower::OnPartial(const std::string& text, MediaTime heard_until) {
  return Decide(Tokens(text), heard_until, /*final=*/false);
}

std::vector<int> ScriptFollower::OpeningCandidates() const {
  const int count = static_cast<int>(lines_.size());
  const int expected = last_committed_ ? *last_committed_ + 1 : 0;
  if (config_.opening_lines <= 0 || count < std::max(config_.opening_min_lines, 2) || expected >= count ||
      committed_ || consumed_ > 0 || unfinished_) {
    return {};
  }
  // The expected line, then the others nearest it (before it first on a tie).
  std::vector<int> candidates = {expected};
  for (int distance = 1; static_cast<int>(candidates.size()) < config_.opening_lines; ++distance) {
    if (expected - distance < 0 && expected + distance >= count) break;
    for (const int line : {expected - distance, expected + distance}) {
      if (line >= 0 && line < count && static_cast<int>(candidates.size()) < config_.opening_lines) {
        candidates.push_back(line);
      }
    }
  }
  return candidates;
}

std::vector<FollowDecision> ScriptFollower::OnOpeningScores(const std::vector<int>& candidates,
                                                            const std::vector<double>& scores,
                                                            const std::string& text, MediaTime heard_until) {
  if (candidates.size() < 2 || scores.size() != candidates.size() || candidates != OpeningCandidates()) return {};
  // A line written again later in the script is the same opening, not a rival.
  double others = -std::numeric_limits<double>::infinity();
  for (size_t i = 1; i < scores.size(); ++i) {
    if (!SameLine(candidates[i], candidates[0])) others = std::max(others, scores[i]);
  }
  if (!(scores[0] >= config_.opening_min_logp) || !(scores[0] - others >= config_.opening_margin)) return {};
  const std::vector<uint32_t> heard = Tokens(text);
  Alignment opening = AlignPrefix(candidates[0], heard);
  std::vector<FollowDecision> decisions = {Commit(opening, heard, heard_until, /*final=*/false)};
  decisions.back().confidence = std::exp(scores[0]);  // the mean probability of a token of the line's opening
  decisions.back().opening_logp = scores[0];
  committed_ = opening;
  return decisions;
}

std::optional<AcousticMatch> ScriptFollower::CheckAcoustically(std::vector<std::pair<double, int>> ranked,
                                                               const std::vector<uint32_t>& heard,
                                                               const AcousticCheck& check) const {
  if (!check || config_.acoustic_candidates <= 0 || ranked.empty()) return std::nullopt;
  // The closest lines by their words, and the line expected next whatever its
  // words: a line whose words were mostly lost has nothing else to go on.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<int> candidates;
  const int next = last_committed_ ? *last_committed_ + 1 : 0;
  if (next < static_cast<int>(lines_.size())) candidates.push_back(next);
  for (const auto& [score, line] : ranked) {
    if (static_cast<int>(candidates.size()) >= config_.acoustic_candidates) break;
    if (line != next) candidates.push_back(line);
  }
  std::optional<AcousticMatch> match = check(candidates);
  if (!match || match->line < 0 || match->line >= static_cast<int>(lines_.size()) ||
      match->gap > config_.acoustic_max_gap) {
    return std::nullopt;
  }
  // The audio overrules the words only where they agree in part: words heard
  // clearly and wholly off the line (an ad-lib the recognizer got right) are
  // not outweighed by a line the grammar could stretch over the same sounds.
  const std::vector<uint32_t>& line = line_tokens_[static_cast<size_t>(match->line)];
  const int agreeing = TokensInOrder(heard, line);
  if (agreeing < config_.acoustic_min_agreeing_tokens ||
      agreeing < static_cast<int>(std::ceil(config_.acoustic_min_agreement * static_cast<double>(line.size()) - 1e-9))) {
    return std::nullopt;
  }
  return match;
}

std::vector<FollowDecision> ScriptFollower::Preview(const std::string& text, MediaTime end,
                                                    const AcousticCheck& check) {
  const State before{last_committed_, consumed_, committed_, unfinished_};
  std::vector<FollowDecision> decisions = Decide(Tokens(text), end, /*final=*/true, check);
  last_committed_ = before.last_committed;
  consumed_ = before.consumed;
  committed_ = before.committed;
  unfinished_ = before.unfinished;
  return decisions;
}

std::vector<FollowDecision> ScriptFollower::OnEndpoint(const std::string& text, MediaTime end,
                                                       const AcousticCheck& check) {
  const State before{last_committed_, consumed_, committed_, unfinished_};
  std::vector<FollowDecision> decisions = Decide(Tokens(text), end, /*final=*/true, check);
  // Sure: every decision is a line, matched by words at a partial's bar or by
  // the audio (the check's bar is the one OnFinal applies).
  const bool sure = !decisions.empty() && std::all_of(decisions.begin(), decisions.end(), [&](const FollowDecision& d) {
    return !d.off_script && (d.confidence >= config_.commit_quality || d.acoustic_gap.has_value());
  });
  if (!sure) {
    last_committed_ = before.last_committed;
    consumed_ = before.consumed;
    committed_ = before.committed;
    unfinished_ = before.unfinished;
    return {};
  }
  if (!committed_) {
    // A line matched whole: it is on its way, and the final hypothesis is
    // followed against it as it would be after a partial's commit.
    const FollowDecision& last = decisions.back();
    Alignment line;
    line.line = *last.line;
    line.quality = last.confidence;
    committed_ = line;
  }
  return decisions;
}

std::vector<FollowDecision> ScriptFollower::OnFinal(const std::string& text, MediaTime end, const AcousticCheck& check) {
  const std::vector<uint32_t> heard = Tokens(text);
  std::vector<FollowDecision> decisions = Decide(heard, end, /*final=*/true, check);
  unfinished_.reset();
  if (committed_) {
    // Remember how far the line got, in case the next utterance goes on with it.
    const std::vector<uint32_t> rest(heard.begin() + std::min<std::ptrdiff_t>(consumed_, static_cast<std::ptrdiff_t>(heard.size())),
                                     heard.end());
    const Alignment last = AlignPrefix(committed_->line, rest, committed_->offset);
    const int said = last.offset + last.line_tokens_matched;
    if (static_cast<size_t>(said) + 1 < line_tokens_[static_cast<size_t>(committed_->line)].size()) {
      unfinished_ = Progress{committed_->line, said};
    }
  }
  consumed_ = 0;
  committed_.reset();
  return decisions;
}

}  // namespace lingcast
