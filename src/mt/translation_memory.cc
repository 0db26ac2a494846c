#include "mt/translation_memory.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mt/match_text.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr uint32_t kNoToken = 0xFFFFFFFFu;

std::vector<uint64_t> Grams(const std::vector<uint32_t>& tokens) {
  std::vector<uint64_t> grams;
  if (tokens.size() == 1) {
    grams.push_back((static_cast<uint64_t>(tokens[0]) << 32) | kNoToken);
  }
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    grams.push_back((static_cast<uint64_t>(tokens[i]) << 32) | tokens[i + 1]);
  }
  std::sort(grams.begin(), grams.end());
  grams.erase(std::unique(grams.begin(), grams.end()), grams.end());
  return grams;
}

std::string Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r");
  return std::string(s.substr(begin, end - begin + 1));
}

// Splits one CSV record: fields separated by commas, a field may be "quoted" with
// "" for a quote inside. False on an unterminated quote.
bool SplitCsv(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"' && Trim(field).empty()) {
      quoted = was_quoted = true;
      field.clear();
    } else if (c == ',') {
      fields.push_back(was_quoted ? field : Trim(field));
      field.clear();
      was_quoted = false;
    } else {
      field.push_back(c);
    }
  }
  if (quoted) return false;
  fields.push_back(was_quoted ? field : Trim(field));
  return true;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

TranslationMemory::TranslationMemory(std::shared_ptr<const ZhScriptConverter> to_simplified)
    : zh_spelling_(Language::kZh, to_simplified), en_spelling_(Language::kEn, std::move(to_simplified)) {}

int TranslationMemory::DirectionIndex(Language from, Language to) {
  if (from == Language::kZh) return to == Language::kEn ? 0 : 2;
  return to == Language::kZh ? 1 : 3;
}

std::vector<uint32_t> TranslationMemory::InternTokens(const std::vector<std::string>& tokens) {
  std::vector<uint32_t> ids;
  ids.reserve(tokens.size());
  for (const std::string& token : tokens) {
    auto [it, inserted] = token_ids_.try_emplace(token, static_cast<uint32_t>(token_ids_.size()));
    ids.push_back(it->second);
  }
  return ids;
}

std::vector<uint32_t> TranslationMemory::LookupTokens(const std::vector<std::string>& tokens) const {
  // A token the memory has never seen matches nothing: give each its own id above
  // every known one (kNoToken stays free for the single-token gram).
  std::vector<uint32_t> ids;
  ids.reserve(tokens.size());
  uint32_t unseen = static_cast<uint32_t>(token_ids_.size());
  absl::flat_hash_map<std::string, uint32_t> unseen_ids;
  for (const std::string& token : tokens) {
    auto it = token_ids_.find(token);
    if (it != token_ids_.end()) {
      ids.push_back(it->second);
    } else {
      auto [u, inserted] = unseen_ids.try_emplace(token, unseen);
      if (inserted) ++unseen;
      ids.push_back(u->second);
    }
  }
  return ids;
}

TranslationMemory::AddResult TranslationMemory::AddLocked(TmEntry entry, bool replace,
                                                         std::string* existing_origin) {
  Direction& direction = directions_[DirectionIndex(entry.from, entry.to)];
  const std::vector<std::string> tokens = spelling(entry.from).TokensWithWholeNumbers(entry.source);
  std::string key;
  for (const std::string& token : tokens) absl::StrAppend(&key, key.empty() ? "" : " ", token);
  auto existing = direction.by_key.find(key);
  if (existing != direction.by_key.end()) {
    TmEntry& old = direction.entries[existing->second];
    if (existing_origin != nullptr) *existing_origin = old.origin;
    if (replace) {
      old = std::move(entry);
      return AddResult::kAdded;
    }
    const MatchSpelling& target = spelling(entry.to);
    return target.Key(old.target) == target.Key(entry.target) ? AddResult::kDuplicate : AddResult::kConflict;
  }
  const uint32_t index = static_cast<uint32_t>(direction.entries.size());
  const std::vector<uint32_t> ids = InternTokens(tokens);
  const std::vector<uint64_t> grams = Grams(ids);
  direction.tokens.insert(direction.tokens.end(), ids.begin(), ids.end());
  direction.token_start.push_back(static_cast<uint32_t>(direction.tokens.size()));
  direction.unique_grams.push_back(static_cast<int>(grams.size()));
  for (uint64_t gram : grams) direction.by_gram[gram].push_back(index);
  direction.by_key.emplace(std::move(key), index);
  direction.entries.push_back(std::move(entry));
  return AddResult::kAdded;
}

TranslationMemory::AddResult TranslationMemory::Add(TmEntry entry, std::string* existing_origin) {
  WriterMutexLock lock(&mu_);
  return AddLocked(std::move(entry), /*replace=*/false, existing_origin);
}

void TranslationMemory::Put(TmEntry entry) {
  WriterMutexLock lock(&mu_);
  AddLocked(std::move(entry), /*replace=*/true, nullptr);
}

namespace {

// Adds `entry` to `memory` and counts the result; a conflict's warning names both
// places. Only the source and origin are kept aside (not a copy of the entry),
// since a memory loads 100,000 of them.
void AddCounted(TranslationMemory& memory, TmEntry entry, TmLoadReport& report) {
  std::string kept_origin;
  std::string source = entry.source;
  std::string origin = entry.origin;
  switch (memory.Add(std::move(entry), &kept_origin)) {
    case TranslationMemory::AddResult::kAdded:
      ++report.added;
      break;
    case TranslationMemory::AddResult::kDuplicate:
      ++report.duplicates;
      break;
    case TranslationMemory::AddResult::kConflict:
      ++report.conflicts;
      report.warnings.push_back(absl::StrCat(origin, ": \"", source, "\" is already translated differently at ",
                                             kept_origin, "; keeping the first translation"));
      break;
  }
}

}  // namespace

void TranslationMemory::AddScript(const Script& script, TmLoadReport& report) {
  for (const ScriptItem& item : script.items) {
    const ScriptLine* line = std::get_if<ScriptLine>(&item);
    if (line == nullptr || line->segments.empty()) continue;
    const TextSegment& spoken = line->segments.front();
    bool translated = false;
    for (size_t i = 1; i < line->segments.size(); ++i) {
      const TextSegment& other = line->segments[i];
      if (other.language == spoken.language || MatchTokens(other.text).empty()) continue;
      translated = true;
      const std::string origin = absl::StrCat(script.filename, ":", line->line_number);
      for (const auto& [from, to] : {std::pair{&spoken, &other}, std::pair{&other, &spoken}}) {
        AddCounted(*this, TmEntry{from->text, to->text, from->language, to->language, origin}, report);
      }
    }
    if (!translated) {
      ++report.untranslated;
      report.warnings.push_back(absl::StrCat(script.filename, ":", line->line_number,
                                             ": no translation on this line; it is not in the memory"));
    }
  }
}

absl::Status TranslationMemory::LoadFile(const std::string& path, Language from, Language to,
                                         TmLoadReport& report) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open translation memory ", path));
  const bool csv = EndsWith(path, ".csv") || EndsWith(path, ".CSV");
  std::vector<TmEntry> pairs;
  std::string line;
  std::vector<std::string> fields;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = absl::StrCat(path, ":", number);
    const int64_t bad = FindInvalidUtf8(line);
    if (bad >= 0) return absl::InvalidArgumentError(absl::StrCat(where, ": invalid UTF-8 at byte ", bad));
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // byte-order mark
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    if (csv) {
      if (!SplitCsv(line, fields)) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": unterminated quote"));
      }
    } else {
      fields.clear();
      size_t start = 0;
      for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
        fields.push_back(Trim(std::string_view(line).substr(start, tab - start)));
      }
      fields.push_back(Trim(std::string_view(line).substr(start)));
    }
    const char* layout = csv ? "SOURCE,TARGET" : "SOURCE<TAB>TARGET";
    if (fields.size() < 2 || fields[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": missing translation (expected ", layout, ")"));
    }
    if (fields.size() > 2) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", fields.size(), " fields, expected 2 (", layout,
                                                     ")"));
    }
    if (fields[0].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": empty source (expected ", layout, ")"));
    }
    pairs.push_back(TmEntry{fields[0], fields[1], from, to, where});
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  for (TmEntry& entry : pairs) {
    AddCounted(*this, std::move(entry), report);
  }
  return absl::OkStatus();
}

void TranslationMemory::FuzzySearch(const Direction& direction, const std::vector<uint32_t>& query,
                                    uint32_t exact_index, double min_score, size_t max_results,
                                    std::vector<TmMatch>& matches) const {
  // The q-gram count filter: each edit destroys at most two token pairs of
  // either line (an insertion only one), so a line at distance d from the
  // query shares at least max(pairs of the query, pairs of the line) - 2d
  // distinct pairs with it. A match scoring s is at most query/s tokens long
  // and d <= (1 - s) * that, so the score needed (min_score, or what beats the
  // worst result kept) bounds how few pairs a candidate may share; it rises as
  // results come in.
  const std::vector<uint64_t> query_grams = Grams(query);
  const int unique_grams = static_cast<int>(query_grams.size());
  const int query_length = static_cast<int>(query.size());
  const double n = static_cast<double>(query.size());
  std::vector<const std::vector<uint32_t>*> postings;
  for (uint64_t gram : query_grams) {
    auto it = direction.by_gram.find(gram);
    if (it != direction.by_gram.end()) postings.push_back(&it->second);
  }
  if (postings.empty()) return;
  std::sort(postings.begin(), postings.end(), [](const auto* a, const auto* b) { return a->size() < b->size(); });

  auto needed = [&] {
    // The score a new match must reach: min_score, or beat the worst kept result.
    if (matches.size() < max_results) return min_score;
    double worst = 1.0;
    for (const TmMatch& m : matches) worst = std::min(worst, m.score);
    return std::max(min_score, worst + 1e-12);
  };
  double need = needed();
  // The fewest edits between the query and a line of `length` tokens with
  // `line_pairs` distinct pairs, of which it shares at most `shared` with the
  // query. Past the length difference, a line longer than the query took at
  // least (length - query) insertions, which destroy one query pair each, not
  // two (and the other way round for a shorter line).
  auto fewest_edits = [&](int length, int line_pairs, int shared) {
    int lost = std::max(unique_grams, line_pairs) - shared;
    if (query_length >= 2 && length >= 2) {
      if (length > query_length) lost = std::max(lost, unique_grams + (length - query_length) - shared);
      if (length < query_length) lost = std::max(lost, line_pairs + (query_length - length) - shared);
    }
    return std::max(std::abs(length - query_length), (lost + 1) / 2);
  };
  const QueryEditDistance distance_to(query);
  std::vector<uint32_t> verified;  // entries already considered (the seed's)
  // Verifies one candidate that shares at most `shared_at_most` pairs: bounds
  // first (length, pairs), then the edit distance, stopped at the bound.
  auto consider = [&](uint32_t index, int shared_at_most) {
    if (index == exact_index) return;
    const uint32_t start = direction.token_start[index];
    const int m = static_cast<int>(direction.token_start[index + 1] - start);
    const double longest = std::max(n, static_cast<double>(m));
    const int lower_distance = fewest_edits(m, direction.unique_grams[index], shared_at_most);
    if (1.0 - static_cast<double>(lower_distance) / longest < need) return;
    const int max_distance = static_cast<int>((1.0 - need) * longest + 1e-9);
    const int distance = distance_to.Distance(direction.tokens.data() + start, m, max_distance);
    if (distance > max_distance) return;
    const double score = 1.0 - static_cast<double>(distance) / longest;
    if (score < need) return;
    matches.push_back(TmMatch{direction.entries[index], score, false});
    if (matches.size() > max_results) {
      auto worst = std::min_element(matches.begin(), matches.end(),
                                    [](const TmMatch& a, const TmMatch& b) { return a.score < b.score; });
      matches.erase(worst);
    }
    need = needed();
  };

  // A dense counter per entry: far cheaper than a hash map at 100,000 entries.
  std::vector<uint16_t> shared(direction.entries.size(), 0);
  std::vector<uint32_t> touched;
  auto count = [&](const std::vector<uint32_t>& entries) {
    for (uint32_t index : entries) {
      if (shared[index]++ == 0) touched.push_back(index);
    }
  };

  // The seed: the rarest pairs alone (a line number, a product name) usually
  // point at the best match. Verifying the few entries that share most of them
  // raises the score needed before the common pairs are counted, and with it
  // every bound below.
  // When the edits destroyed the rarest pairs, the first round's leaders are
  // lines that merely share what is left; a second round counts a few more
  // lists (~20 us) rather than leave the score needed at the threshold, which
  // would have the main pass count ~200,000 postings.
  const size_t seed_candidates = 8 + 2 * max_results;
  size_t seed_lists = 0, seed_postings = 0;
  for (const size_t budget : {size_t{4096}, size_t{16384}}) {
    if (budget > 4096 && matches.size() >= max_results) break;
    while (seed_lists < postings.size() &&
           (seed_lists == 0 || seed_postings + postings[seed_lists]->size() <= budget)) {
      seed_postings += postings[seed_lists]->size();
      count(*postings[seed_lists++]);
    }
    if (seed_lists >= postings.size()) break;  // everything is counted: the main pass decides
    std::vector<uint32_t> seed;
    for (uint32_t index : touched) {
      if (!std::binary_search(verified.begin(), verified.end(), index)) seed.push_back(index);
    }
    const size_t keep = std::min(seed.size(), seed_candidates);
    std::partial_sort(seed.begin(), seed.begin() + static_cast<std::ptrdiff_t>(keep), seed.end(),
                      [&](uint32_t a, uint32_t b) { return shared[a] != shared[b] ? shared[a] > shared[b] : a < b; });
    seed.resize(keep);
    const int uncounted = static_cast<int>(postings.size() - seed_lists);
    for (uint32_t index : seed) consider(index, shared[index] + uncounted);
    verified.insert(verified.end(), seed.begin(), seed.end());
    std::sort(verified.begin(), verified.end());
  }

  // The filter proper, at the score now needed: the longest line that can
  // still match, the most edits it may have, and so the fewest pairs it must
  // share. The most common pairs beyond (that number - 1) need not be
  // counted: every match still shares one of the pairs counted.
  auto longest_match = [&] { return std::floor(n / std::max(need, 1e-3) + 1e-9); };
  const int max_edits = static_cast<int>((1.0 - need) * longest_match() + 1e-9);
  const int required = unique_grams - 2 * max_edits;
  size_t counted = postings.size();
  while (required >= 2 && counted > seed_lists && static_cast<int>(postings.size() - counted) < required - 1) {
    --counted;
  }
  for (size_t i = seed_lists; i < counted; ++i) count(*postings[i]);
  const int skipped = static_cast<int>(postings.size() - counted);

  // Most shared pairs first (a counting sort: counts are small). A candidate
  // sharing c counted pairs shares at most c + skipped, so it is at least
  // (pairs - c - skipped) / 2 edits away: once even the longest line that can
  // still match cannot reach the score needed from a bucket, no later one can.
  // Loose counts let thousands of lines through when several words were
  // misheard; each then costs a few word operations per token (QueryEditDistance).
  const int fewest = std::max(1, required - skipped);
  std::vector<std::vector<uint32_t>> by_shared(static_cast<size_t>(unique_grams) + 1);
  for (uint32_t index : touched) {
    if (shared[index] < fewest) continue;
    by_shared[std::min<size_t>(shared[index], static_cast<size_t>(unique_grams))].push_back(index);
  }
  // The best score a line sharing at most `pairs` pairs can have, over every
  // length: fewest_edits with the line's own pair count unknown (0 keeps it a
  // bound). Past the query's length it falls (each extra token costs an edit
  // and a pair), so lengths up to 64 beyond it are tried and the rest bounded
  // by the plain pair count over the longest possible match.
  auto best_possible = [&](int pairs) {
    double best = 1.0 - static_cast<double>(fewest_edits(query_length, 0, pairs)) / std::max(n, 1.0);
    const int longest = static_cast<int>(longest_match());
    for (int length = query_length + 1; length <= std::min(longest, query_length + 64); ++length) {
      best = std::max(best, 1.0 - static_cast<double>(fewest_edits(length, 0, pairs)) / length);
    }
    if (longest > query_length + 64) {
      const int lower_distance = std::max(0, (unique_grams - pairs + 1) / 2);
      best = std::max(best, 1.0 - static_cast<double>(lower_distance) / longest);
    }
    return best;
  };
  for (int shared_pairs = unique_grams; shared_pairs >= fewest; --shared_pairs) {
    if (best_possible(shared_pairs + skipped) < need) break;
    for (uint32_t index : by_shared[static_cast<size_t>(shared_pairs)]) {
      if (std::binary_search(verified.begin(), verified.end(), index)) continue;
      consider(index, shared_pairs + skipped);
    }
  }
}

std::vector<TmMatch> TranslationMemory::Search(std::string_view source, Language from, Language to,
                                               double min_score, size_t max_results) const {
  std::vector<TmMatch> matches;
  if (max_results == 0) return matches;
  const std::vector<std::string> tokens = spelling(from).TokensWithWholeNumbers(source);  // (no lock needed)
  if (tokens.empty()) return matches;
  ReaderMutexLock lock(&mu_);
  const Direction& direction = directions_[DirectionIndex(from, to)];
  std::string key;
  for (const std::string& token : tokens) absl::StrAppend(&key, key.empty() ? "" : " ", token);
  uint32_t exact_index = kNoToken;
  if (auto it = direction.by_key.find(key); it != direction.by_key.end()) {
    exact_index = it->second;
    matches.push_back(TmMatch{direction.entries[it->second], 1.0, true});
    if (max_results == 1) return matches;
  }

  const std::vector<uint32_t> query = LookupTokens(tokens);
  FuzzySearch(direction, query, exact_index, min_score, max_results, matches);
  std::stable_sort(matches.begin(), matches.end(),
                   [](const TmMatch& a, const TmMatch& b) { return a.score > b.score; });
  if (matches.size() > max_results) matches.resize(max_results);
  return matches;
}

std::optional<TmMatch> TranslationMemory::Lookup(std::string_view source, Language from, Language to,
                                                 double min_score) const {
  std::vector<TmMatch> best = Search(source, from, to, min_score, 1);
  if (best.empty()) return std::nullopt;
  return std::move(best.front());
}

size_t TranslationMemory::size() const {
  ReaderMutexLock lock(&mu_);
  size_t total = 0;
  for (const Direction& direction : directions_) total += direction.entries.size();
  return total;
}

}  // namespace lingcast
