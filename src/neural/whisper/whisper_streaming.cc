#include "neural/whisper/whisper_streaming.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "neural/whisper/whisper_transcriber.h"
#include "text/utf8.h"

namespace lingcast::neural {
namespace {

constexpr double kSecondsPerTimestamp = 0.02;
constexpr char kReplacementCharacter[] = "\xEF\xBF\xBD";  // what the tokenizer writes for a cut UTF-8 character

bool HasText(const StreamWord& word) {
  return std::any_of(word.text.begin(), word.text.end(), [](char c) { return c != ' '; });
}

bool IsAscii(char c) { return (static_cast<unsigned char>(c) & 0x80) == 0; }

// Han characters, Latin letters and digits in `text`: punctuation, spaces and
// symbols do not count toward a phrase's length.
int SpokenCharacters(std::string_view text) {
  int count = 0;
  for (const CodePoint& c : DecodeUtf8(text)) {
    if (IsHan(c.value) || IsLatinLetter(c.value) || IsAsciiDigit(c.value)) ++count;
  }
  return count;
}

}  // namespace

absl::Status CheckStreamingOptions(const WhisperStreamingOptions& options, MediaTime window) {
  if (options.agreement < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("whisper streaming: agreement must be at least 1 hypothesis, got ", options.agreement));
  }
  if (options.min_partial_interval < MediaTime::Zero()) {
    return absl::InvalidArgumentError(absl::StrCat("whisper streaming: min_partial_interval must not be negative, got ",
                                                   options.min_partial_interval.millis(), " ms"));
  }
  if (!(options.max_compute_share >= 0.0 && options.max_compute_share <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat("whisper streaming: max_compute_share must be between 0 and 1, got ",
                                                   options.max_compute_share));
  }
  if (options.trim_after < MediaTime::Seconds(1) || options.trim_after > window) {
    return absl::InvalidArgumentError(absl::StrCat("whisper streaming: trim_after must be between 1000 ms and the ",
                                                   window.millis(), " ms window, got ", options.trim_after.millis(), " ms"));
  }
  if (options.commit_after < MediaTime::Zero() || options.commit_after > options.trim_after) {
    return absl::InvalidArgumentError(absl::StrCat("whisper streaming: commit_after must be between 0 ms and trim_after (",
                                                   options.trim_after.millis(), " ms), got ",
                                                   options.commit_after.millis(), " ms"));
  }
  return absl::OkStatus();
}

absl::StatusOr<LocalAgreement> LocalAgreement::Create(int agreement) {
  if (agreement < 1) {
    return absl::InvalidArgumentError(absl::StrCat("LocalAgreement needs at least 1 hypothesis to agree, got ", agreement));
  }
  return LocalAgreement(agreement);
}

std::vector<StreamWord> LocalAgreement::Add(std::vector<StreamWord> hypothesis) {
  recent_.push_back(std::move(hypothesis));
  if (recent_.size() > static_cast<std::size_t>(agreement_)) recent_.pop_front();
  if (recent_.size() < static_cast<std::size_t>(agreement_)) return {};
  const std::vector<StreamWord>& newest = recent_.back();
  std::size_t agreed = newest.size();
  for (const auto& other : recent_) {
    std::size_t i = 0;
    while (i < agreed && i < other.size() && other[i].text == newest[i].text) ++i;
    agreed = i;
  }
  std::vector<StreamWord> committed(newest.begin(), newest.begin() + static_cast<std::ptrdiff_t>(agreed));
  // Every kept hypothesis now describes what follows the newly committed words.
  for (auto& h : recent_) h.erase(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(agreed));
  return committed;
}

const std::vector<StreamWord>& LocalAgreement::tail() const {
  static const std::vector<StreamWord> kNone;
  return recent_.empty() ? kNone : recent_.back();
}

std::size_t CommittableWords(const std::vector<StreamWord>& committed, const std::vector<StreamWord>& agreed) {
  constexpr int kMinRepeatedCharacters = 4;
  std::vector<std::string> words;
  words.reserve(committed.size() + agreed.size());
  for (const StreamWord& w : committed) words.emplace_back(absl::StripAsciiWhitespace(w.text));
  for (const StreamWord& w : agreed) words.emplace_back(absl::StripAsciiWhitespace(w.text));
  const std::size_t base = committed.size();
  // The first repeat to end among the agreed words; of those ending there, the
  // one whose second copy starts soonest.
  for (std::size_t end = base + 1; end <= words.size(); ++end) {
    std::optional<std::size_t> copy_start;
    for (std::size_t length = 1; 2 * length <= end; ++length) {
      const std::size_t second = end - length, first = second - length;
      if (!std::equal(words.begin() + static_cast<std::ptrdiff_t>(first),
                      words.begin() + static_cast<std::ptrdiff_t>(second),
                      words.begin() + static_cast<std::ptrdiff_t>(second))) {
        continue;
      }
      int characters = 0;
      for (std::size_t i = second; i < end; ++i) characters += SpokenCharacters(words[i]);
      if (characters >= kMinRepeatedCharacters) copy_start = second;
    }
    if (copy_start) return *copy_start > base ? *copy_start - base : 0;
  }
  return agreed.size();
}

std::vector<StreamWord> SplitWords(const std::vector<std::int64_t>& tokens, const WhisperTranscriber& transcriber,
                                   bool after_text) {
  const WhisperTokenizer& tokenizer = transcriber.tokenizer();
  const std::int64_t timestamp_begin = transcriber.special().timestamp_begin;
  const std::int64_t end_of_text = transcriber.special().end_of_text;
  std::vector<StreamWord> words;
  StreamWord word;        // being built
  bool closed = false;    // `word` ends with a closing timestamp
  bool last_was_text = after_text;
  auto flush = [&] {
    if (!word.tokens.empty()) words.push_back(std::move(word));
    word = StreamWord{};
    closed = false;
  };
  for (std::int64_t id : tokens) {
    if (id >= timestamp_begin) {
      if (last_was_text) {
        // Closes the segment of the word before it (which may be a committed one).
        word.tokens.push_back(id);
        word.segment_end = static_cast<double>(id - timestamp_begin) * kSecondsPerTimestamp;
        closed = true;
      } else {
        if (closed || HasText(word)) flush();
        word.tokens.push_back(id);  // opens the next segment: leads the next word
      }
      last_was_text = false;
      continue;
    }
    if (id >= end_of_text) {
      // A special token the model said (a language token, ...): kept so the
      // forced prefix repeats the decode exactly, but it is no text.
      word.tokens.push_back(id);
      continue;
    }
    const std::string piece = tokenizer.Decode({id});
    const bool complete = word.text.find(kReplacementCharacter) == std::string::npos;
    const bool starts_word = !piece.empty() && (piece.front() == ' ' || !IsAscii(piece.front()) ||
                                                (!word.text.empty() && !IsAscii(word.text.back())));
    if (closed || (HasText(word) && complete && starts_word)) flush();
    word.tokens.push_back(id);
    word.text_tokens.push_back(id);
    word.text = tokenizer.Decode(word.text_tokens);
    last_was_text = true;
  }
  // An opening timestamp with no text after it yet says nothing to agree on.
  if (!word.tokens.empty() && (HasText(word) || word.segment_end)) flush();
  return words;
}

std::vector<std::int64_t> TokensOf(const std::vector<StreamWord>& words, bool text_only) {
  std::vector<std::int64_t> out;
  for (const StreamWord& w : words) {
    const std::vector<std::int64_t>& ids = text_only ? w.text_tokens : w.tokens;
    out.insert(out.end(), ids.begin(), ids.end());
  }
  return out;
}

}  // namespace lingcast::neural
