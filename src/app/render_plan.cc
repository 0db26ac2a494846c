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
  for (const ScriptItem& item : script.items) {
    if (const auto* pause = std::get_if<ScriptPause>(&item)) {
      plan.push_back(PlannedPause{pause->duration});
      continue;
    }
    const auto& line = std::get<ScriptLine>(item);
    if (line.segments.empty()) continue;
    switch (speak) {
      case SpeakMode::kFirst:
        plan.push_back(Utterance{line.line_number, line.segments[0], TranslationOf(line, 0)});
        break;
      case SpeakMode::kZh:
      case SpeakMode::kEn: {
        const size_t i = SegmentIn(line, speak == SpeakMode::kZh ? Language::kZh : Language::kEn);
        plan.push_back(Utterance{line.line_number, line.segments[i], TranslationOf(line, i)});
        break;
      }
      case SpeakMode::kBoth:
        for (size_t i = 0; i < line.segments.size(); ++i) {
          plan.push_back(Utterance{line.line_number, line.segments[i], TranslationOf(line, i)});
        }
        break;
    }
  }
  return plan;
}

}  // namespace lingcast
