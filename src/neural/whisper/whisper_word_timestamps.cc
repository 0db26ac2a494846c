#include "neural/whisper/whisper_word_timestamps.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Code points of valid UTF-8 (the tokenizer's Decode already replaced what was not).
std::u32string CodePointsOf(const std::string& utf8) {
  std::u32string out;
  for (std::size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t c = length == 1 ? lead : lead & (0x3F >> (length - 1));
    for (std::size_t k = 1; k < length && i + k < utf8.size(); ++k) c = (c << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    out.push_back(c);
    i += length;
  }
  return out;
}

// Python's str.strip(): whitespace at both ends (ASCII and the separators
// Python counts as whitespace in that range).
std::string Strip(const std::string& s) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); };
  std::size_t begin = 0, end = s.size();
  while (begin < end && space(s[begin])) ++begin;
  while (end > begin && space(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

// Python's `part in whole` for strings: a substring test (the empty string is in
// every string). On valid UTF-8 a byte match is a character match.
bool Within(const std::string& part, const std::string& whole) { return whole.find(part) != std::string::npos; }

struct Pieces {
  std::vector<std::string> text;
  std::vector<std::vector<std::size_t>> indices;
};

// Runs of tokens whose bytes make whole characters. A run ends once its text
// holds no replacement character, or only ones the whole text has too (bytes
// that never complete a character).
Pieces SplitOnCharacters(const WhisperTokenizer& tokenizer, const std::vector<std::int64_t>& tokens) {
  const std::u32string full = CodePointsOf(tokenizer.Decode(tokens, /*skip_special=*/false));
  Pieces pieces;
  std::vector<std::int64_t> current;
  std::vector<std::size_t> current_indices;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    current.push_back(tokens[i]);
    current_indices.push_back(i);
    const std::string decoded = tokenizer.Decode(current, /*skip_special=*/false);
    const std::u32string points = CodePointsOf(decoded);
    const std::size_t bad = points.find(kReplacement);
    if (bad == std::u32string::npos || offset + bad >= full.size() || full[offset + bad] == kReplacement) {
      pieces.text.push_back(decoded);
      pieces.indices.push_back(current_indices);
      offset += points.size();
      current.clear();
      current_indices.clear();
    }
  }
  if (!current.empty()) {
    pieces.text.push_back(tokenizer.Decode(current, /*skip_special=*/false));
    pieces.indices.push_back(current_indices);
  }
  return pieces;
}

Pieces SplitOnSpaces(const WhisperTokenizer& tokenizer, const std::vector<std::int64_t>& tokens) {
  static const std::string kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  const Pieces pieces = SplitOnCharacters(tokenizer, tokens);
  Pieces words;
  for (std::size_t i = 0; i < pieces.text.size(); ++i) {
    const std::string& piece = pieces.text[i];
    const bool starts_word = words.text.empty() || (!piece.empty() && piece.front() == ' ') || Within(Strip(piece), kPunctuation);
    if (starts_word) {
      words.text.push_back(piece);
      words.indices.push_back(pieces.indices[i]);
    } else {
      words.text.back() += piece;
      words.indices.back().insert(words.indices.back().end(), pieces.indices[i].begin(), pieces.indices[i].end());
    }
  }
  return words;
}

void MergePunctuation(Pieces& words) {
  static const std::string kOpening = "\"'\u201c\u00a1\u00bf([{-";
  static const std::string kClosing = "\"'.\u3002,\uff0c!\uff01?\uff1f:\uff1a\u201d)]}\u3001";
  auto& text = words.text;
  auto& indices = words.indices;
  auto move = [&](std::size_t from, std::size_t to, bool before) {
    if (before) {
      text[to] = text[from] + text[to];
      indices[from].insert(indices[from].end(), indices[to].begin(), indices[to].end());
      indices[to] = std::move(indices[from]);
    } else {
      text[to] += text[from];
      indices[to].insert(indices[to].end(), indices[from].begin(), indices[from].end());
    }
    text[from].clear();
    indices[from].clear();
  };
  // Opening punctuation (after a space) joins the word after it, right to left.
  if (text.size() >= 2) {
    std::size_t j = text.size() - 1;
    for (std::size_t i = text.size() - 1; i-- > 0;) {
      if (!text[i].empty() && text[i].front() == ' ' && Within(Strip(text[i]), kOpening)) {
        move(i, j, /*before=*/true);
      } else {
        j = i;
      }
    }
  }
  // Closing punctuation joins the word before it unless that one ends in a space.
  for (std::size_t i = 0, j = 1; j < text.size(); ++j) {
    if ((text[i].empty() || text[i].back() != ' ') && Within(text[j], kClosing)) {
      move(j, i, /*before=*/false);
    } else {
      i = j;
    }
  }
  Pieces kept;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i].empty() || indices[i].empty()) continue;
    kept.text.push_back(std::move(text[i]));
    kept.indices.push_back(std::move(indices[i]));
  }
  words = std::move(kept);
}

double RoundToCentiseconds(double seconds) { return std::round(seconds * 100.0) / 100.0; }

}  // namespace

torch::Tensor MedianFilterFrames(const torch::Tensor& x, std::int64_t width) {
  if (width <= 0 || width % 2 != 1) {
    Fail(ErrorCode::kInvalidArgument, "median_filter_width is " + std::to_string(width) + ", expected an odd number >= 1");
  }
  const std::int64_t pad = width / 2;
  const std::int64_t frames = x.size(-1);
  if (frames <= pad) return x;
  // Mirrored edges: frames pad .. 1, then all, then frames - 2 .. frames - 1 - pad.
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(frames + 2 * pad));
  for (std::int64_t i = pad; i >= 1; --i) order.push_back(i);
  for (std::int64_t i = 0; i < frames; ++i) order.push_back(i);
  for (std::int64_t i = frames - 2; i >= frames - 1 - pad; --i) order.push_back(i);
  const torch::Tensor padded = x.index_select(-1, torch::tensor(order, torch::kLong).to(x.device()));
  return std::get<0>(padded.unfold(-1, width, 1).sort(-1)).select(-1, pad);
}

std::vector<std::int64_t> AlignTokenStarts(const torch::Tensor& cost) {
  const torch::Tensor m = cost.to(torch::kCPU).to(torch::kDouble).contiguous();
  const std::int64_t rows = m.size(0), cols = m.size(1);
  if (rows == 0 || cols == 0) return std::vector<std::int64_t>(static_cast<std::size_t>(rows), 0);
  const double* cell = m.data_ptr<double>();
  const auto width = static_cast<std::size_t>(cols + 1);
  // Accumulated costs are kept in float, as the reference's table is.
  std::vector<float> total(static_cast<std::size_t>(rows + 1) * width, std::numeric_limits<float>::infinity());
  std::vector<unsigned char> step(total.size(), 2);
  auto at = [&](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>(i) * width + static_cast<std::size_t>(j); };
  total[0] = 0.0f;
  for (std::int64_t j = 1; j <= cols; ++j) {
    for (std::int64_t i = 1; i <= rows; ++i) {
      const float diagonal = total[at(i - 1, j - 1)], down = total[at(i - 1, j)], right = total[at(i, j - 1)];
      float best = right;
      unsigned char move = 2;
      if (diagonal < down && diagonal < right) {
        best = diagonal;
        move = 0;
      } else if (down < diagonal && down < right) {
        best = down;
        move = 1;
      }
      total[at(i, j)] = static_cast<float>(cell[(i - 1) * cols + (j - 1)] + static_cast<double>(best));
      step[at(i, j)] = move;
    }
  }
  for (std::int64_t j = 0; j <= cols; ++j) step[at(0, j)] = 2;
  for (std::int64_t i = 1; i <= rows; ++i) step[at(i, 0)] = 1;
  // Walking back, the last frame seen in a row is the first the path reaches.
  std::vector<std::int64_t> starts(static_cast<std::size_t>(rows), 0);
  std::int64_t i = rows, j = cols;
  while (i > 0 || j > 0) {
    if (i > 0) starts[static_cast<std::size_t>(i - 1)] = j - 1;
    switch (step[at(i, j)]) {
      case 0: --i, --j; break;
      case 1: --i; break;
      default: --j; break;
    }
  }
  return starts;
}

std::vector<double> TokenTimestamps(const torch::Tensor& attention, std::int64_t prompt_length,
                                    std::int64_t sequence_length, std::int64_t median_filter_width) {
  std::vector<double> times(static_cast<std::size_t>(std::max<std::int64_t>(sequence_length, 0)), 0.0);
  const std::int64_t rows = sequence_length - 1 - prompt_length;
  if (rows <= 0) return times;
  if (attention.dim() != 3 || attention.size(1) != rows) {
    Fail(ErrorCode::kInternal, "cross-attention of " + std::to_string(attention.dim() == 3 ? attention.size(1) : -1) +
                                   " rows for " + std::to_string(rows) + " generated tokens");
  }
  torch::Tensor w = attention.to(torch::kCPU).to(torch::kFloat);
  const torch::Tensor mean = w.mean({1}, /*keepdim=*/true);
  const torch::Tensor stddev = w.std({1}, /*unbiased=*/false, /*keepdim=*/true);
  w = MedianFilterFrames((w - mean) / stddev, median_filter_width).mean(0);
  const std::vector<std::int64_t> starts = AlignTokenStarts(-w);
  for (std::int64_t r = 0; r < rows; ++r) {
    times[static_cast<std::size_t>(prompt_length + r)] =
        static_cast<float>(static_cast<double>(starts[static_cast<std::size_t>(r)]) * kSecondsPerEncoderFrame);
  }
  times.back() = times[times.size() - 2];
  return times;
}

bool WordsAreCharacters(const std::string& language) {
  return language == "zh" || language == "ja" || language == "th" || language == "lo" || language == "my" ||
         language == "yue";
}

std::vector<WhisperWordTiming> GroupWords(const WhisperTokenizer& tokenizer, const std::vector<std::int64_t>& text_tokens,
                                          const std::vector<std::pair<double, double>>& token_spans,
                                          const std::string& language) {
  if (token_spans.size() != text_tokens.size()) {
    Fail(ErrorCode::kInvalidArgument, std::to_string(token_spans.size()) + " token spans for " +
                                          std::to_string(text_tokens.size()) + " tokens");
  }
  Pieces words = WordsAreCharacters(language) ? SplitOnCharacters(tokenizer, text_tokens) : SplitOnSpaces(tokenizer, text_tokens);
  MergePunctuation(words);
  std::vector<WhisperWordTiming> out;
  for (std::size_t i = 0; i < words.text.size(); ++i) {
    WhisperWordTiming word;
    word.text = std::move(words.text[i]);
    word.token_indices = std::move(words.indices[i]);
    word.start = RoundToCentiseconds(token_spans[word.token_indices.front()].first);
    word.end = RoundToCentiseconds(token_spans[word.token_indices.back()].second);
    out.push_back(std::move(word));
  }
  return out;
}

void RequireAlignmentHeads(const WhisperConfig& config, const std::string& dir) {
  if (config.alignment_heads.empty()) {
    Fail(ErrorCode::kInvalidArgument, dir + "/generation_config.json has no \"alignment_heads\": word timestamps "
                                      "need them (the published openai/whisper-* checkpoints have them; docs/models.md)");
  }
}

WhisperWordTimes AlignWords(const WhisperModel& model, const WhisperTokenizer& tokenizer, const torch::Tensor& encoder_out,
                            const std::vector<std::int64_t>& sequence, std::int64_t prompt_length,
                            std::int64_t heard_frames, const std::string& language, std::int64_t end_of_text,
                            const std::vector<CrossKv>* cross) {
  const WhisperConfig& c = model.config();
  RequireAlignmentHeads(c, tokenizer.dir());
  const auto length = static_cast<std::int64_t>(sequence.size());
  torch::Tensor attention;
  if (length - 1 > prompt_length) {
    // The last token's own attention is never looked at (the reference has none:
    // that token is what the last step produced).
    const std::vector<std::int64_t> fed(sequence.begin(), sequence.end() - 1);
    // Two mel frames per encoder frame; the softmax is over all frames, the
    // alignment over the heard ones.
    const std::int64_t frames = std::max<std::int64_t>(1, std::min(heard_frames / 2, encoder_out.size(1)));
    attention = model.CrossAttentionWeights(encoder_out, fed, c.alignment_heads, cross)
                    .narrow(1, prompt_length, length - 1 - prompt_length)
                    .narrow(2, 0, frames);
  }
  WhisperWordTimes out;
  out.token_timestamps = TokenTimestamps(attention, prompt_length, length, c.median_filter_width);
  std::vector<std::int64_t> text;
  std::vector<std::pair<double, double>> spans;
  for (std::int64_t p = std::max<std::int64_t>(prompt_length, 1); p < length; ++p) {
    const std::int64_t id = sequence[static_cast<std::size_t>(p)];
    if (id >= end_of_text) continue;
    text.push_back(id);
    spans.emplace_back(out.token_timestamps[static_cast<std::size_t>(p - 1)], out.token_timestamps[static_cast<std::size_t>(p)]);
  }
  out.words = GroupWords(tokenizer, text, spans, language);
  return out;
}

}  // namespace lingcast::neural
