#include "mt/translation_memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mt/match_text.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

// Fuzzy candidates whose edit distance is computed, most shared token pairs first.
constexpr size_t kMaxFuzzyCandidates = 64;
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
  std::unordered_map<std::string, uint32_t> unseen_ids;
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
  const std::vector<std::string> tokens = MatchTokens(entry.source);
  std::string key;
  for (const std::string& token : tokens) absl::StrAppend(&key, key.empty() ? "" : " ", token);
  auto existing = direction.by_key.find(key);
  if (existing != direction.by_key.end()) {
    Entry& old = direction.entries[existing->second];
    if (existing_origin != nullptr) *existing_origin = old.pair.origin;
    if (replace) {
      old.pair = std::move(entry);
      return AddResult::kAdded;
    }
    return MatchKey(old.pair.target) == MatchKey(entry.target) ? AddResult::kDuplicate : AddResult::kConflict;
  }
  const uint32_t index = static_cast<uint32_t>(direction.entries.size());
  Entry stored{std::move(entry), InternTokens(tokens)};
  for (uint64_t gram : Grams(stored.tokens)) direction.by_gram[gram].push_back(index);
  direction.by_key.emplace(std::move(key), index);
  direction.entries.push_back(std::move(stored));
  return AddResult::kAdded;
}

TranslationMemory::AddResult TranslationMemory::Add(TmEntry entry, std::string* existing_origin) {
  absl::MutexLock lock(&mu_);
  return AddLocked(std::move(entry), /*replace=*/false, existing_origin);
}

void TranslationMemory::Put(TmEntry entry) {
  absl::MutexLock lock(&mu_);
  AddLocked(std::move(entry), /*replace=*/true, nullptr);
}

namespace {

void Count(TranslationMemory::AddResult result, const TmEntry& entry, const std::string& kept_origin,
           TmLoadReport& report) {
  switch (result) {
    case TranslationMemory::AddResult::kAdded:
      ++report.added;
      break;
    case TranslationMemory::AddResult::kDuplicate:
      ++report.duplicates;
      break;
    case TranslationMemory::AddResult::kConflict:
      ++report.conflicts;
      report.warnings.push_back(absl::StrCat(entry.origin, ": \"", entry.source,
                                             "\" is already translated differently at ", kept_origin,
                                             "; keeping the first translation"));
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
        TmEntry entry{from->text, to->text, from->language, to->language, origin};
        TmEntry copy = entry;
        std::string kept_origin;
        Count(Add(std::move(entry), &kept_origin), copy, kept_origin, report);
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
    TmEntry copy = entry;
    std::string kept_origin;
    Count(Add(std::move(entry), &kept_origin), copy, kept_origin, report);
  }
  return absl::OkStatus();
}

std::vector<TmMatch> TranslationMemory::Search(std::string_view source, Language from, Language to,
                                               double min_score, size_t max_results) const {
  std::vector<TmMatch> matches;
  if (max_results == 0) return matches;
  absl::ReaderMutexLock lock(&mu_);
  const Direction& direction = directions_[DirectionIndex(from, to)];
  const std::vector<std::string> tokens = MatchTokens(source);
  if (tokens.empty()) return matches;
  std::string key;
  for (const std::string& token : tokens) absl::StrAppend(&key, key.empty() ? "" : " ", token);
  uint32_t exact_index = kNoToken;
  if (auto it = direction.by_key.find(key); it != direction.by_key.end()) {
    exact_index = it->second;
    matches.push_back(TmMatch{direction.entries[it->second].pair, 1.0, true});
    if (max_results == 1) return matches;
  }

  const std::vector<uint32_t> query = LookupTokens(tokens);
  std::unordered_map<uint32_t, int> shared;
  for (uint64_t gram : Grams(query)) {
    auto it = direction.by_gram.find(gram);
    if (it == direction.by_gram.end()) continue;
    for (uint32_t index : it->second) ++shared[index];
  }
  std::vector<std::pair<int, uint32_t>> ranked;  // (-shared, index): most shared first, then oldest
  ranked.reserve(shared.size());
  for (const auto& [index, count] : shared) {
    if (index == exact_index) continue;
    // Length alone can rule a candidate out: the distance is at least the difference.
    const size_t length = direction.entries[index].tokens.size();
    const size_t longest = std::max(length, query.size());
    const size_t difference = length > query.size() ? length - query.size() : query.size() - length;
    if (1.0 - static_cast<double>(difference) / static_cast<double>(longest) < min_score) continue;
    ranked.emplace_back(-count, index);
  }
  const size_t keep = std::min(ranked.size(), kMaxFuzzyCandidates);
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
  for (size_t i = 0; i < keep; ++i) {
    const Entry& entry = direction.entries[ranked[i].second];
    const size_t longest = std::max(entry.tokens.size(), query.size());
    const int max_distance = static_cast<int>((1.0 - min_score) * static_cast<double>(longest) + 1e-9);
    const int distance = TokenEditDistance(query, entry.tokens, max_distance);
    if (distance > max_distance) continue;
    const double score = 1.0 - static_cast<double>(distance) / static_cast<double>(longest);
    if (score >= min_score) matches.push_back(TmMatch{entry.pair, score, false});
  }
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
  absl::ReaderMutexLock lock(&mu_);
  size_t total = 0;
  for (const Direction& direction : directions_) total += direction.entries.size();
  return total;
}

}  // namespace lingcast
