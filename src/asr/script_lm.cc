#include "asr/script_lm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace lingcast {
namespace {

constexpr const char* kOnes[] = {"zero",    "one",     "two",       "three",    "four",
                                 "five",    "six",     "seven",     "eight",    "nine",
                                 "ten",     "eleven",  "twelve",    "thirteen", "fourteen",
                                 "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
constexpr const char* kTens[] = {"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string BelowThousand(int n) {
  std::string out;
  if (n >= 100) {
    out = absl::StrCat(kOnes[n / 100], " hundred");
    n %= 100;
    if (n == 0) return out;
    out += " ";
  }
  if (n < 20) return out + kOnes[n];
  out += kTens[n / 10];
  if (n % 10) absl::StrAppend(&out, " ", kOnes[n % 10]);
  return out;
}

// "first".."twentieth" and compounds ("twenty first"); the ordinal of the last word.
std::string OrdinalWords(long long n) {
  std::string cardinal = CardinalWords(n);
  const size_t last_space = cardinal.rfind(' ');
  const std::string head = last_space == std::string::npos ? "" : cardinal.substr(0, last_space + 1);
  const std::string last = last_space == std::string::npos ? cardinal : cardinal.substr(last_space + 1);
  static const std::map<std::string, std::string> kIrregular = {
      {"one", "first"}, {"two", "second"}, {"three", "third"}, {"five", "fifth"},
      {"eight", "eighth"}, {"nine", "ninth"}, {"twelve", "twelfth"}};
  if (auto it = kIrregular.find(last); it != kIrregular.end()) return head + it->second;
  if (last.back() == 'y') return head + last.substr(0, last.size() - 1) + "ieth";
  return head + last + "th";
}

void AppendWords(const std::string& words, std::vector<std::string>* out) {
  size_t begin = 0;
  while (begin < words.size()) {
    size_t end = words.find(' ', begin);
    if (end == std::string::npos) end = words.size();
    if (end > begin) out->push_back(words.substr(begin, end - begin));
    begin = end + 1;
  }
}

}  // namespace

std::string CardinalWords(long long n) {
  if (n < 0) return absl::StrCat("minus ", CardinalWords(-n));
  if (n < 1000) return BelowThousand(static_cast<int>(n));
  static const std::pair<long long, const char*> kScales[] = {
      {1'000'000'000LL, "billion"}, {1'000'000LL, "million"}, {1'000LL, "thousand"}};
  std::string out;
  for (const auto& [scale, name] : kScales) {
    if (n >= scale) {
      absl::StrAppend(&out, out.empty() ? "" : " ", CardinalWords(n / scale), " ", name);
      n %= scale;
    }
  }
  if (n > 0) absl::StrAppend(&out, " ", BelowThousand(static_cast<int>(n)));
  return out;
}

std::vector<std::string> AsrWordsOf(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (IsAsciiLetter(c)) {
      std::string word;
      while (i < n && (IsAsciiLetter(text[i]) ||
                       (text[i] == '\'' && i + 1 < n && IsAsciiLetter(text[i + 1]) && !word.empty()))) {
        word += static_cast<char>(text[i] >= 'A' && text[i] <= 'Z' ? text[i] - 'A' + 'a' : text[i]);
        ++i;
      }
      words.push_back(std::move(word));
      continue;
    }
    if (IsDigit(c)) {
      const bool dollars = i > 0 && text[i - 1] == '$';
      // Digits with thousands separators ("1,000") are one number.
      std::string digits;
      while (i < n && (IsDigit(text[i]) || (text[i] == ',' && i + 3 < n && IsDigit(text[i + 1]) &&
                                            IsDigit(text[i + 2]) && IsDigit(text[i + 3]) &&
                                            (i + 4 >= n || !IsDigit(text[i + 4]))))) {
        if (text[i] != ',') digits += text[i];
        ++i;
      }
      std::string fraction;
      if (i + 1 < n && text[i] == '.' && IsDigit(text[i + 1])) {
        ++i;
        while (i < n && IsDigit(text[i])) fraction += text[i++];
      }
      // Too long to be said as a number (a phone or serial number): digit by digit.
      if (digits.size() > 12) {
        for (char d : digits) words.push_back(kOnes[d - '0']);
      } else {
        const long long value = std::stoll(digits);
        std::string suffix;
        while (i < n && IsAsciiLetter(text[i]) && suffix.size() < 3) suffix += static_cast<char>(text[i++] | 0x20);
        const bool ordinal = fraction.empty() && (suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th");
        if (ordinal) {
          AppendWords(OrdinalWords(value), &words);
        } else {
          AppendWords(CardinalWords(value), &words);
          if (!fraction.empty()) {
            words.push_back("point");
            for (char d : fraction) words.push_back(kOnes[d - '0']);
          }
          if (!suffix.empty()) i -= suffix.size();  // "5kg": the letters are a word of their own
        }
      }
      if (dollars) words.push_back("dollars");
      if (i < n && text[i] == '%') {
        words.push_back("percent");
        ++i;
      }
      continue;
    }
    if (c == '&') words.push_back("and");
    ++i;
  }
  return words;
}

ScriptCorpus CorpusOf(const Script& script, Language language) {
  ScriptCorpus corpus;
  for (const ScriptItem& item : script.items) {
    const ScriptLine* line = std::get_if<ScriptLine>(&item);
    if (line == nullptr || line->segments.empty()) continue;
    const TextSegment& spoken = line->segments.front();
    if (spoken.language != language) {
      corpus.skipped_lines.push_back(line->line_number);
      continue;
    }
    // Sentence ends: . ! ? that are not inside a number ("19.99").
    size_t begin = 0;
    const std::string& text = spoken.text;
    for (size_t i = 0; i <= text.size(); ++i) {
      const bool end = i == text.size() ||
                       ((text[i] == '.' || text[i] == '!' || text[i] == '?') &&
                        !(text[i] == '.' && i + 1 < text.size() && IsDigit(text[i + 1])));
      if (!end) continue;
      std::vector<std::string> sentence = AsrWordsOf(std::string_view(text).substr(begin, i - begin));
      if (!sentence.empty()) corpus.sentences.push_back(std::move(sentence));
      begin = i + 1;
    }
  }
  return corpus;
}

std::string BuildArpa(const std::vector<std::vector<std::string>>& sentences, int order) {
  constexpr double kDiscount = 0.5;
  order = std::max(1, std::min(order, 3));
  using Gram = std::vector<std::string>;
  // counts[k][gram] for grams of k+1 words.
  std::vector<std::map<Gram, double>> counts(order);
  for (const auto& sentence : sentences) {
    if (sentence.empty()) continue;
    Gram padded = {"<s>"};
    padded.insert(padded.end(), sentence.begin(), sentence.end());
    padded.push_back("</s>");
    for (size_t end = 1; end <= padded.size(); ++end) {
      for (int k = 0; k < order && static_cast<size_t>(k) < end; ++k) {
        Gram gram(padded.begin() + (end - k - 1), padded.begin() + end);
        if (k == 0 && gram[0] == "<s>") continue;  // <s> is context, never predicted
        counts[k][gram] += 1;
      }
    }
  }
  // Per history: total count of its continuations, and how many distinct ones.
  std::vector<std::map<Gram, std::pair<double, int>>> history(order);
  for (int k = 1; k < order; ++k) {
    for (const auto& [gram, count] : counts[k]) {
      auto& [total, distinct] = history[k][Gram(gram.begin(), gram.end() - 1)];
      total += count;
      distinct += 1;
    }
  }
  double tokens = 0;
  for (const auto& [gram, count] : counts[0]) tokens += count;

  // prob[k][gram]: interpolated probability of gram's last word given the rest.
  std::vector<std::map<Gram, double>> prob(order);
  for (const auto& [gram, count] : counts[0]) prob[0][gram] = count / tokens;
  for (int k = 1; k < order; ++k) {
    for (const auto& [gram, count] : counts[k]) {
      const auto& [total, distinct] = history[k].at(Gram(gram.begin(), gram.end() - 1));
      const double lower = prob[k - 1].at(Gram(gram.begin() + 1, gram.end()));
      prob[k][gram] = std::max(count - kDiscount, 0.0) / total + kDiscount * distinct / total * lower;
    }
  }
  // Backoff weight of a gram used as a history: the mass its unseen continuations get.
  auto backoff = [&](int k, const Gram& gram) -> std::optional<double> {
    if (k + 1 >= order) return std::nullopt;
    auto it = history[k + 1].find(gram);
    if (it == history[k + 1].end()) return 0.0;  // log10(1)
    return std::log10(kDiscount * it->second.second / it->second.first);
  };

  std::string arpa = "\\data\\\n";
  // <s> is listed as a unigram (as ARPA readers expect) with probability zero.
  const Gram start = {"<s>"};
  for (int k = 0; k < order; ++k) {
    absl::StrAppend(&arpa, "ngram ", k + 1, "=", counts[k].size() + (k == 0 ? 1 : 0), "\n");
  }
  for (int k = 0; k < order; ++k) {
    absl::StrAppend(&arpa, "\n\\", k + 1, "-grams:\n");
    if (k == 0) {
      const std::optional<double> bow = backoff(0, start);
      absl::StrAppend(&arpa, "-99.0000\t<s>", bow ? absl::StrFormat("\t%.4f", *bow) : "", "\n");
    }
    for (const auto& [gram, p] : prob[k]) {
      const std::optional<double> bow = backoff(k, gram);
      absl::StrAppend(&arpa, absl::StrFormat("%.4f", std::log10(p)), "\t", absl::StrJoin(gram, " "),
                      bow ? absl::StrFormat("\t%.4f", *bow) : "", "\n");
    }
  }
  arpa += "\n\\end\\\n";
  return arpa;
}

}  // namespace lingcast
