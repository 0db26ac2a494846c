// Mandarin tone sandhi: the tones a speaker actually says (surface tones) from the
// lexical tones PinyinConverter gives, so synthesis sounds right ("你好" is said
// ni2 hao3). Pinyin output for users stays lexical; only speech uses this.
//
// Rules, applied in this order over the segmented words of one text:
//
// Prosodic groups. Han syllables separated by anything else (punctuation, spaces,
// Latin letters, digits) are in different groups; no rule looks across a group.
// Inside a group there is no further phrasing: a long run of 3rd tones without
// punctuation changes as one run (a real speaker may pause inside it).
//
// 不 (lexical bu4; a lexicon reading of bu5 or fou3 is kept):
//   - between two identical characters (A不A questions: 好不好, 是不是) -> bu5;
//   - before a 4th tone -> bu2 (不是 bu2, 不要 bu2, 不会 bu2), across word
//     boundaries too (我不去: 不 and 去 are separate words);
//   - otherwise bu4 (不好 bu4 hao3, 不吃, 不来, at the end of a group).
//
// 一 (lexical yi1), the first rule that matches wins:
//   - between two identical characters (看一看, 想一想) -> yi5 (said light);
//   - after 第 (ordinals: 第一) -> yi1;
//   - last character of a word of two or more characters (统一, 唯一, 万一) -> yi1;
//   - inside a number: after 零〇一二三四五六七八九十 (十一, 二十一, 一一零),
//     before 零〇一二三四五六七八九 (一一零, 一二三), or after 百千万亿 when a
//     numeral or the group end follows (一百一十, 三千一) -> yi1. A leading 一 of
//     a number changes as usual: 一百 yi4 bai3, 一千 yi4, 一万 yi2;
//   - before a 4th tone -> yi2 (一个, 一下, 一样, 一定);
//   - before a 1st, 2nd or 3rd tone -> yi4 (一天, 一年, 一起, 一百);
//   - at the end of a group -> yi1.
//
// For 一 and 不 the following syllable's tone is its citation tone: a neutral
// syllable (不是 = bu4 shi5 in the lexicon) counts with the tone of the same
// syllable among the character's readings (shi4), so 不是 -> bu2 shi5. The neutral
// syllable itself stays neutral.
//
// 3-3 (third-tone sandhi), after 一 and 不: in each maximal run of consecutive 3rd
// tones inside a group,
//   - inside a word, every 3rd tone but the word's last in the run -> 2nd
//     (你好 ni2 hao3, 展览馆 zhan2 lan2 guan3);
//   - at a word boundary, the last syllable of the left word -> 2nd when the right
//     word's first syllable is still 3rd after the in-word step; so a run of
//     single-character words changes all but its last (我很好 wo2 hen2 hao3), and a
//     single syllable before a 3-3 word keeps its tone (小老虎 xiao3 lao2 hu3).
//   Neutral syllables (5) are never changed and end a run (姐姐 jie3 jie5).
//
// Limits: no phrasing from syntax (long runs change as a whole, as above); a
// neutral syllable whose citation tone is 3rd does not trigger 3-3 (想想 is taken
// as the lexicon gives it); 一 in dates and ordinals without 第 (一月, 一楼) and in
// digit strings the normalizer writes with 幺 are not special-cased; 七/八 sandhi
// (old-fashioned) is not applied.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text/pinyin.h"

namespace lingcast {

// The surface reading of each Han syllable of `words` (as returned by
// `lexicon.Segment(text)`), in order: one entry per syllable, "letters + tone
// digit" like the lexical readings; an unknown (empty) reading stays empty.
// `lexicon` provides citation tones of neutral syllables.
std::vector<std::string> ApplyToneSandhi(const std::vector<PinyinWord>& words, std::string_view text,
                                         const PinyinConverter& lexicon);

// Tone digit (1-5) of a reading like "hao3"; 0 when it has none (empty or malformed).
int ToneOf(std::string_view syllable);

}  // namespace lingcast
