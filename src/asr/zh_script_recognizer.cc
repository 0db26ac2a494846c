#include "asr/zh_script_recognizer.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

// Byte offsets of each code point of `text`, and its size at the end: the
// offset of code point i is starts[i].
std::vector<size_t> CodePointStarts(std::string_view text) {
  std::vector<size_t> starts;
  for (const CodePoint& cp : DecodeUtf8(text)) starts.push_back(static_cast<size_t>(cp.offset));
  starts.push_back(text.size());
  return starts;
}

// The code point index at byte `offset` of a text whose code points start at `starts`.
size_t CodePointAt(const std::vector<size_t>& starts, size_t offset) {
  return static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), offset) - starts.begin());
}

class ZhScriptSession : public AsrSession {
 public:
  ZhScriptSession(std::unique_ptr<AsrSession> inner, std::shared_ptr<const ZhScriptConverter> converter)
      : inner_(std::move(inner)), converter_(std::move(converter)) {}
  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override { return inner_->AcceptAudio(pcm16k, pts); }
  std::optional<AsrHypothesis> Partial() override {
    std::optional<AsrHypothesis> partial = inner_->Partial();
    if (partial) ConvertHypothesis(*converter_, *partial);
    return partial;
  }
  absl::StatusOr<AsrHypothesis> Finish() override {
    LC_ASSIGN_OR_RETURN(AsrHypothesis final, inner_->Finish());
    ConvertHypothesis(*converter_, final);
    return final;
  }
  absl::StatusOr<AlternativesScore> ScoreAlternatives(const std::vector<std::string>& alternatives) override {
    return inner_->ScoreAlternatives(alternatives);
  }
  // The openings as the caller wrote them: the inner recognizer scores text as
  // it writes it, and the caller gives both scripts (SpeechFollower).
  absl::StatusOr<std::vector<double>> ScoreOpenings(const std::vector<std::string>& openings) override {
    return inner_->ScoreOpenings(openings);
  }
  MediaTime position() const override { return inner_->position(); }

 private:
  std::unique_ptr<AsrSession> inner_;
  std::shared_ptr<const ZhScriptConverter> converter_;
};

class ZhScriptModel : public AsrModel {
 public:
  ZhScriptModel(std::shared_ptr<AsrModel> inner, std::shared_ptr<const ZhScriptConverter> converter)
      : inner_(std::move(inner)), converter_(std::move(converter)) {}
  absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const override {
    LC_ASSIGN_OR_RETURN(std::unique_ptr<AsrSession> session, inner_->NewSession());
    return std::unique_ptr<AsrSession>(std::make_unique<ZhScriptSession>(std::move(session), converter_));
  }
  absl::StatusOr<std::unique_ptr<AlternativesScorer>> NewAlternativesScorer() const override {
    return inner_->NewAlternativesScorer();
  }
  Language language() const override { return inner_->language(); }
  std::string name() const override { return inner_->name(); }
  std::optional<StepBatching> step_batching() const override { return inner_->step_batching(); }

 private:
  std::shared_ptr<AsrModel> inner_;
  std::shared_ptr<const ZhScriptConverter> converter_;
};

}  // namespace

std::shared_ptr<AsrModel> WriteChineseIn(std::shared_ptr<AsrModel> recognizer,
                                         std::shared_ptr<const ZhScriptConverter> converter) {
  return std::make_shared<ZhScriptModel>(std::move(recognizer), std::move(converter));
}

void ConvertHypothesis(const ZhScriptConverter& converter, AsrHypothesis& hypothesis) {
  if (hypothesis.language != Language::kZh) return;
  const std::string& before = hypothesis.text;
  std::string after = converter.Convert(before);
  const std::vector<size_t> before_starts = CodePointStarts(before);
  const std::vector<size_t> after_starts = CodePointStarts(after);
  // Almost always true: OpenCC's t2s and s2t map characters one to one.
  const bool same_characters = before_starts.size() == after_starts.size();
  // The converted characters at bytes [begin, end) of the text before.
  auto converted_span = [&](size_t begin, size_t end) {
    const size_t from = after_starts[CodePointAt(before_starts, begin)];
    const size_t to = after_starts[CodePointAt(before_starts, end)];
    return after.substr(from, to - from);
  };

  size_t cursor = 0;
  for (AsrWord& word : hypothesis.words) {
    const size_t at = same_characters && !word.text.empty() ? before.find(word.text, cursor) : std::string::npos;
    if (at == std::string::npos) {
      word.text = converter.Convert(word.text);
      continue;
    }
    cursor = at + word.text.size();
    word.text = converted_span(at, cursor);
  }

  const size_t stable = std::min(hypothesis.stable_prefix_chars, before.size());
  if (stable == before.size()) {
    hypothesis.stable_prefix_chars = after.size();
  } else if (same_characters) {
    hypothesis.stable_prefix_chars = converted_span(0, stable).size();
  } else {
    // Where the conversion of the prefix alone and of the whole text agree,
    // cut back to a character boundary.
    const std::string prefix = converter.Convert(before.substr(0, stable));
    size_t common = 0;
    while (common < prefix.size() && common < after.size() && prefix[common] == after[common]) ++common;
    while (common > 0 && common < after.size() && (static_cast<unsigned char>(after[common]) & 0xC0) == 0x80) --common;
    hypothesis.stable_prefix_chars = common;
  }
  hypothesis.text = std::move(after);
}

}  // namespace lingcast
