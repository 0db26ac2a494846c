#include "lipsync/phoneme_shapes.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

namespace lingcast {
namespace {

using Codepoints = std::u32string;

// Decodes UTF-8; a malformed byte becomes U+FFFD so it is classified as unknown
// instead of being silently merged with its neighbours.
Codepoints DecodeUtf8(std::string_view s) {
  Codepoints out;
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    int len = 0;
    char32_t cp = 0;
    if (b0 < 0x80) {
      len = 1;
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      len = 2;
      cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3;
      cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4;
      cp = b0 & 0x07;
    }
    bool ok = len > 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (!ok) {
      out.push_back(U'\uFFFD');
      ++i;
      continue;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

void AppendUtf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Marks that ride on a phoneme without changing the lip shape: stress, length,
// tones, combining diacritics, espeak's zero-width joiners and its "." after
// retroflex symbols, aspiration and palatalization superscripts.
bool IsIgnorableMark(char32_t c) {
  if (c >= U'0' && c <= U'9') return true;              // tone numbers
  if (c >= 0x0300 && c <= 0x036F) return true;          // combining diacritics, tie bars
  if (c >= 0x02E5 && c <= 0x02E9) return true;          // tone letters ˥˦˧˨˩
  switch (c) {
    case 0x02C8: case 0x02CC:                           // ˈ ˌ
    case 0x02D0: case 0x02D1:                           // ː ˑ
    case 0x200D: case 0x200C:                           // zero-width (non-)joiner
    case 0x02B0: case 0x02B2: case 0x02B7:              // ʰ ʲ ʷ
    case 0x02DE:                                        // ˞ (rhotic hook: handled as plain vowel)
    case U'.': case U'\'': case U'-': case U'`': case U' ':
      return true;
    default:
      return false;
  }
}

struct VowelEntry {
  char32_t symbol;
  Viseme shape;
  bool high;  // close vowels act as glides at the start of a diphthong ("ia", "ua")
};

// Vowels by the lip shape they show: spread/slightly open (B), open (C),
// wide open (D), rounded open (E), puckered (F).
constexpr std::array kVowels = {
    VowelEntry{U'i', Viseme::kB, true},   VowelEntry{U'ɪ', Viseme::kB, true},
    VowelEntry{U'ɨ', Viseme::kB, true},   VowelEntry{U'ɯ', Viseme::kB, true},
    VowelEntry{U'ə', Viseme::kB, false},  VowelEntry{U'ɘ', Viseme::kB, false},
    VowelEntry{U'e', Viseme::kC, false},  VowelEntry{U'ɛ', Viseme::kC, false},
    VowelEntry{U'æ', Viseme::kC, false},  VowelEntry{U'ʌ', Viseme::kC, false},
    VowelEntry{U'ɐ', Viseme::kC, false},  VowelEntry{U'ɤ', Viseme::kC, false},
    VowelEntry{U'a', Viseme::kD, false},  VowelEntry{U'ɑ', Viseme::kD, false},
    VowelEntry{U'ɶ', Viseme::kD, false},  VowelEntry{U'ɒ', Viseme::kE, false},
    VowelEntry{U'ɔ', Viseme::kE, false},  VowelEntry{U'o', Viseme::kE, false},
    VowelEntry{U'ɜ', Viseme::kE, false},  VowelEntry{U'ɚ', Viseme::kE, false},
    VowelEntry{U'ɝ', Viseme::kE, false},  VowelEntry{U'ø', Viseme::kE, false},
    VowelEntry{U'œ', Viseme::kE, false},  VowelEntry{U'ɵ', Viseme::kE, false},
    VowelEntry{U'ɞ', Viseme::kE, false},  VowelEntry{U'ʊ', Viseme::kF, true},
    VowelEntry{U'u', Viseme::kF, true},   VowelEntry{U'ʉ', Viseme::kF, true},
    VowelEntry{U'y', Viseme::kF, true},   VowelEntry{U'ʏ', Viseme::kF, true},
};

std::optional<VowelEntry> FindVowel(char32_t c) {
  for (const VowelEntry& v : kVowels) {
    if (v.symbol == c) return v;
  }
  return std::nullopt;
}

struct ConsonantEntry {
  std::u32string_view symbol;
  Viseme shape;
};

// Affricates are listed whole so "tʃ" is one B, not t + ʃ.
constexpr std::array kConsonants = {
    // lips closed
    ConsonantEntry{U"m", Viseme::kA}, ConsonantEntry{U"b", Viseme::kA},
    ConsonantEntry{U"p", Viseme::kA}, ConsonantEntry{U"ɓ", Viseme::kA},
    // lower lip under the upper teeth
    ConsonantEntry{U"f", Viseme::kG}, ConsonantEntry{U"v", Viseme::kG},
    ConsonantEntry{U"ɱ", Viseme::kG}, ConsonantEntry{U"ʋ", Viseme::kG},
    ConsonantEntry{U"pf", Viseme::kG},
    // tongue visible: up behind the teeth (l) or between them (th)
    ConsonantEntry{U"l", Viseme::kH}, ConsonantEntry{U"ɫ", Viseme::kH},
    ConsonantEntry{U"ɭ", Viseme::kH}, ConsonantEntry{U"ɬ", Viseme::kH},
    ConsonantEntry{U"ɮ", Viseme::kH}, ConsonantEntry{U"θ", Viseme::kH},
    ConsonantEntry{U"ð", Viseme::kH},
    // lips rounded
    ConsonantEntry{U"w", Viseme::kF}, ConsonantEntry{U"ʍ", Viseme::kF},
    ConsonantEntry{U"ɥ", Viseme::kF}, ConsonantEntry{U"ɹ", Viseme::kE},
    ConsonantEntry{U"r", Viseme::kE}, ConsonantEntry{U"ɻ", Viseme::kE},
    // teeth together, lips slightly apart
    ConsonantEntry{U"t", Viseme::kB}, ConsonantEntry{U"d", Viseme::kB},
    ConsonantEntry{U"n", Viseme::kB}, ConsonantEntry{U"s", Viseme::kB},
    ConsonantEntry{U"z", Viseme::kB}, ConsonantEntry{U"ʃ", Viseme::kB},
    ConsonantEntry{U"ʒ", Viseme::kB}, ConsonantEntry{U"tʃ", Viseme::kB},
    ConsonantEntry{U"dʒ", Viseme::kB}, ConsonantEntry{U"k", Viseme::kB},
    ConsonantEntry{U"ɡ", Viseme::kB}, ConsonantEntry{U"g", Viseme::kB},
    ConsonantEntry{U"ŋ", Viseme::kB}, ConsonantEntry{U"j", Viseme::kB},
    ConsonantEntry{U"ç", Viseme::kB}, ConsonantEntry{U"ʝ", Viseme::kB},
    ConsonantEntry{U"ɲ", Viseme::kB}, ConsonantEntry{U"ɕ", Viseme::kB},
    ConsonantEntry{U"ʑ", Viseme::kB}, ConsonantEntry{U"tɕ", Viseme::kB},
    ConsonantEntry{U"dʑ", Viseme::kB}, ConsonantEntry{U"ts", Viseme::kB},
    ConsonantEntry{U"dz", Viseme::kB}, ConsonantEntry{U"ʂ", Viseme::kB},
    ConsonantEntry{U"ʐ", Viseme::kB}, ConsonantEntry{U"ʈʂ", Viseme::kB},
    ConsonantEntry{U"ɖʐ", Viseme::kB}, ConsonantEntry{U"ʈ", Viseme::kB},
    ConsonantEntry{U"ɖ", Viseme::kB}, ConsonantEntry{U"ɳ", Viseme::kB},
    ConsonantEntry{U"c", Viseme::kB}, ConsonantEntry{U"ɟ", Viseme::kB},
    ConsonantEntry{U"ɾ", Viseme::kB}, ConsonantEntry{U"q", Viseme::kB},
    ConsonantEntry{U"ɢ", Viseme::kB}, ConsonantEntry{U"ʎ", Viseme::kB},
};

// Sounds made in the throat or at the back of the mouth; the lips keep
// whatever shape the neighbouring vowel gives them.
constexpr std::u32string_view kTransparent = U"hɦxχɣʁħʕʔ";

std::optional<Viseme> FindConsonant(std::u32string_view s) {
  for (const ConsonantEntry& c : kConsonants) {
    if (c.symbol == s) return c.shape;
  }
  return std::nullopt;
}

Codepoints StripMarks(const Codepoints& in) {
  Codepoints out;
  for (char32_t c : in) {
    if (!IsIgnorableMark(c)) out.push_back(c);
  }
  // Mandarin aspiration is spelled with a trailing "h" ("tɕh", "ph", "ts.h").
  if (out.size() >= 2 && out.back() == U'h' && !FindVowel(out[out.size() - 2])) out.pop_back();
  return out;
}

// Splits a run of vowels into shapes. A leading close vowel before a more open
// one is a glide ("iɑ", "ua", "yɛ": Mandarin medials) and gets a short share;
// otherwise the first vowel is the nucleus ("aɪ", "oʊ") and gets the larger one.
std::vector<ShapePart> VowelParts(const std::vector<VowelEntry>& vowels) {
  std::vector<Viseme> shapes;
  for (size_t i = 0; i < vowels.size(); ++i) {
    Viseme s = vowels[i].shape;
    // A central vowel gliding into a rounded one ("əʊ") already rounds the lips.
    if ((vowels[i].symbol == U'ə' || vowels[i].symbol == U'ɐ') && i + 1 < vowels.size() &&
        vowels[i + 1].shape == Viseme::kF) {
      s = Viseme::kE;
    }
    shapes.push_back(s);
  }
  std::vector<int> weights(vowels.size(), 1000 / static_cast<int>(vowels.size()));
  if (vowels.size() == 2) {
    const bool glide_first = vowels[0].high && !vowels[1].high;
    weights = glide_first ? std::vector<int>{300, 700} : std::vector<int>{600, 400};
  } else if (vowels.size() == 3) {
    weights = vowels[0].high ? std::vector<int>{300, 450, 250} : std::vector<int>{500, 250, 250};
  }
  std::vector<ShapePart> parts;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!parts.empty() && parts.back().shape == shapes[i]) {
      parts.back().share_permille += weights[i];
    } else {
      parts.push_back({shapes[i], weights[i]});
    }
  }
  // Shares must add up to exactly 1000 whatever the rounding above did.
  int total = 0;
  for (const ShapePart& p : parts) total += p.share_permille;
  parts.back().share_permille += 1000 - total;
  return parts;
}

}  // namespace

std::string StripPhonemeMarks(std::string_view ipa) {
  std::string out;
  for (char32_t c : StripMarks(DecodeUtf8(ipa))) AppendUtf8(c, out);
  return out;
}

PhonemeShape ShapeOfPhoneme(std::string_view ipa) {
  PhonemeShape result;
  if (ipa == "_") {
    result.kind = PhonemeKind::kPause;
    return result;
  }
  // espeak-ng reports language switches as "(en)", "(cmn)".
  if (!ipa.empty() && ipa.front() == '(' && ipa.back() == ')') return result;

  const Codepoints s = StripMarks(DecodeUtf8(ipa));
  if (s.empty()) return result;  // only stress/tone marks: nothing for the lips

  if (s.size() == 1 && kTransparent.find(s[0]) != std::u32string_view::npos) {
    result.kind = PhonemeKind::kTransparent;
    return result;
  }
  if (std::optional<Viseme> c = FindConsonant(s)) {
    result.kind = PhonemeKind::kConsonant;
    result.parts = {{*c, 1000}};
    result.bilabial = *c == Viseme::kA;
    return result;
  }

  std::vector<VowelEntry> vowels;
  bool all_vowels = true;
  for (char32_t c : s) {
    if (std::optional<VowelEntry> v = FindVowel(c)) {
      vowels.push_back(*v);
    } else {
      all_vowels = false;
    }
  }
  if (all_vowels) {
    result.kind = PhonemeKind::kVowel;
    result.parts = VowelParts(vowels);
    return result;
  }
  // A vowel with an r-colouring ("ər", Mandarin er) rounds the lips.
  if (!vowels.empty() && (s.back() == U'r' || s.back() == U'ɹ' || s.back() == U'ɻ')) {
    result.kind = PhonemeKind::kVowel;
    result.parts = {{Viseme::kE, 1000}};
    return result;
  }
  // Unknown: decide by the first symbol, vowel -> its shape or C, anything else -> B.
  result.recognized = false;
  if (std::optional<VowelEntry> v = FindVowel(s[0])) {
    result.kind = PhonemeKind::kVowel;
    result.parts = {{v->shape, 1000}};
  } else if (std::optional<Viseme> c = FindConsonant(s.substr(0, 1))) {
    result.kind = PhonemeKind::kConsonant;
    result.parts = {{*c, 1000}};
    result.bilabial = *c == Viseme::kA;
  } else if (std::u32string_view(U"AEIOUYaeiouyäöüÄÖÜ").find(s[0]) != std::u32string_view::npos) {
    result.kind = PhonemeKind::kVowel;
    result.parts = {{Viseme::kC, 1000}};
  } else {
    result.kind = PhonemeKind::kConsonant;
    result.parts = {{Viseme::kB, 1000}};
  }
  return result;
}

namespace {

struct ArpabetEntry {
  std::string_view phone;
  PhonemeKind kind;
  std::array<ShapePart, 2> parts;  // second part unused when its share is 0
};

constexpr ShapePart Whole(Viseme v) { return {v, 1000}; }
constexpr ShapePart None() { return {Viseme::kX, 0}; }

// The 39 CMUdict phones. Vowels follow the IPA table above (AA = ɑ, AE = æ ...);
// AH is split by stress below (AH0 is the schwa, B; stressed AH is ʌ, C).
// Diphthongs travel like their IPA spelling: AY = aɪ, OW = oʊ.
constexpr std::array kArpabet = {
    ArpabetEntry{"AA", PhonemeKind::kVowel, {Whole(Viseme::kD), None()}},
    ArpabetEntry{"AE", PhonemeKind::kVowel, {Whole(Viseme::kC), None()}},
    ArpabetEntry{"AH", PhonemeKind::kVowel, {Whole(Viseme::kC), None()}},
    ArpabetEntry{"AO", PhonemeKind::kVowel, {Whole(Viseme::kE), None()}},
    ArpabetEntry{"AW", PhonemeKind::kVowel, {ShapePart{Viseme::kD, 600}, ShapePart{Viseme::kF, 400}}},
    ArpabetEntry{"AY", PhonemeKind::kVowel, {ShapePart{Viseme::kD, 600}, ShapePart{Viseme::kB, 400}}},
    ArpabetEntry{"EH", PhonemeKind::kVowel, {Whole(Viseme::kC), None()}},
    ArpabetEntry{"ER", PhonemeKind::kVowel, {Whole(Viseme::kE), None()}},
    ArpabetEntry{"EY", PhonemeKind::kVowel, {ShapePart{Viseme::kC, 600}, ShapePart{Viseme::kB, 400}}},
    ArpabetEntry{"IH", PhonemeKind::kVowel, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"IY", PhonemeKind::kVowel, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"OW", PhonemeKind::kVowel, {ShapePart{Viseme::kE, 600}, ShapePart{Viseme::kF, 400}}},
    ArpabetEntry{"OY", PhonemeKind::kVowel, {ShapePart{Viseme::kE, 600}, ShapePart{Viseme::kB, 400}}},
    ArpabetEntry{"UH", PhonemeKind::kVowel, {Whole(Viseme::kF), None()}},
    ArpabetEntry{"UW", PhonemeKind::kVowel, {Whole(Viseme::kF), None()}},
    ArpabetEntry{"B", PhonemeKind::kConsonant, {Whole(Viseme::kA), None()}},
    ArpabetEntry{"M", PhonemeKind::kConsonant, {Whole(Viseme::kA), None()}},
    ArpabetEntry{"P", PhonemeKind::kConsonant, {Whole(Viseme::kA), None()}},
    ArpabetEntry{"F", PhonemeKind::kConsonant, {Whole(Viseme::kG), None()}},
    ArpabetEntry{"V", PhonemeKind::kConsonant, {Whole(Viseme::kG), None()}},
    ArpabetEntry{"L", PhonemeKind::kConsonant, {Whole(Viseme::kH), None()}},
    ArpabetEntry{"TH", PhonemeKind::kConsonant, {Whole(Viseme::kH), None()}},
    ArpabetEntry{"DH", PhonemeKind::kConsonant, {Whole(Viseme::kH), None()}},
    ArpabetEntry{"W", PhonemeKind::kConsonant, {Whole(Viseme::kF), None()}},
    ArpabetEntry{"R", PhonemeKind::kConsonant, {Whole(Viseme::kE), None()}},
    ArpabetEntry{"CH", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"D", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"G", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"JH", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"K", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"N", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"NG", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"S", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"SH", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"T", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"Y", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"Z", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"ZH", PhonemeKind::kConsonant, {Whole(Viseme::kB), None()}},
    ArpabetEntry{"HH", PhonemeKind::kTransparent, {None(), None()}},
};

}  // namespace

PhonemeShape ShapeOfArpabet(std::string_view phone) {
  PhonemeShape result;
  std::string name;
  char stress = 0;
  for (char c : phone) {
    if (c >= '0' && c <= '9') {
      stress = c;
    } else if (c >= 'a' && c <= 'z') {
      name.push_back(static_cast<char>(c - 'a' + 'A'));
    } else {
      name.push_back(c);
    }
  }
  if (name.empty()) return result;  // a lone stress digit
  if (name == "SIL" || name == "SP" || name == "_" || name.front() == '+' || name.front() == '<' ||
      name.front() == '[') {
    result.kind = PhonemeKind::kPause;
    return result;
  }
  for (const ArpabetEntry& entry : kArpabet) {
    if (entry.phone != name) continue;
    result.kind = entry.kind;
    for (const ShapePart& part : entry.parts) {
      if (part.share_permille > 0) result.parts.push_back(part);
    }
    // Unstressed AH is the schwa: barely open, like IPA ə.
    if (name == "AH" && stress == '0') result.parts = {{Viseme::kB, 1000}};
    result.bilabial = result.kind == PhonemeKind::kConsonant && result.parts[0].shape == Viseme::kA;
    return result;
  }
  result.recognized = false;
  if (std::string_view("AEIOU").find(name.front()) != std::string_view::npos) {
    result.kind = PhonemeKind::kVowel;
    result.parts = {{Viseme::kC, 1000}};
  } else {
    result.kind = PhonemeKind::kConsonant;
    result.parts = {{Viseme::kB, 1000}};
  }
  return result;
}

PhonemeShape ShapeOf(std::string_view phoneme, PhoneAlphabet alphabet) {
  return alphabet == PhoneAlphabet::kArpabet ? ShapeOfArpabet(phoneme) : ShapeOfPhoneme(phoneme);
}

}  // namespace lingcast
