#include "text/normalize_zh.h"

#include <array>
#include <string>
#include <vector>

#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr std::array<std::string_view, 10> kDigitWords = {"零", "一", "二", "三", "四",
                                                           "五", "六", "七", "八", "九"};
constexpr int kMaxIntegerDigits = 16;

// Measure words after which 2 reads 两 (两个, 两件) rather than 二.
constexpr std::u32string_view kMeasureWords = U"个位件只本张条次天岁种块斤台支双杯瓶年周份头匹辆座家点";

char32_t ToAsciiDigit(char32_t c) {
  if (c >= U'０' && c <= U'９') return c - U'０' + U'0';
  return c;
}

// Reads a number below 10^4 (no leading 零), e.g. 1010 -> 一千零一十.
std::string ReadBelowTenThousand(int value, bool is_leading_group) {
  static constexpr std::array<std::string_view, 4> kUnits = {"千", "百", "十", ""};
  std::string out;
  bool pending_zero = false;
  bool started = false;
  for (int i = 0, divisor = 1000; i < 4; ++i, divisor /= 10) {
    const int digit = (value / divisor) % 10;
    if (digit == 0) {
      if (started) pending_zero = true;
      continue;
    }
    if (pending_zero) out += kDigitWords[0];
    pending_zero = false;
    // 10-19 at the very start read 十, 十一 ... (not 一十).
    const bool bare_ten = i == 2 && digit == 1 && !started && is_leading_group;
    if (!bare_ten) out += kDigitWords[digit];
    out += kUnits[i];
    started = true;
  }
  return out;
}

}  // namespace

std::string ChineseDigits(std::string_view digits) {
  std::string out;
  for (const char c : digits) {
    if (c >= '0' && c <= '9') out += kDigitWords[c - '0'];
  }
  return out;
}

std::string ChineseInteger(uint64_t value) {
  if (value == 0) return std::string(kDigitWords[0]);
  // Groups of four digits: [亿亿][万亿... simplified to 亿 and 万 below 10^16.
  const std::array<uint64_t, 4> groups = {value / 1'000'000'000'000ULL % 10000,
                                          value / 100'000'000ULL % 10000, value / 10000 % 10000,
                                          value % 10000};
  static constexpr std::array<std::string_view, 4> kGroupUnits = {"万", "亿", "万", ""};
  std::string out;
  bool started = false;
  bool pending_zero = false;
  for (size_t g = 0; g < groups.size(); ++g) {
    const int group = static_cast<int>(groups[g]);
    if (group == 0) {
      if (started) pending_zero = true;
      // 万亿: the 亿 unit is still said when the 亿 group is zero but higher ones are not.
      if (g == 1 && started && !out.ends_with("亿")) out += "亿";
      continue;
    }
    if (started && (pending_zero || group < 1000)) out += kDigitWords[0];
    pending_zero = false;
    out += ReadBelowTenThousand(group, !started);
    out += kGroupUnits[g];
    started = true;
  }
  return out;
}

namespace {

// Units said after a number. Case matters: "5G" (the network) is not 5 grams.
struct Unit {
  std::u32string_view written;
  std::string_view spoken;
};
constexpr std::array<Unit, 14> kUnits = {{{U"GB", "吉字节"},
                                          {U"TB", "太字节"},
                                          {U"mAh", "毫安时"},
                                          {U"cm", "厘米"},
                                          {U"mm", "毫米"},
                                          {U"km", "公里"},
                                          {U"kg", "千克"},
                                          {U"g", "克"},
                                          {U"ml", "毫升"},
                                          {U"mL", "毫升"},
                                          {U"W", "瓦"},
                                          {U"℃", "摄氏度"},
                                          {U"°C", "摄氏度"},
                                          {U"m", "米"}}};

bool IsPercent(char32_t c) { return c == '%' || c == U'％'; }
bool IsDash(char32_t c) { return c == '-' || c == U'－' || c == U'−'; }
bool IsRangeSeparator(char32_t c) { return IsDash(c) || c == '~' || c == U'～' || c == U'〜' || c == U'–' || c == U'—'; }

// Phone numbers: digit by digit, 1 read 幺 as on the phone.
std::string PhoneDigits(std::string_view digits) {
  std::string out;
  for (const char c : digits) out += c == '1' ? std::string("幺") : ChineseDigits(std::string_view(&c, 1));
  return out;
}

// A run of digits, with a fraction when a '.' is followed by a digit.
struct Number {
  std::string integer;
  std::string fraction;
  bool has_fraction = false;
  size_t begin = 0;  // code point indices [begin, end)
  size_t end = 0;
};

class ChineseNormalizer {
 public:
  explicit ChineseNormalizer(std::string_view text) : text_(text), cps_(DecodeUtf8(text)) {}

  NormalizedText Run() {
    size_t i = 0;
    while (i < cps_.size()) {
      const size_t next = Rewrite(i);
      if (next > i) {
        i = next;
        continue;
      }
      Emit(text_.substr(cps_[i].offset, cps_[i].length), cps_[i].offset);
      ++i;
    }
    return std::move(result_);
  }

 private:
  char32_t At(size_t k) const { return k < cps_.size() ? cps_[k].value : 0; }
  bool DigitAt(size_t k) const { return k < cps_.size() && IsAsciiDigit(ToAsciiDigit(cps_[k].value)); }
  int OffsetOf(size_t k) const { return k < cps_.size() ? cps_[k].offset : static_cast<int>(text_.size()); }

  void Emit(std::string_view piece, int source) {
    result_.text.append(piece);
    result_.source_offset.insert(result_.source_offset.end(), piece.size(), source);
  }

  Number ParseNumber(size_t k, bool allow_fraction = true) const {
    Number n;
    n.begin = k;
    while (DigitAt(k)) n.integer.push_back(static_cast<char>(ToAsciiDigit(cps_[k++].value)));
    // Thousands separators: 1,299 is one number; "3,5" is a list.
    const bool groupable = allow_fraction && n.integer.size() <= 3;
    while (groupable && At(k) == ',' && DigitAt(k + 1) && DigitAt(k + 2) && DigitAt(k + 3) && !DigitAt(k + 4) &&
           n.integer[0] != '0') {
      for (size_t j = k + 1; j <= k + 3; ++j) n.integer.push_back(static_cast<char>(ToAsciiDigit(cps_[j].value)));
      k += 4;
    }
    const bool point = At(k) == '.' || At(k) == U'．';
    if (allow_fraction && point && DigitAt(k + 1)) {
      n.has_fraction = true;
      ++k;
      while (DigitAt(k)) n.fraction.push_back(static_cast<char>(ToAsciiDigit(cps_[k++].value)));
    }
    n.end = k;
    return n;
  }

  // The unit written at `k` (after an optional space), or nullptr; `end` is set past it.
  const Unit* UnitAt(size_t k, size_t& end) const {
    if (At(k) == ' ') ++k;
    size_t stop = k;
    if (At(k) == U'℃') {
      stop = k + 1;
    } else if (At(k) == U'°' && At(k + 1) == 'C' && !IsLatinLetter(At(k + 2))) {
      stop = k + 2;
    } else {
      while (stop < cps_.size() && IsLatinLetter(cps_[stop].value)) ++stop;
    }
    if (stop == k) return nullptr;
    std::u32string written;
    for (size_t j = k; j < stop; ++j) written.push_back(cps_[j].value);
    for (const Unit& unit : kUnits) {
      if (unit.written == written) {
        end = stop;
        return &unit;
      }
    }
    return nullptr;
  }

  // How a quantity is read: 九十九, 三点五, 两 (before a measure word or unit), 零零七.
  static std::string ReadQuantity(const Number& n, bool two_reads_liang) {
    std::string spoken;
    if ((n.integer.size() > 1 && n.integer[0] == '0') || static_cast<int>(n.integer.size()) > kMaxIntegerDigits) {
      spoken = ChineseDigits(n.integer);
    } else if (!n.has_fraction && two_reads_liang && n.integer == "2") {
      spoken = "两";
    } else {
      spoken = ChineseInteger(std::stoull(n.integer));
      // A leading 2 before 千, 万 or 亿 is said 两: 2000 -> 两千, 20000 -> 两万.
      for (const std::string_view big : {"千", "万", "亿"}) {
        if (spoken.starts_with(std::string("二").append(big))) spoken.replace(0, std::string("二").size(), "两");
      }
    }
    if (n.has_fraction) spoken += "点" + ChineseDigits(n.fraction);
    return spoken;
  }

  // Emits the number `n` with what follows it (a unit, %), returns the index past it.
  size_t EmitQuantity(const Number& n) {
    const int start = OffsetOf(n.begin);
    const char32_t next = At(n.end);
    size_t unit_end = 0;
    const Unit* unit = UnitAt(n.end, unit_end);
    if (IsPercent(next)) {
      Emit("百分之", start);
      Emit(ReadQuantity(n, false), start);
      return n.end + 1;
    }
    if (!n.has_fraction && next == U'年' && n.integer.size() >= 2 && n.integer.size() <= 4) {
      Emit(ChineseDigits(n.integer), start);  // 2024年, 98年
      return n.end;
    }
    if (next == U'元') {
      Emit(ReadQuantity(AsPrice(n), false), start);
      return n.end;
    }
    // 第2件 is an ordinal: 第二件, not 第两件.
    const bool ordinal = n.begin > 0 && At(n.begin - 1) == U'第';
    const bool liang = !ordinal && ((unit != nullptr && unit->spoken != "摄氏度") ||
                                    (next != 0 && kMeasureWords.find(next) != std::u32string_view::npos));
    Emit(ReadQuantity(n, liang), start);
    if (unit == nullptr) return n.end;
    Emit(unit->spoken, OffsetOf(n.end));
    return unit_end;
  }

  // Tries every rule at `i`; returns the index past what it rewrote, or `i`.
  size_t Rewrite(size_t i) {
    const char32_t c = At(i);
    if ((c == U'¥' || c == U'￥' || c == '$') && DigitAt(i + 1)) return Currency(i);
    if (IsDash(c) && DigitAt(i + 1) && (i == 0 || (!DigitAt(i - 1) && !IsLatinLetter(At(i - 1))))) {
      return Negative(i);
    }
    if (!DigitAt(i) || (i > 0 && DigitAt(i - 1))) return i;
    if (size_t k = DashedDigits(i); k > i) return k;
    if (size_t k = SlashDate(i); k > i) return ThenRange(k, &ChineseNormalizer::SlashDate);
    if (size_t k = ClockTime(i); k > i) return ThenRange(k, &ChineseNormalizer::ClockTime);
    const Number n = ParseNumber(i);
    if (!n.has_fraction && n.integer.size() == 11 && n.integer[0] == '1' && !DigitAt(n.end)) {
      Emit(PhoneDigits(n.integer), OffsetOf(i));  // a mobile number
      return n.end;
    }
    if (size_t k = Range(n); k > i) return k;
    if (At(n.end) == U'折') {
      Emit(ChineseDigits(n.integer + n.fraction), OffsetOf(i));  // 8.5折 -> 八五折
      return n.end;
    }
    if (size_t k = ModelNumber(n); k > i) return k;
    return EmitQuantity(n);
  }

  // After a date or a time at `k`: a dash and another one make a range, 5/1-5/3 ->
  // 五月一日到五月三日, 12:00-14:00 -> 十二点到十四点. Returns the index past what it read.
  size_t ThenRange(size_t k, size_t (ChineseNormalizer::*rule)(size_t)) {
    if (!IsRangeSeparator(At(k)) || !DigitAt(k + 1)) return k;
    const size_t emitted = result_.text.size();
    Emit("到", OffsetOf(k));
    if (const size_t end = (this->*rule)(k + 1); end > k + 1) return end;
    result_.text.resize(emitted);  // not a range: the dash is copied as written
    result_.source_offset.resize(emitted);
    return k;
  }

  // ¥99 -> 九十九元, $19.99 -> 十九点九九美元: the currency is said after the amount.
  // A price range keeps one currency word at the end: ¥99-199 -> 九十九到一百九十九元.
  size_t Currency(size_t i) {
    const Number low = AsPrice(ParseNumber(i + 1));
    const int start = OffsetOf(i);
    Emit(ReadQuantity(low, false), start);
    size_t end = low.end;
    int currency_offset = start;
    if (IsRangeSeparator(At(end)) && DigitAt(end + 1)) {
      const Number high = AsPrice(ParseNumber(end + 1));
      Emit("到", OffsetOf(end));
      Emit(ReadQuantity(high, false), OffsetOf(high.begin));
      end = high.end;
      currency_offset = OffsetOf(high.begin);
    }
    // "¥99元" names the currency twice; say it once.
    if (At(i) != '$' && At(end) == U'元') return end;
    Emit(At(i) == '$' ? "美元" : "元", currency_offset);
    return end;
  }

  // Prices drop trailing zeros after the point: 19.90元 and ¥99.00 are said 十九点九元, 九十九元.
  static Number AsPrice(Number n) {
    while (!n.fraction.empty() && n.fraction.back() == '0') n.fraction.pop_back();
    n.has_fraction = !n.fraction.empty();
    return n;
  }

  // -5 -> 负五; -5℃ -> 零下五摄氏度.
  size_t Negative(size_t i) {
    const Number n = ParseNumber(i + 1);
    size_t unit_end = 0;
    const Unit* unit = UnitAt(n.end, unit_end);
    const bool temperature = unit != nullptr && unit->spoken == "摄氏度";
    Emit(temperature ? "零下" : "负", OffsetOf(i));
    return EmitQuantity(n);
  }

  // 400-123-4567 and 010-12345678 read digit by digit; 2024-05-01 is a date.
  size_t DashedDigits(size_t i) {
    std::vector<Number> groups = {ParseNumber(i, false)};
    while (IsDash(At(groups.back().end)) && DigitAt(groups.back().end + 1)) {
      groups.push_back(ParseNumber(groups.back().end + 1, false));
    }
    size_t total = 0;
    for (const Number& g : groups) total += g.integer.size();
    if (groups.size() < 2 || (groups.size() == 2 && total < 7)) return i;
    if (At(groups.back().end) == '.' && DigitAt(groups.back().end + 1)) return i;
    if (At(groups.back().end) == U'年') return i;  // 2023-2024年 is a range of years
    if (groups.size() == 3 && groups[0].integer.size() == 4 && EmitDate(groups)) return groups.back().end;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (g > 0) Emit("，", OffsetOf(groups[g].begin - 1));  // a short pause between groups
      Emit(PhoneDigits(groups[g].integer), OffsetOf(groups[g].begin));
    }
    return groups.back().end;
  }

  // [year,] month, day -> 二零二四年五月一日; false (nothing emitted) unless month is
  // 1-12 and day 1-31.
  bool EmitDate(const std::vector<Number>& parts) {
    const size_t m = parts.size() - 2;
    const Number& month = parts[m];
    const Number& day = parts[m + 1];
    if (month.integer.size() > 2 || day.integer.size() > 2) return false;
    const int month_value = std::stoi(month.integer);
    const int day_value = std::stoi(day.integer);
    if (month_value < 1 || month_value > 12 || day_value < 1 || day_value > 31) return false;
    if (m == 1) {
      Emit(ChineseDigits(parts[0].integer), OffsetOf(parts[0].begin));
      Emit("年", OffsetOf(parts[0].end));
    }
    Emit(ChineseInteger(month_value), OffsetOf(month.begin));
    Emit("月", OffsetOf(month.end));
    Emit(ChineseInteger(day_value), OffsetOf(day.begin));
    Emit("日", OffsetOf(day.end - 1));
    return true;
  }

  // 5/1 -> 五月一日, 2024/5/1 -> 二零二四年五月一日.
  size_t SlashDate(size_t i) {
    std::vector<Number> parts = {ParseNumber(i, false)};
    while (parts.size() < 4 && At(parts.back().end) == '/' && DigitAt(parts.back().end + 1)) {
      parts.push_back(ParseNumber(parts.back().end + 1, false));
    }
    if (parts.size() < 2 || parts.size() > 3) return i;
    if (parts.size() == 3 && parts[0].integer.size() != 4) return i;
    if (parts.size() == 2 && i > 0 && At(i - 1) == '/') return i;
    return EmitDate(parts) ? parts.back().end : i;
  }

  // 10:30 -> 十点三十分, 8:05 -> 八点零五分, 20:00 -> 二十点, 2:15:30 -> 两点十五分三十秒.
  size_t ClockTime(size_t i) {
    const auto is_colon = [](char32_t c) { return c == ':' || c == U'：'; };
    const Number hour = ParseNumber(i, false);
    if (hour.integer.size() > 2 || !is_colon(At(hour.end))) return i;
    std::vector<Number> rest;
    size_t k = hour.end;
    while (rest.size() < 2 && is_colon(At(k)) && DigitAt(k + 1)) {
      rest.push_back(ParseNumber(k + 1, false));
      k = rest.back().end;
    }
    if (rest.empty() || DigitAt(k) || std::stoi(hour.integer) > 24) return i;
    for (const Number& r : rest) {
      if (r.integer.size() != 2 || std::stoi(r.integer) > 59) return i;
    }
    const int hour_value = std::stoi(hour.integer);
    Emit(hour_value == 2 ? std::string("两") : ChineseInteger(hour_value), OffsetOf(hour.begin));
    Emit("点", OffsetOf(hour.end));
    const std::array<std::string_view, 2> kNames = {"分", "秒"};
    for (size_t r = 0; r < rest.size(); ++r) {
      const int value = std::stoi(rest[r].integer);
      if (value == 0 && r + 1 == rest.size()) break;  // 20:00 -> 二十点
      Emit((value > 0 && value < 10 ? "零" : "") + ChineseInteger(value) + std::string(kNames[r]), OffsetOf(rest[r].begin));
    }
    return k;
  }

  // 3-5天 -> 三到五天, 1.5~2kg -> 一点五到两千克, 2023-2024年 -> 二零二三到二零二四年,
  // 10-20% -> 百分之十到二十, 10%-20% -> 百分之十到百分之二十.
  size_t Range(const Number& first) {
    size_t separator = first.end;
    const bool first_percent = IsPercent(At(separator));
    if (first_percent) ++separator;
    if (first.integer.size() > 6 || !IsRangeSeparator(At(separator)) || !DigitAt(separator + 1)) return first.begin;
    const Number second = ParseNumber(separator + 1);
    const bool second_percent = IsPercent(At(second.end));
    if (second.integer.size() > 6 || (first_percent && !second_percent)) return first.begin;
    const int start = OffsetOf(first.begin);
    if (second_percent) {
      Emit("百分之", start);
      Emit(ReadQuantity(first, false), start);
      Emit("到", OffsetOf(separator));
      if (first_percent) Emit("百分之", OffsetOf(second.begin));
      Emit(ReadQuantity(second, false), OffsetOf(second.begin));
      return second.end + 1;
    }
    const bool years = At(second.end) == U'年' && !first.has_fraction && first.integer.size() >= 2 &&
                       first.integer.size() <= 4;
    Emit(years ? ChineseDigits(first.integer) : ReadQuantity(first, false), start);
    Emit("到", OffsetOf(separator));
    return EmitQuantity(second);
  }

  // RTX 4090 -> RTX 四零九零, iPhone 15 -> iPhone 十五: after a Latin word with a capital,
  // a number of three or more digits is a model number read digit by digit.
  size_t ModelNumber(const Number& n) {
    size_t before = n.begin;
    if (before > 0 && At(before - 1) == ' ') --before;
    if (before == 0 || !IsLatinLetter(At(before - 1))) return n.begin;
    // Product names carry a capital (RTX, iPhone, Mate); "hello 123" is prose.
    bool has_capital = false;
    for (size_t k = before; k > 0 && IsLatinLetter(At(k - 1)); --k) {
      has_capital = has_capital || (At(k - 1) >= 'A' && At(k - 1) <= 'Z');
    }
    if (!has_capital) return n.begin;
    size_t unit_end = 0;
    if (UnitAt(n.end, unit_end) != nullptr || n.has_fraction || n.integer.size() < 3) return n.begin;
    Emit(ChineseDigits(n.integer), OffsetOf(n.begin));
    return n.end;
  }

  std::string_view text_;
  std::vector<CodePoint> cps_;
  NormalizedText result_;
};

}  // namespace

NormalizedText NormalizeChinese(std::string_view text) { return ChineseNormalizer(text).Run(); }

}  // namespace lingcast
