#include "app/render_plan.h"

#include <utility>

namespace lingcast {
namespace {

// The segment shown as the translation of segments[spoken].
TextSegment TranslationOf(const ScriptLine& line, size_t spoken) {
  for (size_t i = 0; i < line.segments.size(); ++i) {
    if (i != spoken) return line.segments[i];
  }
  return TextSegment{"", line.segments[spoken].language == Language::kZh ? Language::kEn : Language::kZh};
}

size_t SegmentIn(const ScriptLine& line, Language language) {
  for (size_t i = 0; i < line.segments.size(); ++i) {
    if (line.segments[i].language == language) return i;
  }
  return 0;
}

}  // namespace

std::vector<PlanItem> PlanRender(const Script& script, SpeakMode speak) {
  std::vector<PlanItem> plan;
  Expression expression = Expression::kNeutral;
  std::optional<std::string> title;  // a `@title` waiting for the next item
  for (const ScriptItem& item : script.items) {
    if (const auto* change = std::get_if<ScriptTitle>(&item)) {
      title = change->text;
      continue;
    }
    if (const auto* pause = std::get_if<ScriptPause>(&item)) {
      plan.push_back(PlannedPause{pause->duration, std::exchange(title, std::nullopt)});
      continue;
    }
    if (const auto* emotion = std::get_if<ScriptEmotion>(&item)) {
      // The script parser accepts only the avatar's expression names.
      expression = ExpressionFromName(emotion->name).value_or(Expression::kNeutral);
      continue;
    }
    const auto& line = std::get<ScriptLine>(item);
    if (line.segments.empty()) continue;
    const size_t first_of_line = plan.size();
    switch (speak) {
      case SpeakMode::kFirst:
        plan.push_back(Utterance{line.line_number, line.segments[0], TranslationOf(line, 0), expression});
        break;
      case SpeakMode::kZh:
      case SpeakMode::kEn: {
        const size_t i = SegmentIn(line, speak == SpeakMode::kZh ? Language::kZh : Language::kEn);
        plan.push_back(Utterance{line.line_number, line.segments[i], TranslationOf(line, i), expression});
        break;
      }
      case SpeakMode::kBoth:
        for (size_t i = 0; i < line.segments.size(); ++i) {
          plan.push_back(Utterance{line.line_number, line.segments[i], TranslationOf(line, i), expression});
        }
        break;
    }
    if (title && plan.size() > first_of_line) {
      std::get<Utterance>(plan[first_of_line]).title = std::exchange(title, std::nullopt);
    }
  }
  return plan;
}

}  // namespace lingcast
