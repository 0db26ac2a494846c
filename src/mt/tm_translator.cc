#include "mt/tm_translator.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lingcast {

Translator::~Translator() = default;

absl::StatusOr<Translation> TmTranslator::Translate(const TranslationRequest& request, std::stop_token stop,
                                                    const PartialTranslation& on_partial) {
  if (stop.stop_requested()) return absl::CancelledError("translation cancelled");
  std::optional<TmMatch> match = memory_.Lookup(request.source, request.from, request.to, threshold_);
  if (!match) {
    return absl::NotFoundError(absl::StrFormat("no translation memory match of %.2f or better", threshold_));
  }
  Translation result;
  result.text = std::move(match->entry.target);
  result.engine = "tm";
  result.score = match->score;
  // A fuzzy match translates a slightly different line: trust it as much as it matches.
  result.confidence = match->score;
  result.origin = std::move(match->entry.origin);
  if (on_partial) on_partial(result.text);
  return result;
}

}  // namespace lingcast
