#!/usr/bin/env python3
"""Builds lingcast's compact Mandarin lexicon from pypinyin-dict's package data.

Sources (shipped in the `pypinyin-dict` PyPI package, installed into .venv by
scripts/install-deps.sh):
  * pinyin_data.pinyin       -- every character's readings (merged pinyin-data set)
  * pinyin_data.khanyupinlu  -- readings ordered by corpus frequency (Unihan kHanyuPinlu);
                                used to put a character's most common reading first
  * phrase_pinyin_data.pinyin -- phrase readings (merged phrase-pinyin-data set)
  * phrase_pinyin_data.cc_cedict -- CC-CEDICT phrase readings: adds phrases the merged
                                set lacks (行长) and the neutral tones it marks (衣服 yi1 fu5)
and from Debian's python3-jieba:
  * jieba/dict.txt            -- word frequencies, turned into segmentation costs so
                                the converter picks the likeliest words (孩子|长了, not
                                孩|子长|了; 还没|收到, not 还|没收|到)

Output: a UTF-8 TSV file that the C++ PinyinConverter reads (src/text/pinyin.h):
  # comment lines
  C<TAB>行<TAB>xing2,hang2,heng2<TAB>62   character: readings, most common first; cost
  P<TAB>银行<TAB>yin2 hang2<TAB>94         phrase: one syllable per character; cost
The cost is round(10 * ln(total / frequency)) from jieba's counts (frequency 1 when
jieba does not know the word): segmentation minimizes the sum over its words.
Syllables use tone digits 1-5 (5 = neutral) and `v` for ü (lv4, nv3).
Readings are lexical: the sources' tone-sandhi spellings of 一 and 不 (一个 yí gè,
不要 bú yào) are undone to yi1 / bu4, because lingcast applies sandhi itself.

Corrections of our own (small, each with its reason, in the tables below):
  * STANDALONE: the reading of a character standing alone as a word, put first.
    kHanyuPinlu orders readings by frequency over all text, compounds included, so
    教 (教育, 教师: jiao4) and 数 (数字, 数学: shu4) come first, while alone they are
    the verbs jiao1 and shu3; compounds keep their own phrase readings.
  * PHRASE_READINGS: a phrase whose sources put a rarer sense first (东西 "thing").
  * LEXICAL_TONE_KEPT: characters whose lexical tone is kept where CC-CEDICT writes a
    neutral tone; the measure word 个 is ge4 in 这个, 那个, 几个 as in 一个, 两个.

To stay small the file keeps only the phrases that matter: those whose reading
differs from their characters' primary readings, plus phrases with the primary
readings that contain a character which some kept phrase reads differently (they
compete in segmentation, e.g. 行走 against 在行), plus the phrases jieba has seen at
least MIN_COMPETITOR_COUNT times (common words that out-compete rare ones: 收到 vs 没收).
"""
import argparse
import math
import os
import sys
import unicodedata

TONE_MARKS = {"\u0304": 1, "\u0301": 2, "\u030c": 3, "\u0300": 4}


def to_tone_digits(syllable: str) -> str:
    """'hǎng' -> 'hang3', 'lǜ' -> 'lv4', 'de' -> 'de5'."""
    tone = 5
    out = []
    for ch in unicodedata.normalize("NFD", syllable.strip().lower()):
        if ch in TONE_MARKS:
            tone = TONE_MARKS[ch]
        elif ch == "\u0308":  # diaeresis: u + ¨ is ü
            if out and out[-1] == "u":
                out[-1] = "v"
        elif ch == "ü":
            out.append("v")
        elif "a" <= ch <= "z":
            out.append(ch)
        else:
            raise ValueError(f"unexpected character {ch!r} in pinyin {syllable!r}")
    if not out:
        raise ValueError(f"empty pinyin syllable {syllable!r}")
    return "".join(out) + str(tone)


def load_characters():
    from pypinyin_dict.pinyin_data import pinyin as merged
    from pypinyin_dict.pinyin_data import khanyupinlu as by_frequency
    chars = {}
    for code, readings in merged.pinyin_dict.items():
        syllables = []
        for r in readings.split(","):
            try:
                s = to_tone_digits(r)
            except ValueError:
                continue
            if s not in syllables:
                syllables.append(s)
        if syllables:
            chars[chr(code)] = syllables
    for code, readings in by_frequency.pinyin_dict.items():
        ch = chr(code)
        frequent = [to_tone_digits(r) for r in readings.split(",")]
        # The most frequent reading first; neutral-tone readings (的 de5) count too.
        rest = [s for s in chars.get(ch, []) if s not in frequent]
        chars[ch] = list(dict.fromkeys(frequent + rest))
    for ch, reading in STANDALONE.items():
        chars[ch] = [reading] + [s for s in chars[ch] if s != reading]
    return chars


LEXICAL_TONE = {"一": "yi1", "不": "bu4"}

STANDALONE = {
    "教": "jiao1",  # 教他唱歌 (教育, 教师 are phrases: jiao4)
    "切": "qie1",   # 切开, 切菜 (一切, 切实: qie4)
    "数": "shu3",   # 数一数, 数钱 (数学, 数字: shu4)
    "西": "xi1",    # 从西向东 (东西 "thing" is the phrase reading xi5)
    "种": "zhong4", # 种花, 种树 (这种, 一种, 各种: zhong3; after numerals the measure rule)
    "量": "liang2", # 量一下尺寸 (数量, 质量, 容量: liang4)
}

PHRASE_READINGS = {
    "东西": ["dong1", "xi5"],  # "thing"; the direction is in 东西方, 东西向, 东西南北
}

LEXICAL_TONE_KEPT = {"个": "ge4"}

MIN_COMPETITOR_COUNT = 10


def lexical(phrase, syllables):
    """Undoes the sources' sandhi spellings of 一 and 不 (neutral 不 stays: 对不起)."""
    out = []
    for ch, s in zip(phrase, syllables):
        if ch in LEXICAL_TONE and not s.endswith("5"):
            s = LEXICAL_TONE[ch]
        out.append(s)
    return out


def parse_phrases(phrases_dict, chars):
    """{phrase: [[alternatives per syllable] ...]} in tone digits; bad entries dropped."""
    out = {}
    for phrase, readings in phrases_dict.items():
        if len(phrase) < 2 or len(readings) != len(phrase):
            continue
        if any(ch not in chars for ch in phrase):
            continue
        try:
            out[phrase] = [[to_tone_digits(r) for r in alts] for alts in readings]
        except ValueError:
            continue
    return out


def load_phrases(chars):
    from pypinyin_dict.phrase_pinyin_data import pinyin as merged
    from pypinyin_dict.phrase_pinyin_data import cc_cedict
    base = parse_phrases(merged.phrases_dict, chars)
    cedict = parse_phrases(cc_cedict.phrases_dict, chars)
    out = {}
    for phrase, alts in base.items():
        syllables = [a[0] for a in alts]
        # CC-CEDICT marks neutral tones the merged set spells with a full tone
        # (意思 yi4 si1 -> yi4 si5); a word's first syllable is never neutral.
        for k, other in enumerate(cedict.get(phrase, [])[1:], start=1):
            neutral = syllables[k][:-1] + "5"
            if neutral in other and phrase[k] not in LEXICAL_TONE_KEPT:
                syllables[k] = neutral
        out[phrase] = lexical(phrase, syllables)
    for phrase, alts in cedict.items():
        if phrase not in out:
            out[phrase] = lexical(phrase, [a[0] for a in alts])
    for phrase, syllables in out.items():
        for k, ch in enumerate(phrase):
            if k > 0 and ch in LEXICAL_TONE_KEPT and syllables[k].endswith("5"):
                syllables[k] = LEXICAL_TONE_KEPT[ch]
    for phrase, syllables in PHRASE_READINGS.items():
        out[phrase] = list(syllables)
    return out


def select_phrases(chars, phrases):
    def differs(phrase, syllables):
        return any(chars[ch][0] != s for ch, s in zip(phrase, syllables))

    kept = {p: s for p, s in phrases.items() if differs(p, s)}
    contested = set()
    for phrase, syllables in kept.items():
        for ch, s in zip(phrase, syllables):
            if chars[ch][0] != s:
                contested.add(ch)
    for phrase, syllables in phrases.items():
        if phrase not in kept and any(ch in contested for ch in phrase):
            kept[phrase] = syllables
    return kept


def load_word_counts(path):
    """{word: count} from jieba's dict.txt ("word count part-of-speech" per line)."""
    counts = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            fields = line.split()
            if len(fields) < 2 or not fields[1].isdigit():
                sys.exit(f"build_lexicon: {path}:{number}: expected 'word count [tag]'")
            counts[fields[0]] = int(fields[1])
    return counts


def costs(counts, words):
    """Segmentation cost of each word: round(10 * ln(total / count)), count >= 1."""
    total = sum(counts.values())
    return {w: round(10 * math.log(total / max(counts.get(w, 1), 1))) for w in words}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, help="lexicon TSV to write")
    parser.add_argument("--word-counts", required=True, help="jieba's dict.txt (python3-jieba)")
    args = parser.parse_args()
    try:
        counts = load_word_counts(args.word_counts)
    except OSError as e:
        sys.exit(f"build_lexicon: cannot read word counts {args.word_counts} ({e.strerror}); "
                 "install python3-jieba (scripts/install-deps.sh)")
    try:
        chars = load_characters()
        all_phrases = load_phrases(chars)
        phrases = select_phrases(chars, all_phrases)
    except ImportError as e:
        sys.exit(f"build_lexicon: cannot import pypinyin-dict ({e}); "
                 "run scripts/install-deps.sh to create .venv with it")
    for phrase, syllables in all_phrases.items():
        if counts.get(phrase, 0) >= MIN_COMPETITOR_COUNT:
            phrases.setdefault(phrase, syllables)
    cost = costs(counts, list(chars) + list(phrases))
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("# lingcast Mandarin lexicon v2, generated by tools/build_lexicon.py "
                "from pypinyin-dict and jieba data; do not edit.\n")
        f.write("# C<TAB>char<TAB>readings (most common first)<TAB>cost | "
                "P<TAB>phrase<TAB>syllables<TAB>cost\n")
        for ch in sorted(chars):
            f.write(f"C\t{ch}\t{','.join(chars[ch])}\t{cost[ch]}\n")
        for phrase in sorted(phrases):
            f.write(f"P\t{phrase}\t{' '.join(phrases[phrase])}\t{cost[phrase]}\n")
    os.replace(tmp, args.output)
    print(f"build_lexicon: {len(chars)} characters, {len(phrases)} phrases -> {args.output}")


if __name__ == "__main__":
    main()
