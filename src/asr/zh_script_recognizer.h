// A recognizer whose Mandarin comes out in one script: Whisper writes Mandarin
// mostly in Traditional characters (甚至出現交易幾乎停滯的情況), a mainland
// audience reads Simplified. Wraps any AsrModel; every session's partials and
// finals in Chinese (AsrHypothesis::language zh) are converted, text and words
// alike, so everything downstream (asr's output, the follower, subtitles,
// translation) reads one script. Hypotheses in other languages pass unchanged.
//
//   model = WriteChineseIn(std::move(model), converter);  // converter: text/zh_script.h, loaded once
#pragma once

#include <memory>

#include "asr/asr_engine.h"
#include "text/zh_script.h"

namespace lingcast {

// `recognizer`'s sessions, writing Chinese as `converter` does. The converter is
// shared by every session (its Convert is thread-safe). How a hypothesis is
// converted (ConvertHypothesis) says what happens to words and stable prefixes.
std::shared_ptr<AsrModel> WriteChineseIn(std::shared_ptr<AsrModel> recognizer,
                                         std::shared_ptr<const ZhScriptConverter> converter);

// One hypothesis in the converter's script, when it is Chinese:
//   * text: converted as a whole, so phrases convert in context (乾隆 stays,
//     頭髮 is 头发);
//   * words: each takes the converted characters at its place in the text when
//     the conversion kept the number of characters (it almost always does), else
//     it is converted alone;
//   * stable_prefix_chars: the same characters' bytes in the new text. A phrase
//     that joins the prefix's last characters to what follows may still change
//     them (OpenCC converts 乾 alone as 干 and keeps it in 乾隆): rare, and the
//     prefix is a promise to readers of `asr --json` only.
void ConvertHypothesis(const ZhScriptConverter& converter, AsrHypothesis& hypothesis);

}  // namespace lingcast
