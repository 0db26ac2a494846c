#include "text/normalize_en.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "text/english_numbers.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr std::array<std::string_view, 12> kMonths = {"January", "February", "March",     "April",   "May",      "June",
                                                      "July",    "August",   "September", "October", "November", "December"};
constexpr int kMaxCardinalDigits = 15;

bool IsAsciiLetter(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsUpper(char32_t c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char32_t c) { return c >= 'a' && c <= 'z'; }
bool IsAsciiAlnum(char32_t c) { return IsAsciiLetter(c) || IsAsciiDigit(c); }
bool IsRangeSeparator(char32_t c) { return c == '-' || c == '~' || c == U'～' || c == U'–' || c == U'〜'; }
bool IsSentenceEnd(char32_t c) {
  return c == '.' || c == '!' || c == '?' || c == '\n' || c == U'。' || c == U'！' || c == U'？';
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

bool IsOneOf(std::string_view word, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// All-capital words that are read as words, not spelled: shouted commerce copy and
// acronyms said as words.
bool IsCapitalWordSaidAsWord(const std::string& lower) {
  return IsOneOf(lower, {"a",    "i",    "am",   "an",   "and",  "are",  "as",   "at",   "be",   "buy",  "by",
                         "can",  "do",   "for",  "get",  "go",   "he",   "hi",   "hot",  "if",   "in",   "is",
                         "it",   "me",   "my",   "new",  "no",   "not",  "now",  "of",   "off",  "oh",   "on",
                         "one",  "or",   "our",  "out",  "so",   "the",  "to",   "top",  "two",  "up",   "us",
                         "we",   "wow",  "yes",  "you",  "all",  "big",  "day",  "fun",  "hey",  "max",  "pro",
                         "air",  "mini", "plus", "lite", "sale", "free", "deal", "best", "only", "live", "shop",
                         "gift", "last", "just", "more", "less", "save", "fast", "now", "this", "that", "with",
                         "your", "from", "will", "have", "here", "what", "when", "love", "cool", "easy", "good",
                         "nasa", "nato", "ram",  "rom",  "sim",  "pin",  "lan",  "wan",  "lego", "ikea", "asus",
                         "sony", "jpeg", "gif",  "oled", "qled", "laser", "radar", "covid", "opec", "fifa",
                         "unesco", "edge", "neo", "ultra", "note", "wifi"});
}

std::string Spell(std::string_view letters) {
  std::string out;
  for (const char c : letters) {
    if (!out.empty()) out += ' ';
    out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return out;
}

struct Unit {
  std::u32string_view written;
  std::string_view singular;
  std::string_view plural;
};
// Case matters: "5G" is a network, not five grams; "5M" is not five meters.
constexpr std::array<Unit, 45> kUnits = {{
    {U"GB", "gigabyte", "gigabytes"},       {U"TB", "terabyte", "terabytes"},
    {U"MB", "megabyte", "megabytes"},       {U"KB", "kilobyte", "kilobytes"},
    {U"mAh", "milliamp hour", "milliamp hours"}, {U"kWh", "kilowatt hour", "kilowatt hours"},
    {U"Wh", "watt hour", "watt hours"},     {U"cm", "centimeter", "centimeters"},
    {U"mm", "millimeter", "millimeters"},   {U"km", "kilometer", "kilometers"},
    {U"nm", "nanometer", "nanometers"},     {U"m", "meter", "meters"},
    {U"kg", "kilogram", "kilograms"},       {U"mg", "milligram", "milligrams"},
    {U"g", "gram", "grams"},                {U"ml", "milliliter", "milliliters"},
    {U"mL", "milliliter", "milliliters"},   {U"L", "liter", "liters"},
    {U"°C", "degree Celsius", "degrees Celsius"}, {U"℃", "degree Celsius", "degrees Celsius"},
    {U"°F", "degree Fahrenheit", "degrees Fahrenheit"}, {U"℉", "degree Fahrenheit", "degrees Fahrenheit"},
    {U"°", "degree", "degrees"},            {U"kW", "kilowatt", "kilowatts"},
    {U"W", "watt", "watts"},                {U"V", "volt", "volts"},
    {U"GHz", "gigahertz", "gigahertz"},     {U"MHz", "megahertz", "megahertz"},
    {U"kHz", "kilohertz", "kilohertz"},     {U"Hz", "hertz", "hertz"},
    {U"ft", "foot", "feet"},                {U"oz", "ounce", "ounces"},
    {U"lbs", "pound", "pounds"},            {U"lb", "pound", "pounds"},
    {U"mph", "mile per hour", "miles per hour"}, {U"fps", "frame per second", "frames per second"},
    {U"hrs", "hour", "hours"},              {U"hr", "hour", "hours"},
    {U"h", "hour", "hours"},                {U"min", "minute", "minutes"},
    {U"sec", "second", "seconds"},          {U"ms", "millisecond", "milliseconds"},
    {U"pcs", "piece", "pieces"},            {U"pc", "piece", "pieces"},
    {U"\"", "inch", "inches"},
}};

struct Currency {
  std::string_view major_singular;
  std::string_view major_plural;
  std::string_view minor_singular;  // empty: amounts read with "point"
  std::string_view minor_plural;
};
constexpr Currency kDollar = {"dollar", "dollars", "cent", "cents"};
constexpr Currency kEuro = {"euro", "euros", "cent", "cents"};
constexpr Currency kPound = {"pound", "pounds", "penny", "pence"};
constexpr Currency kYuan = {"yuan", "yuan", "", ""};

const Currency* CurrencyOfSymbol(char32_t c) {
  switch (c) {
    case '$': return &kDollar;
    case U'€': return &kEuro;
    case U'£': return &kPound;
    case U'¥': case U'￥': return &kYuan;
    default: return nullptr;
  }
}

const Currency* CurrencyOfCode(std::string_view word) {
  if (IsOneOf(word, {"USD", "usd"})) return &kDollar;
  if (IsOneOf(word, {"EUR", "eur"})) return &kEuro;
  if (IsOneOf(word, {"GBP", "gbp"})) return &kPound;
  if (IsOneOf(word, {"RMB", "CNY", "rmb", "cny"})) return &kYuan;
  return nullptr;
}

struct Number {
  std::string integer;  // digits, thousands separators removed
  std::string fraction;
  bool has_fraction = false;
  bool grouped = false;  // written with thousands separators
  size_t begin = 0;      // code point indices [begin, end)
  size_t end = 0;
  bool IsOne() const { return integer == "1" && !has_fraction; }
};

class EnglishNormalizer {
 public:
  explicit EnglishNormalizer(std::string_view text) : text_(text), cps_(DecodeUtf8(text)) {}

  NormalizedText Run() {
    size_t i = 0;
    while (i < cps_.size()) {
      const size_t next = Rewrite(i);
      if (next > i) {
        i = next;
        continue;
      }
      // A word written against a spoken one ("5G" -> five G) gets a space.
      if (last_spoken_ && IsAsciiAlnum(cps_[i].value) && EndsWithAlnum()) Emit(" ", cps_[i].offset);
      last_spoken_ = false;
      Emit(text_.substr(cps_[i].offset, cps_[i].length), cps_[i].offset);
      ++i;
    }
    return std::move(result_);
  }

 private:
  char32_t At(size_t k) const { return k < cps_.size() ? cps_[k].value : 0; }
  bool DigitAt(size_t k) const { return IsAsciiDigit(At(k)); }
  int OffsetOf(size_t k) const { return k < cps_.size() ? cps_[k].offset : static_cast<int>(text_.size()); }
  bool EndsWithAlnum() const { return !result_.text.empty() && IsAsciiAlnum(static_cast<unsigned char>(result_.text.back())); }

  std::string Slice(size_t begin, size_t end) const {
    return std::string(text_.substr(OffsetOf(begin), OffsetOf(end) - OffsetOf(begin)));
  }

  void Emit(std::string_view piece, int source) {
    result_.text.append(piece);
    result_.source_offset.insert(result_.source_offset.end(), piece.size(), source);
  }

  // Emits spoken words, separated by a space from a word already written.
  void Say(std::string_view words, size_t source_index) {
    if (words.empty()) return;
    const int source = OffsetOf(source_index);
    if (EndsWithAlnum() && IsAsciiAlnum(static_cast<unsigned char>(words.front()))) Emit(" ", source);
    Emit(words, source);
    last_spoken_ = true;
  }

  // Letters [k, end) of the ASCII word at k.
  size_t WordEnd(size_t k) const {
    while (IsAsciiLetter(At(k))) ++k;
    return k;
  }

  // Index past the spaces at k (at most one space when `one_space`).
  size_t SkipSpace(size_t k, bool one_space = true) const {
    if (At(k) == ' ') return k + 1;
    while (!one_space && IsSpace(At(k))) ++k;
    return k;
  }

  Number ParseNumber(size_t k, bool allow_fraction = true) const {
    Number n;
    n.begin = k;
    while (DigitAt(k)) n.integer.push_back(static_cast<char>(At(k++)));
    // 1,299 is one number; "3,5" is a list.
    while (allow_fraction && n.integer.size() <= 3 && n.integer[0] != '0' && At(k) == ',' && DigitAt(k + 1) &&
           DigitAt(k + 2) && DigitAt(k + 3) && !DigitAt(k + 4)) {
      for (size_t j = k + 1; j <= k + 3; ++j) n.integer.push_back(static_cast<char>(At(j)));
      n.grouped = true;
      k += 4;
    }
    if (allow_fraction && At(k) == '.' && DigitAt(k + 1)) {
      n.has_fraction = true;
      ++k;
      while (DigitAt(k)) n.fraction.push_back(static_cast<char>(At(k++)));
    }
    n.end = k;
    return n;
  }

  static std::string Read(const Number& n) {
    std::string out;
    if ((n.integer.size() > 1 && n.integer[0] == '0') || n.integer.size() > kMaxCardinalDigits) {
      out = EnglishDigits(n.integer);
    } else {
      out = EnglishCardinal(std::stoull(n.integer));
    }
    if (n.has_fraction) out += " point " + EnglishDigits(n.fraction);
    return out;
  }

  const Unit* UnitAt(size_t k, size_t& end) const {
    const bool spaced = At(k) == ' ';
    if (spaced) ++k;
    for (const Unit& unit : kUnits) {
      const size_t n = unit.written.size();
      bool match = k + n <= cps_.size();
      for (size_t j = 0; match && j < n; ++j) match = cps_[k + j].value == unit.written[j];
      if (!match || IsAsciiAlnum(At(k + n))) continue;
      // One-letter units and symbols are written against the number: "5 m" may be prose.
      if (spaced && (n == 1 || unit.written[0] == U'°' || unit.written == U"pc")) continue;
      end = k + n;
      return &unit;
    }
    return nullptr;
  }

  // ---- the rules -------------------------------------------------------------

  size_t Rewrite(size_t i) {
    const char32_t c = At(i);
    const char32_t prev = i > 0 ? At(i - 1) : 0;
    if (CurrencyOfSymbol(c) != nullptr && DigitAt(i + 1)) return Money(i);
    if (c == '#' && DigitAt(i + 1) && !IsAsciiAlnum(prev)) {
      Say("number", i);
      return i + 1;
    }
    if ((c == '-' || c == U'−') && DigitAt(i + 1) && (i == 0 || IsSpace(prev) || prev == '(')) {
      Say("minus", i);
      return i + 1;
    }
    if (c == '(' && DigitAt(i + 1)) return ParenthesizedPhone(i);
    if (c == '/' && last_spoken_ && IsAsciiLetter(At(i + 1))) {  // $49.99/month, 5kg/box
      Say("per", i);
      return i + 1;
    }
    if (c == '+') {
      if (size_t k = InternationalPhone(i); k > i) return k;
      if (IsAsciiAlnum(prev) || prev == '+' || DigitAt(i + 1) || (prev == ' ' && At(i + 1) == ' ')) {
        Say("plus", i);
        return i + 1;
      }
      return i;
    }
    if (c == '&' && (IsAsciiAlnum(prev) || prev == ' ') && (IsAsciiAlnum(At(i + 1)) || At(i + 1) == ' ')) {
      Say("and", i);
      return i + 1;
    }
    if (IsAsciiLetter(c) && !IsAsciiAlnum(prev)) return Word(i);
    if (DigitAt(i) && !IsAsciiAlnum(prev) && !(prev == '.' && DigitAt(i - 2))) return NumberAt(i);
    return i;
  }

  // ---- words -----------------------------------------------------------------

  size_t Word(size_t i) {
    if (size_t k = WebAddress(i); k > i) return k;
    const size_t end = WordEnd(i);
    const std::string word = Slice(i, end);
    const std::string lower = Lower(word);
    if (size_t k = DottedAbbreviation(i); k > i) return k;
    if (size_t k = Abbreviation(i, end, word, lower); k > i) return k;
    if (size_t k = MonthDate(i, end, word); k > i) return k;
    if (DigitAt(end)) return ModelToken(i);
    if (word == "OK") {
      Say("okay", i);
      return end;
    }
    if (word == "w" && At(end) == '/' && !IsAsciiAlnum(At(end + 1))) {
      Say("with", i);
      return end + 1;
    }
    const bool all_capitals = std::all_of(word.begin(), word.end(), [](char ch) { return IsUpper(ch); });
    if (all_capitals && word.size() >= 2 && !IsLower(At(end))) {
      const bool joined = At(end) == '&' || (i > 0 && At(i - 1) == '&');  // AT&T
      if (word.size() <= 4 && (joined || !IsCapitalWordSaidAsWord(lower))) {
        Say(Spell(word), i);
      } else {
        Say(lower, i);  // a shouted word (SALE, HURRY) is an ordinary word
      }
      return HyphenToSpace(end);
    }
    // Type-C, GPT-4 (after the acronym above), COVID-19: the hyphen is a space.
    if (last_spoken_ && EndsWithAlnum()) Emit(" ", OffsetOf(i));
    Emit(word, OffsetOf(i));
    last_spoken_ = false;
    if (At(end) == '-' && (DigitAt(end + 1) || (IsUpper(At(end + 1)) && !IsAsciiLetter(At(end + 2))))) {
      return HyphenToSpace(end);
    }
    return end;
  }

  // The hyphen at k (USB-C, GPT-4) becomes a space; returns where to go on.
  size_t HyphenToSpace(size_t k) {
    if (At(k) == '-' && IsAsciiAlnum(At(k + 1))) {
      Emit(" ", OffsetOf(k));
      last_spoken_ = false;
      return k + 1;
    }
    return k;
  }

  // "e.g." "i.e." "U.S." "a.m." (letters each followed by a period).
  size_t DottedAbbreviation(size_t i) {
    size_t k = i;
    std::string letters;
    while (IsAsciiLetter(At(k)) && At(k + 1) == '.' && IsAsciiLetter(At(k + 2))) {
      letters.push_back(static_cast<char>(At(k)));
      k += 2;
    }
    if (IsAsciiLetter(At(k)) && At(k + 1) == '.' && !IsAsciiAlnum(At(k + 2))) {
      letters.push_back(static_cast<char>(At(k)));
      k += 2;
    } else {
      return i;
    }
    if (letters.size() < 2) return i;
    const std::string lower = Lower(letters);
    Say(lower == "eg" ? "for example" : lower == "ie" ? "that is" : Spell(letters), i);  // U.S. -> U S
    return KeepSentencePeriod(k);
  }

  // After an abbreviation that swallowed its period at k-1: a period that also ends the
  // sentence (before a capital, a Han character or the end) is given back.
  size_t KeepSentencePeriod(size_t k) {
    const size_t next = SkipSpace(k, false);
    const char32_t c = At(next);
    if (next >= cps_.size() || IsUpper(c) || IsHan(c)) Emit(".", OffsetOf(k - 1));
    return k;
  }

  size_t Abbreviation(size_t i, size_t end, const std::string& word, const std::string& lower) {
    const bool dot = At(end) == '.';
    const size_t after = dot ? end + 1 : end;
    struct Title {
      std::string_view written;
      std::string_view spoken;
    };
    static constexpr std::array<Title, 6> kTitles = {
        {{"Mr", "Mister"}, {"Mrs", "Missus"}, {"Ms", "Miz"}, {"Dr", "Doctor"}, {"Prof", "Professor"}, {"St", "Saint"}}};
    for (const Title& t : kTitles) {
      if (dot && word == t.written && At(after) == ' ' && IsUpper(At(after + 1))) {
        Say(t.spoken, i);
        return after;
      }
    }
    if (lower == "etc" && dot) {
      Say("et cetera", i);
      return KeepSentencePeriod(after);
    }
    if (lower == "vs" && (dot || At(end) == ' ')) {
      Say("versus", i);
      return after;
    }
    if (lower == "approx" && dot) {
      Say("approximately", i);
      return after;
    }
    if ((word == "No" || word == "no") && dot && DigitAt(SkipSpace(after))) {
      Say("number", i);
      return after;
    }
    return i;
  }

  // "May 1", "May 1st", "Dec. 25, 2024", "January 5 2025".
  size_t MonthDate(size_t i, size_t end, const std::string& word) {
    int month = 0;
    for (int m = 0; m < 12; ++m) {
      const std::string_view full = kMonths[m];
      const bool abbreviated = word.size() >= 3 && word.size() < full.size() && full.starts_with(word) &&
                               (word.size() == 3 || word == "Sept");
      if (word == full || abbreviated) month = m + 1;
    }
    if (month == 0) return i;
    size_t k = end;
    if (At(k) == '.' && word != kMonths[month - 1]) ++k;
    if (At(k) != ' ' || !DigitAt(k + 1)) return i;
    const Number day = ParseNumber(k + 1, false);
    if (day.integer.size() > 2) return i;
    const int day_value = std::stoi(day.integer);
    if (day_value < 1 || day_value > 31) return i;
    size_t e = day.end;
    if (size_t s = OrdinalSuffixEnd(day); s > e) e = s;
    if (IsAsciiLetter(At(e)) || DigitAt(e) || At(e) == ':') return i;
    std::string spoken = std::string(kMonths[month - 1]) + " " + EnglishOrdinal(day_value);
    // ", 2024" or " 2024"
    size_t y = e;
    if (At(y) == ',') ++y;
    if (At(y) == ' ' && DigitAt(y + 1)) {
      const Number year = ParseNumber(y + 1, false);
      if (year.integer.size() == 4 && !DigitAt(year.end)) {
        Say(spoken, i);
        if (At(e) == ',') Emit(", ", OffsetOf(e));
        Say(EnglishYear(std::stoi(year.integer)), year.begin);
        return year.end;
      }
    }
    Say(spoken, i);
    return e;
  }

  // Letters and digits run together: S24, PS5, A17, RTX4090, iPhone15, i7, v2.0, H2O.
  size_t ModelToken(size_t i) {
    size_t k = i;
    while (k < cps_.size() && IsAsciiAlnum(At(k))) {
      const size_t start = k;
      if (IsAsciiLetter(At(k))) {
        k = WordEnd(k);
        const std::string letters = Slice(start, k);
        const bool capitals = std::all_of(letters.begin(), letters.end(), [](char ch) { return IsUpper(ch); });
        if (capitals && letters.size() >= 2 && letters.size() <= 4 && !IsCapitalWordSaidAsWord(Lower(letters))) {
          Say(Spell(letters), start);
        } else if (capitals && letters.size() >= 2) {
          Say(Lower(letters), start);  // SAVE20 -> save twenty
        } else {
          Say(letters, start);
        }
      } else {
        const Number n = ParseNumber(k);
        k = n.end;
        if (size_t unit_end = 0; const Unit* unit = UnitAt(k, unit_end)) {
          if (unit_end > k && At(k) != ' ') {
            Say(Read(n) + " " + std::string(n.IsOne() ? unit->singular : unit->plural), start);
            k = unit_end;
            continue;
          }
        }
        Say(n.has_fraction || n.integer.size() > 4 ? Read(n) : EnglishPairs(n.integer), start);
      }
    }
    return HyphenToSpace(k);
  }

  // www.shop.com, https://shop.com/sale, sales@shop.com: read out piece by piece.
  size_t WebAddress(size_t i) {
    size_t end = i;
    while (end < cps_.size() && !IsSpace(At(end)) && At(end) < 0x80 && At(end) != ',' && At(end) != '"' &&
           At(end) != ')' && At(end) != '!' && At(end) != '?') {
      ++end;
    }
    while (end > i && (At(end - 1) == '.' || At(end - 1) == ':' || At(end - 1) == ';')) --end;
    const std::string token = Slice(i, end);
    const size_t at = token.find('@');
    const bool email = at != std::string::npos && at > 0 && token.find('.', at) != std::string::npos;
    const bool url = token.starts_with("www.") || token.starts_with("http://") || token.starts_with("https://");
    if (!email && !url) return i;
    size_t k = i;
    if (token.starts_with("http")) k += token.find("//") + 2;  // the scheme is not said
    while (k < end) {
      const char32_t c = At(k);
      if (IsAsciiLetter(c)) {
        const size_t e = WordEnd(k);
        const std::string word = Slice(k, e);
        Say(word == "www" ? "w w w" : Lower(word), k);
        k = e;
        continue;
      }
      if (IsAsciiDigit(c)) {
        size_t e = k;
        while (DigitAt(e)) ++e;
        Say(EnglishDigits(Slice(k, e)), k);
        k = e;
        continue;
      }
      const std::string_view word = c == '.' ? "dot" : c == '@' ? "at" : c == '/' ? "slash" : c == '-' ? "dash"
                                    : c == '_' ? "underscore" : "";
      if (!word.empty()) {
        Emit(" ", OffsetOf(k));
        Emit(word, OffsetOf(k));
        Emit(" ", OffsetOf(k));
        last_spoken_ = false;
      }
      ++k;
    }
    if (!result_.text.empty() && result_.text.back() == ' ' && At(end) != ' ') {
      result_.text.pop_back();
      result_.source_offset.pop_back();
    }
    last_spoken_ = true;
    return end;
  }

  // ---- numbers ---------------------------------------------------------------

  size_t NumberAt(size_t i) {
    const char32_t prev = i > 0 ? At(i - 1) : 0;
    if (IsHan(prev)) return CopyNumber(i);  // 第2件: for the Chinese voice
    if (size_t k = YearRange(i); k > i) return k;
    if (size_t k = DashedDigits(i); k > i) return k;
    if (size_t k = SpacedMobile(i); k > i) return k;
    if (size_t k = SlashForms(i); k > i) return k;
    if (size_t k = ClockTime(i); k > i) return ThenTimeRange(k);
    if (size_t k = VersionNumber(i); k > i) return k;
    const Number n = ParseNumber(i);
    if (!n.has_fraction && n.integer.size() == 11 && n.integer[0] == '1' && !n.grouped) {
      SayPhoneGroups({n.integer.substr(0, 3), n.integer.substr(3, 4), n.integer.substr(7)}, i);
      return n.end;
    }
    const char32_t next = At(n.end);
    if (next == U'折') return Discount(n);
    if (next == U'元' || next == U'块') {
      Say(Read(n) + " yuan", i);
      return n.end + 1;
    }
    if (IsHan(next)) return CopyNumber(i);
    if (size_t k = Range(n); k > i) return k;
    return Quantity(n);
  }

  // 2.0.1 -> two point zero point one (a version, not a decimal).
  size_t VersionNumber(size_t i) {
    std::vector<Number> parts = {ParseNumber(i, false)};
    while (At(parts.back().end) == '.' && DigitAt(parts.back().end + 1)) {
      parts.push_back(ParseNumber(parts.back().end + 1, false));
    }
    if (parts.size() < 3 || IsAsciiAlnum(At(parts.back().end))) return i;
    std::string spoken;
    for (const Number& part : parts) {
      if (!spoken.empty()) spoken += " point ";
      spoken += Read(part);
    }
    Say(spoken, i);
    return parts.back().end;
  }

  size_t CopyNumber(size_t i) {
    const Number n = ParseNumber(i);
    Emit(Slice(i, n.end), OffsetOf(i));
    last_spoken_ = false;
    return n.end;
  }

  // 5折 -> fifty percent off; 8.5折 and 85折 -> fifteen percent off.
  size_t Discount(const Number& n) {
    const std::string digits = n.integer + n.fraction;
    int paid = std::stoi(digits.substr(0, std::min<size_t>(digits.size(), 2)));
    if (digits.size() == 1) paid *= 10;
    if (paid <= 0 || paid >= 100 || n.integer.size() > 2) {
      Say(Read(n), n.begin);
      return n.end;  // not a discount we can read; 折 stays for the Chinese voice
    }
    Say(EnglishCardinal(static_cast<uint64_t>(100 - paid)) + " percent off", n.begin);
    return n.end + 1;
  }

  // Ordinal suffix right after the number (1st, 22nd, 3rd, 4th); the index past it, or n.end.
  size_t OrdinalSuffixEnd(const Number& n) const {
    if (n.has_fraction || !IsAsciiLetter(At(n.end)) || !IsAsciiLetter(At(n.end + 1)) || IsAsciiLetter(At(n.end + 2))) {
      return n.end;
    }
    const std::string suffix = Lower(Slice(n.end, n.end + 2));
    return IsOneOf(suffix, {"st", "nd", "rd", "th"}) ? n.end + 2 : n.end;
  }

  // am/pm after a time: " am", "am", " a.m.", " AM". Sets `spoken` ("A M").
  size_t MeridiemEnd(size_t k, std::string& spoken) const {
    const size_t s = At(k) == ' ' ? k + 1 : k;
    const char32_t a = At(s);
    if (a != 'a' && a != 'p' && a != 'A' && a != 'P') return k;
    size_t e = 0;
    if ((At(s + 1) == 'm' || At(s + 1) == 'M') && !IsAsciiAlnum(At(s + 2))) {
      e = s + 2;
    } else if (At(s + 1) == '.' && (At(s + 2) == 'm' || At(s + 2) == 'M') && At(s + 3) == '.') {
      e = s + 4;
    } else {
      return k;
    }
    spoken = (a == 'a' || a == 'A') ? "A M" : "P M";
    return e;
  }

  // How a number is said alone or before what follows it; returns the index past it.
  size_t Quantity(const Number& n) {
    const size_t i = n.begin;
    size_t end = n.end;
    if (size_t s = OrdinalSuffixEnd(n); s > n.end && n.integer.size() <= kMaxCardinalDigits) {
      Say(EnglishOrdinal(std::stoull(n.integer)), i);
      return s;
    }
    if (At(end) == '%') {
      Say(Read(n) + " percent", i);
      return end + 1;
    }
    std::string meridiem;
    if (size_t e = MeridiemEnd(end, meridiem);
        e > end && !n.has_fraction && n.integer.size() <= 2 && std::stoi(n.integer) <= 12) {
      Say(Read(n) + " " + meridiem, i);
      return ThenTimeRange(e);
    }
    if (size_t unit_end = 0; const Unit* unit = UnitAt(end, unit_end)) {
      Say(Read(n), i);
      Say(n.IsOne() ? unit->singular : unit->plural, SkipSpace(end));
      return unit_end;
    }
    // Currency codes and words after the amount: 99 RMB, 20 USD.
    if (At(end) == ' ' && IsUpper(At(end + 1))) {
      const size_t e = WordEnd(end + 1);
      if (const Currency* currency = CurrencyOfCode(Slice(end + 1, e)); currency && !IsAsciiAlnum(At(e))) {
        SayMoney(n, *currency, "", i);
        return e;
      }
    }
    const char32_t next = At(end);
    const char32_t after = At(end + 1);
    if (next == 'k' && !IsAsciiAlnum(after)) {  // 10k; "4K" is a resolution (below)
      Say(Read(n) + " thousand", i);
      return end + 1;
    }
    if ((next == 'x' || next == 'X') && DigitAt(end + 1) && !n.has_fraction) {  // 1920x1080
      const Number second = ParseNumber(end + 1, false);
      const auto side = [](const Number& x) { return x.integer.size() <= 4 ? EnglishPairs(x.integer) : Read(x); };
      Say(side(n) + " by " + side(second), i);
      return second.end;
    }
    if ((next == 'x' || next == 'X') && !IsAsciiAlnum(after)) {
      Say(Read(n) + " times", i);
      return end + 1;
    }
    if (IsAsciiLetter(next)) {  // 5G, 4K, 3D, 1080p, 2FA: the number, then the letters
      const size_t e = WordEnd(end);
      const std::string letters = Slice(end, e);
      const bool capitals = std::all_of(letters.begin(), letters.end(), [](char ch) { return IsUpper(ch); });
      Say(n.has_fraction || n.integer.size() > 4 ? Read(n) : EnglishPairs(n.integer), i);
      Say(capitals && letters.size() <= 4 ? Spell(letters) : letters, end);
      return e;
    }
    if (next == '+') {
      Say(Read(n) + " plus", i);
      return end + 1;
    }
    if (next == '/' && n.has_fraction && DigitAt(end + 1)) {  // a rating: 9.5/10 -> nine point five out of ten
      const Number scale = ParseNumber(end + 1, false);
      if (!IsAsciiAlnum(At(scale.end)) && scale.integer.size() <= 3) {
        Say(Read(n) + " out of " + Read(scale), i);
        return scale.end;
      }
    }
    if (next == '-' && IsAsciiLetter(after)) {  // a 3-day trip: the hyphen is a space
      Say(Read(n), i);
      Emit(" ", OffsetOf(end));
      last_spoken_ = false;
      return end + 1;
    }
    if (!n.has_fraction && !n.grouped && n.integer.size() >= 3 && n.integer.size() <= 4 && n.integer[0] != '0') {
      const int value = std::stoi(n.integer);
      if (IsYear(n, value) || AfterProductWord(i)) {
        Say(EnglishPairs(n.integer), i);
        return end;
      }
    }
    Say(Read(n), i);
    return end;
  }

  // 1800-2099 is a year unless a word follows that it counts ("1299 left", "2024 units"),
  // and even then after "in", "since", "the" ... ("in 2024 we").
  bool IsYear(const Number& n, int value) const {
    if (n.integer.size() != 4 || value < 1800 || value > 2099) return false;
    const size_t end = n.end;
    if (At(end) != ' ' || !IsLower(At(end + 1))) return true;
    const size_t i = n.begin;
    if (i < 2 || At(i - 1) != ' ') return false;
    size_t start = i - 1;
    while (start > 0 && IsAsciiLetter(At(start - 1))) --start;
    const std::string before = Lower(Slice(start, i - 1));
    return IsOneOf(before, {"in", "since", "by", "from", "until", "till", "of", "before", "after", "year", "circa",
                            "around", "early", "late", "mid", "the", "spring", "summer", "autumn", "fall", "winter"});
  }

  // RTX 4090, Mate 60, iPhone 15: a product word right before the number (one space).
  bool AfterProductWord(size_t i) const {
    if (i < 2 || At(i - 1) != ' ') return false;
    const size_t end = i - 1;
    size_t start = end;
    while (start > 0 && IsAsciiAlnum(At(start - 1))) --start;
    if (start == end || !IsAsciiLetter(At(start))) return false;
    const std::string word = Slice(start, end);
    const bool all_capitals = word.size() >= 2 && std::all_of(word.begin(), word.end(), [](char ch) {
                                return IsUpper(ch) || IsAsciiDigit(ch);
                              });
    if (all_capitals) return !IsCapitalWordSaidAsWord(Lower(word));
    const bool inner_capital = std::any_of(word.begin() + 1, word.end(), [](char ch) { return IsUpper(ch); });
    if (inner_capital) return true;  // iPhone, PlayStation
    if (!IsUpper(word[0])) return false;
    // A capital at the start of a sentence says nothing: "Only 1299".
    size_t k = start;
    while (k > 0 && IsSpace(At(k - 1))) --k;
    return k > 0 && !IsSentenceEnd(At(k - 1)) && !IsCapitalWordSaidAsWord(Lower(word));
  }

  // 3-5 days, 10-20%, 3~5kg, $ ranges are in Money(). Returns n.begin when not a range.
  size_t Range(const Number& first) {
    size_t sep = first.end;
    const bool first_percent = At(sep) == '%';
    if (first_percent) ++sep;
    if (!IsRangeSeparator(At(sep)) || !DigitAt(sep + 1) || first.integer.size() > 6) return first.begin;
    const Number second = ParseNumber(sep + 1);
    if (second.integer.size() > 6 || IsHan(At(second.end)) || (first_percent && At(second.end) != '%')) {
      return first.begin;
    }
    Say(Read(first) + (first_percent ? " percent" : ""), first.begin);
    Say("to", sep);
    return Quantity(second);
  }

  // 2023-2024 -> twenty twenty-three to twenty twenty-four.
  size_t YearRange(size_t i) {
    const Number a = ParseNumber(i, false);
    if (a.integer.size() != 4 || !IsRangeSeparator(At(a.end)) || !DigitAt(a.end + 1)) return i;
    const Number b = ParseNumber(a.end + 1, false);
    if (b.integer.size() != 4 || IsAsciiAlnum(At(b.end)) || At(b.end) == '-') return i;
    const int from = std::stoi(a.integer);
    const int to = std::stoi(b.integer);
    if (from < 1100 || to > 2099 || to <= from) return i;
    Say(EnglishYear(from), i);
    Say("to", a.end);
    Say(EnglishYear(to), b.begin);
    return b.end;
  }

  void SayPhoneGroups(const std::vector<std::string>& groups, size_t i) {
    std::string spoken;
    for (const std::string& g : groups) {
      if (!spoken.empty()) spoken += ", ";
      spoken += EnglishDigits(g);
    }
    Say(spoken, i);
  }

  // 400-123-4567 and 010-12345678 digit by digit; 2024-05-01 is a date.
  size_t DashedDigits(size_t i) {
    std::vector<Number> groups = {ParseNumber(i, false)};
    while (At(groups.back().end) == '-' && DigitAt(groups.back().end + 1)) {
      groups.push_back(ParseNumber(groups.back().end + 1, false));
    }
    size_t total = 0;
    for (const Number& g : groups) total += g.integer.size();
    if (groups.size() < 2 || (groups.size() == 2 && total < 7)) return i;
    if (At(groups.back().end) == '.' && DigitAt(groups.back().end + 1)) return i;
    if (IsAsciiLetter(At(groups.back().end)) || IsHan(At(groups.back().end))) return i;
    if (groups.size() == 3 && groups[0].integer.size() == 4) {
      if (const std::optional<std::string> date = DateWords(groups[1].integer, groups[2].integer, groups[0].integer)) {
        Say(*date, i);
        return groups.back().end;
      }
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      if (g > 0) Emit(", ", OffsetOf(groups[g].begin - 1));
      Say(EnglishDigits(groups[g].integer), groups[g].begin);
    }
    return groups.back().end;
  }

  // 138 0013 8000: a Chinese mobile number written in groups.
  size_t SpacedMobile(size_t i) {
    const Number a = ParseNumber(i, false);
    if (a.integer.size() != 3 || a.integer[0] != '1' || At(a.end) != ' ' || !DigitAt(a.end + 1)) return i;
    const Number b = ParseNumber(a.end + 1, false);
    if (b.integer.size() != 4 || At(b.end) != ' ' || !DigitAt(b.end + 1)) return i;
    const Number c = ParseNumber(b.end + 1, false);
    if (c.integer.size() != 4 || IsAsciiAlnum(At(c.end))) return i;
    SayPhoneGroups({a.integer, b.integer, c.integer}, i);
    return c.end;
  }

  // (555) 123-4567
  size_t ParenthesizedPhone(size_t i) {
    const Number area = ParseNumber(i + 1, false);
    if (At(area.end) != ')' || area.integer.size() < 2 || area.integer.size() > 4) return i;
    const size_t k = SkipSpace(area.end + 1);
    if (!DigitAt(k)) return i;
    const Number a = ParseNumber(k, false);
    if (At(a.end) != '-' || !DigitAt(a.end + 1)) return i;
    const Number b = ParseNumber(a.end + 1, false);
    if (a.integer.size() + b.integer.size() < 7 || IsAsciiAlnum(At(b.end))) return i;
    SayPhoneGroups({area.integer, a.integer, b.integer}, i);
    return b.end;
  }

  // +86 138 0013 8000, +1-555-123-4567
  size_t InternationalPhone(size_t i) {
    if (!DigitAt(i + 1) || (i > 0 && IsAsciiAlnum(At(i - 1)))) return i;
    std::vector<std::string> groups;
    size_t k = i + 1;
    size_t total = 0;
    while (DigitAt(k)) {
      const Number g = ParseNumber(k, false);
      groups.push_back(g.integer);
      total += g.integer.size();
      k = g.end;
      if ((At(k) == ' ' || At(k) == '-') && DigitAt(k + 1)) ++k;
    }
    if (groups.size() < 2 || total < 8 || groups[0].size() > 3 || IsAsciiAlnum(At(k))) return i;
    Say("plus", i);
    SayPhoneGroups(groups, i + 1);
    return k;
  }

  // "May first" [", twenty twenty-four"], or nullopt if month/day are not a date.
  static std::optional<std::string> DateWords(const std::string& month, const std::string& day, const std::string& year) {
    if (month.size() > 2 || day.size() > 2) return std::nullopt;
    const int m = std::stoi(month);
    const int d = std::stoi(day);
    if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
    std::string out = std::string(kMonths[m - 1]) + " " + EnglishOrdinal(d);
    if (!year.empty()) out += ", " + EnglishYear(std::stoi(year));
    return out;
  }

  // 5/1, 5/1/2024, 1/2 (a fraction), 24/7.
  size_t SlashForms(size_t i) {
    std::vector<Number> parts = {ParseNumber(i, false)};
    while (parts.size() < 4 && At(parts.back().end) == '/' && DigitAt(parts.back().end + 1)) {
      parts.push_back(ParseNumber(parts.back().end + 1, false));
    }
    if (parts.size() < 2 || parts.size() > 3 || IsAsciiAlnum(At(parts.back().end)) || At(parts.back().end) == '/') {
      return i;
    }
    const std::string& a = parts[0].integer;
    const std::string& b = parts[1].integer;
    if (parts.size() == 2) {
      if (a == "24" && b == "7") {
        Say("twenty-four seven", i);
        return parts[1].end;
      }
      static constexpr std::array<std::array<std::string_view, 3>, 5> kFractions = {{{"1", "2", "one half"},
                                                                                     {"1", "3", "one third"},
                                                                                     {"2", "3", "two thirds"},
                                                                                     {"1", "4", "one quarter"},
                                                                                     {"3", "4", "three quarters"}}};
      for (const auto& f : kFractions) {
        if (a == f[0] && b == f[1]) {
          Say(f[2], i);
          return parts[1].end;
        }
      }
    }
    const std::string year = parts.size() == 3 ? parts[2].integer : "";
    if (parts.size() == 3 && year.size() != 4) return i;
    if (const std::optional<std::string> date = DateWords(a, b, year)) {
      Say(*date, i);
      return parts.back().end;
    }
    return i;
  }

  // 10:30 -> ten thirty, 10:05 -> ten oh five, 10:00 -> ten o'clock, 18:00 -> eighteen hundred,
  // with am/pm: ten thirty A M.
  size_t ClockTime(size_t i) {
    const Number hour = ParseNumber(i, false);
    if (hour.integer.size() > 2 || At(hour.end) != ':' || !DigitAt(hour.end + 1)) return i;
    const Number minute = ParseNumber(hour.end + 1, false);
    size_t end = minute.end;
    std::optional<Number> second;
    if (At(end) == ':' && DigitAt(end + 1)) {
      second = ParseNumber(end + 1, false);
      end = second->end;
    }
    if (minute.integer.size() != 2) return i;
    const int h = std::stoi(hour.integer);
    const int m = std::stoi(minute.integer);
    if (h > 24 || m > 59) return i;
    if (second && (second->integer.size() != 2 || std::stoi(second->integer) > 59)) return i;
    std::string meridiem;
    const size_t meridiem_end = MeridiemEnd(end, meridiem);
    std::string spoken = EnglishCardinal(h);
    if (m == 0) {
      spoken += !meridiem.empty() ? "" : h > 12 || h == 0 ? " hundred" : " o'clock";
    } else {
      spoken += (m < 10 ? " oh " : " ") + EnglishCardinal(m);
    }
    if (second && std::stoi(second->integer) > 0) {
      const int s = std::stoi(second->integer);
      spoken += " and " + EnglishCardinal(s) + (s == 1 ? " second" : " seconds");
    }
    if (!meridiem.empty()) spoken += " " + meridiem;
    Say(spoken, i);
    return meridiem_end;
  }

  // After a time: "-" and another time make a range (9:00-18:00, 9am-5pm).
  size_t ThenTimeRange(size_t k) {
    if (!IsRangeSeparator(At(k)) || !DigitAt(k + 1)) return k;
    const size_t emitted = result_.text.size();
    Say("to", k);
    if (size_t e = ClockTime(k + 1); e > k + 1) return e;
    const Number n = ParseNumber(k + 1, false);
    std::string meridiem;
    if (size_t e = MeridiemEnd(n.end, meridiem); e > n.end && n.integer.size() <= 2) {
      Say(Read(n) + " " + meridiem, k + 1);
      return e;
    }
    result_.text.resize(emitted);
    result_.source_offset.resize(emitted);
    return k;
  }

  // ---- money -----------------------------------------------------------------

  // Reads an amount with its currency: nineteen dollars and ninety-nine cents.
  void SayMoney(const Number& amount, const Currency& currency, std::string_view multiplier, size_t source) {
    if (!multiplier.empty()) {
      Say(Read(amount) + " " + std::string(multiplier) + " " + std::string(currency.major_plural), source);
      return;
    }
    std::string fraction = amount.fraction;
    if (!currency.minor_singular.empty() && fraction.size() <= 2 && amount.integer.size() <= kMaxCardinalDigits) {
      if (fraction.size() == 1) fraction += "0";
      const uint64_t major = std::stoull(amount.integer);
      const int minor = fraction.empty() ? 0 : std::stoi(fraction);
      std::string spoken;
      if (major > 0 || minor == 0) {
        spoken = EnglishCardinal(major) + " " +
                 std::string(major == 1 ? currency.major_singular : currency.major_plural);
      }
      if (minor > 0) {
        if (!spoken.empty()) spoken += " and ";
        spoken += EnglishCardinal(minor) + " " +
                  std::string(minor == 1 ? currency.minor_singular : currency.minor_plural);
      }
      Say(spoken, source);
      return;
    }
    Number trimmed = amount;  // ¥19.90 -> nineteen point nine yuan
    while (!trimmed.fraction.empty() && trimmed.fraction.back() == '0') trimmed.fraction.pop_back();
    trimmed.has_fraction = !trimmed.fraction.empty();
    Say(Read(trimmed) + " " + std::string(trimmed.IsOne() ? currency.major_singular : currency.major_plural), source);
  }

  // Multiplier written after an amount: 10k, 1.5M, 2 million. Sets `end` past it.
  std::string_view MultiplierAt(size_t k, size_t& end) const {
    if ((At(k) == 'k' || At(k) == 'K') && !IsAsciiAlnum(At(k + 1))) {
      end = k + 1;
      return "thousand";
    }
    if (At(k) == 'M' && !IsAsciiAlnum(At(k + 1))) {
      end = k + 1;
      return "million";
    }
    if (At(k) == ' ') {
      const size_t e = WordEnd(k + 1);
      const std::string word = Slice(k + 1, e);
      for (const std::string_view big : {"thousand", "million", "billion"}) {
        if (word == big) {
          end = e;
          return big;
        }
      }
    }
    return "";
  }

  size_t Money(size_t i) {
    const Currency& currency = *CurrencyOfSymbol(At(i));
    const Number low = ParseNumber(i + 1);
    size_t end = low.end;
    std::string_view multiplier = MultiplierAt(end, end);
    // $10-20, $10-$20, $10 - $20
    size_t sep = end;
    if (At(sep) == ' ' && IsRangeSeparator(At(sep + 1)) && At(sep + 2) == ' ') ++sep;
    const bool spaced = sep != end;
    if (multiplier.empty() && IsRangeSeparator(At(sep))) {
      size_t k = sep + 1 + (spaced ? 1 : 0);
      if (At(k) == At(i)) ++k;
      if (DigitAt(k)) {
        const Number high = ParseNumber(k);
        size_t high_end = high.end;
        const std::string_view high_multiplier = MultiplierAt(high_end, high_end);
        if (low.has_fraction || high.has_fraction) {
          SayMoney(low, currency, "", i);
        } else {
          Say(Read(low), i);
        }
        Say("to", sep);
        SayMoney(high, currency, high_multiplier, high.begin);
        return high_end;
      }
    }
    SayMoney(low, currency, multiplier, i);
    if (currency.minor_singular.empty() && (At(end) == U'元' || At(end) == U'块')) return end + 1;  // ¥99元
    return end;
  }

  std::string_view text_;
  std::vector<CodePoint> cps_;
  NormalizedText result_;
  bool last_spoken_ = false;  // the last output was words this normalizer produced
};

}  // namespace

NormalizedText NormalizeEnglish(std::string_view text) { return EnglishNormalizer(text).Run(); }

}  // namespace lingcast
