#include "app/translate_command.h"

#include <deque>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "nlohmann/json.hpp"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr size_t kContextLines = 3;

}  // namespace

absl::StatusOr<TranslateSummary> RunTranslateCommand(const TranslateCommandOptions& options, std::istream& in,
                                                     std::ostream& out, Clock& clock, Logger& logger) {
  if (options.translation.from == options.translation.to) {
    return absl::InvalidArgumentError("--from and --to are the same language");
  }
  LC_ASSIGN_OR_RETURN(TranslationStack stack, BuildTranslationStack(options.translation, clock, logger));
  TranslateSummary summary;
  std::deque<TranslatedLine> context;
  std::string line;
  while (std::getline(in, line)) {
    ++summary.lines;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (const int64_t bad = FindInvalidUtf8(line); bad >= 0) {
      return absl::InvalidArgumentError(absl::StrCat("invalid UTF-8 on input line ", summary.lines, ", column ",
                                                     LineColumnAt(line, bad).column,
                                                     "; lingcast translate reads UTF-8 text"));
    }
    TranslationRequest request;
    request.source = line;
    request.from = options.translation.from;
    request.to = options.translation.to;
    request.context.assign(context.begin(), context.end());
    request.glossary = stack.glossary.get();
    absl::StatusOr<Translation> result = absl::NotFoundError("empty line");
    const bool empty = line.find_first_not_of(" \t") == std::string::npos;
    if (!empty) result = stack.chain->Translate(request);
    if (result.ok()) {
      ++summary.translated;
      context.push_back({line, result->text});
      if (context.size() > kContextLines) context.pop_front();
    } else if (!empty) {
      ++summary.untranslated;
      if (!absl::IsNotFound(result.status())) {
        logger.Warn("translate", "no translation", {{"line", std::to_string(summary.lines)},
                                                   {"error", std::string(result.status().message())}});
      }
    }
    if (options.json) {
      nlohmann::json record = {{"line", summary.lines}, {"source", line}};
      if (result.ok()) {
        record["target"] = result->text;
        record["engine"] = result->engine;
        record["score"] = result->score;
        record["confidence"] = result->confidence;
        record["origin"] = result->origin;
        record["glossary_fixed"] = result->glossary_fixed;
        if (!result->glossary_missing.empty()) record["glossary_missing"] = result->glossary_missing;
      } else {
        record["target"] = nullptr;
        record["engine"] = nullptr;
        record["score"] = 0;
        record["confidence"] = 0;
        if (!empty) record["error"] = std::string(result.status().message());
      }
      out << record.dump() << '\n';
    } else {
      out << (result.ok() ? result->text : std::string()) << '\n';
    }
    out.flush();
  }
  if (in.bad()) return absl::DataLossError("could not read stdin");
  if (summary.untranslated > 0) {
    logger.Warn("translate", "some lines had no translation (an empty line was written for each)",
                {{"lines", std::to_string(summary.untranslated)}});
  }
  return summary;
}

}  // namespace lingcast
