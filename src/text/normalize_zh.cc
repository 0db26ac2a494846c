#include "text/normalize_zh.h"

#include <array>

#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr std::array<std::string_view, 10> kDigitWords = {"零", "一", "二", "三", "四",
                                                           "五", "六", "七", "八", "九"};
constexpr int kMaxIntegerDigits = 16;

// Measure words after which 2 reads 两 (两个, 两件) rather than 二.
constexpr std::u32string_view kMeasureWords = U"个位件只本张条次天岁种块斤台支双杯瓶年周份头匹辆座家";

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

NormalizedText NormalizeChinese(std::string_view text) {
  NormalizedText result;
  const std::vector<CodePoint> cps = DecodeUtf8(text);
  const auto emit = [&](std::string_view piece, int source) {
    result.text.append(piece);
    result.source_offset.insert(result.source_offset.end(), piece.size(), source);
  };
  size_t i = 0;
  while (i < cps.size()) {
    if (!IsAsciiDigit(ToAsciiDigit(cps[i].value))) {
      emit(text.substr(cps[i].offset, cps[i].length), cps[i].offset);
      ++i;
      continue;
    }
    // Collect "123" or "12.5"; the '.' only counts when a digit follows it.
    const int start = cps[i].offset;
    std::string integer_part, fraction_part;
    while (i < cps.size() && IsAsciiDigit(ToAsciiDigit(cps[i].value))) {
      integer_part.push_back(static_cast<char>(ToAsciiDigit(cps[i++].value)));
    }
    const auto is_point = [&](size_t k) { return k < cps.size() && (cps[k].value == '.' || cps[k].value == U'．'); };
    const auto is_digit_at = [&](size_t k) { return k < cps.size() && IsAsciiDigit(ToAsciiDigit(cps[k].value)); };
    bool has_fraction = false;
    if (is_point(i) && is_digit_at(i + 1)) {
      has_fraction = true;
      ++i;
      while (is_digit_at(i)) fraction_part.push_back(static_cast<char>(ToAsciiDigit(cps[i++].value)));
    }
    const char32_t next = i < cps.size() ? cps[i].value : 0;
    const bool percent = next == '%' || next == U'％';

    std::string spoken;
    if (!has_fraction && next == U'年' && integer_part.size() >= 2 && integer_part.size() <= 4) {
      spoken = ChineseDigits(integer_part);  // 2024年, 98年
    } else if ((integer_part.size() > 1 && integer_part[0] == '0') ||
               static_cast<int>(integer_part.size()) > kMaxIntegerDigits) {
      spoken = ChineseDigits(integer_part);  // 007, long codes
    } else {
      spoken = ChineseInteger(std::stoull(integer_part));
      if (!has_fraction && !percent && integer_part == "2" &&
          kMeasureWords.find(next) != std::u32string_view::npos) {
        spoken = "两";
      }
    }
    if (has_fraction) spoken += "点" + ChineseDigits(fraction_part);
    if (percent) {
      emit("百分之", start);
      ++i;  // the % sign is said first
    }
    emit(spoken, start);
  }
  return result;
}

}  // namespace lingcast
