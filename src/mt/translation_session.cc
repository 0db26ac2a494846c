#include "mt/translation_session.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "mt/match_text.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

// Units compare without their trailing spaces: a line's last word has none
// until the next translation goes on after it.
bool SameUnit(const std::string& a, const std::string& b) {
  const size_t a_end = a.find_last_not_of(' '), b_end = b.find_last_not_of(' ');
  return std::string_view(a).substr(0, a_end == std::string::npos ? 0 : a_end + 1) ==
         std::string_view(b).substr(0, b_end == std::string::npos ? 0 : b_end + 1);
}

size_t CommonPrefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && SameUnit(a[n], b[n])) ++n;
  return n;
}

std::string Join(const std::vector<std::string>& units, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < units.size(); ++i) out += units[i];
  return out;
}

}  // namespace

absl::StatusOr<TranslationSession> TranslationSession::Create(Translator& translator,
                                                              TranslationSessionOptions options) {
  if (options.min_new_tokens < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_new_tokens is ", options.min_new_tokens, ": a partial needs at least 1 new token"));
  }
  if (options.agreement < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("agreement is ", options.agreement, ": at least 1 translation must agree"));
  }
  return TranslationSession(translator, std::move(options));
}

TranslationSession::TranslationSession(Translator& translator, TranslationSessionOptions options)
    : translator_(&translator), options_(std::move(options)) {}

std::vector<std::string> TranslationSession::Units(const std::string& text) const {
  std::vector<std::string> units;
  if (options_.to == Language::kZh) {
    // One unit per character: Chinese has no spaces to cut at.
    for (const CodePoint& c : DecodeUtf8(text)) {
      units.push_back(text.substr(static_cast<size_t>(c.offset), static_cast<size_t>(c.length)));
    }
    return units;
  }
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    end = end == std::string::npos ? text.size() : text.find_first_not_of(' ', end);
    if (end == std::string::npos) end = text.size();
    units.push_back(text.substr(start, end - start));
    start = end;
  }
  return units;
}

absl::StatusOr<Translation> TranslationSession::Translate(const std::string& source) {
  TranslationRequest request;
  request.source = source;
  request.from = options_.from;
  request.to = options_.to;
  request.context = options_.context;
  request.glossary = options_.glossary;
  ++engine_calls_;
  absl::StatusOr<Translation> translation = translator_->Translate(request, stop_.get_token());
  if (stop_.stop_requested()) return absl::CancelledError("the translation session was cancelled");
  return translation;
}

SessionOutput TranslationSession::Output(const std::vector<std::string>& latest) const {
  SessionOutput out;
  out.stable = Join(stable_);
  // The latest translation past the stable units, position for position: when
  // it rewrote part of the stable text, the stable text still stands (it was
  // read) and only its tail is shown after it.
  out.provisional = Join(latest, std::min(stable_.size(), latest.size()));
  out.engine = engine_;
  out.engine_calls = engine_calls_;
  return out;
}

absl::StatusOr<std::optional<SessionOutput>> TranslationSession::Update(const std::string& source_so_far) {
  if (stop_.stop_requested()) return absl::CancelledError("the translation session was cancelled");
  if (done_) return absl::FailedPreconditionError("the translation session is finished: start a new one");
  const size_t tokens = MatchTokens(source_so_far).size();
  if (tokens == 0 || source_so_far == translated_source_) return std::nullopt;
  // A grown source waits for enough new words; a changed one (the recognizer
  // revised its last words) with as many tokens or fewer is translated again.
  if (tokens > translated_tokens_ && tokens < translated_tokens_ + static_cast<size_t>(options_.min_new_tokens) &&
      source_so_far.rfind(translated_source_, 0) == 0) {
    return std::nullopt;
  }
  absl::StatusOr<Translation> translation = Translate(source_so_far);
  if (absl::IsNotFound(translation.status())) return std::nullopt;
  if (!translation.ok()) return translation.status();
  translated_source_ = source_so_far;
  translated_tokens_ = tokens;
  engine_ = translation->engine;
  recent_.push_back(Units(translation->text));
  if (recent_.size() > static_cast<size_t>(options_.agreement)) recent_.erase(recent_.begin());
  if (recent_.size() == static_cast<size_t>(options_.agreement)) {
    // Local agreement: the prefix all of the last translations share, when it
    // goes on from what is already stable.
    size_t agreed = recent_.front().size();
    for (const std::vector<std::string>& units : recent_) agreed = std::min(agreed, CommonPrefix(recent_.front(), units));
    const std::vector<std::string>& latest = recent_.back();
    if (agreed > stable_.size() && CommonPrefix(latest, stable_) == stable_.size()) {
      stable_.assign(latest.begin(), latest.begin() + static_cast<std::ptrdiff_t>(agreed));
    }
  }
  return Output(recent_.back());
}

absl::StatusOr<SessionOutput> TranslationSession::Finish(const std::string& final_source) {
  if (stop_.stop_requested()) return absl::CancelledError("the translation session was cancelled");
  if (done_) return absl::FailedPreconditionError("the translation session is finished: start a new one");
  done_ = true;
  std::vector<std::string> units;
  if (final_source == translated_source_ && !recent_.empty()) {
    units = recent_.back();  // heard whole already: no second engine call
  } else {
    LC_ASSIGN_OR_RETURN(const Translation translation, Translate(final_source));
    engine_ = translation.engine;
    units = Units(translation.text);
  }
  SessionOutput out;
  out.final = true;
  out.revised = CommonPrefix(units, stable_) < stable_.size();
  stable_ = std::move(units);
  out.stable = Join(stable_);
  out.engine = engine_;
  out.engine_calls = engine_calls_;
  return out;
}

}  // namespace lingcast
