// Context rules for Mandarin readings that the words themselves do not decide.
//
// PinyinConverter gives a phrase its phrase reading and a single-character word its
// reading as a word alone. Some single characters read differently by what stands
// next to them; these rules look at the neighbouring words of the same run of Han
// characters (punctuation ends a run) and change single-character words (and 地方):
//
//   measure words   个 ge4, 只 zhi1, 种 zhong3 after a numeral (一 ... 十 百 千 万 两 几 半 多)
//                   or a demonstrative (这 那 哪 每 各 某 整): 两只狗, 三种颜色, 这只猫;
//   得 dei3         "must" before a verb, after a subject or an adverb (我得走了,
//                   你得努力, 我们还得等, 大家得注意); after a verb it stays de5 (跑得快);
//   长 chang2       the adjective after a degree word (很长, 太长了, 这么长, 有点长); otherwise
//                   the verb zhang3 (长了, 长出);
//   调 tiao2        "adjust" before a result or 一下 (调大, 调小, 调好, 调一下); otherwise diao4;
//   还 huan2        "give back" before 了 清 完 (还了我一本书, 还清); otherwise hai2;
//   背 bei1         "carry" before 着 起 (背着书包); otherwise bei4;
//   地方 fang1      "local" before 口音 政府 特色 官员 经济 小吃 ... (地方口音); otherwise
//                   the lexicon's "place" di4 fang5;
//   reduplication   X了X and X一X take the reading the lexicon gives X in XX or X一X
//                   (数了数, 数一数 -> shu3 from 数数).
//
// Each changed word names its rule in PinyinWord::rule. Limits: the rules see words,
// not syntax, so a subject far from 得 (他明天早上得走) or a degree word two words
// away (长得很长) is not recognized.
#pragma once

#include <span>
#include <string_view>

#include "text/pinyin.h"

namespace lingcast {

// `run` is one run of Han characters and `words` its segmented words, in order,
// covering it exactly.
void ApplyContextRules(const PinyinConverter& lexicon, std::u32string_view run, std::span<PinyinWord> words);

}  // namespace lingcast
