#include "app/render_plan.h"

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
  for (const ScriptItem& item : script.items) {
    if (const auto* pause = std::get_if<ScriptPause>(&item)) {
      plan.push_back(PlannedPause{pause->duration});
      continue;
    }
    if (const auto* emotion = std::get_if<ScriptEmotion>(&item)) {
      // The script parser accepts only the avatar's expression names.
      expression = ExpressionFromName(emotion->name).value_or(Expression::kNeutral);
      continue;
    }
    const auto& line = std::get<ScriptLine>(item);
    if (line.segments.empty()) continue;
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
  }
  return plan;
}

}  // namespace lingcast
