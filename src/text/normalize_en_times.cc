#include "text/normalize_en_times.h"

#include <optional>

#include "text/english_numbers.h"

namespace lingcast::normalize_en {

// am/pm after a time: " am", "am", " a.m.", " AM". Sets `spoken` ("A M").
size_t MeridiemEnd(const EnglishRewriter& r, size_t k, std::string& spoken) {
  const size_t s = r.At(k) == ' ' ? k + 1 : k;
  const char32_t a = r.At(s);
  if (a != 'a' && a != 'p' && a != 'A' && a != 'P') return k;
  size_t e = 0;
  if ((r.At(s + 1) == 'm' || r.At(s + 1) == 'M') && !IsAsciiAlnum(r.At(s + 2))) {
    e = s + 2;
  } else if (r.At(s + 1) == '.' && (r.At(s + 2) == 'm' || r.At(s + 2) == 'M') && r.At(s + 3) == '.') {
    e = s + 4;
  } else {
    return k;
  }
  spoken = (a == 'a' || a == 'A') ? "A M" : "P M";
  return e;
}

// 10:30 -> ten thirty, 10:05 -> ten oh five, 10:00 -> ten o'clock, 18:00 -> eighteen hundred,
// with am/pm: ten thirty A M.
size_t RewriteClockTime(EnglishRewriter& r, size_t i) {
  const Number hour = r.ParseNumber(i, false);
  if (hour.integer.size() > 2 || r.At(hour.end) != ':' || !r.DigitAt(hour.end + 1)) return i;
  const Number minute = r.ParseNumber(hour.end + 1, false);
  size_t end = minute.end;
  std::optional<Number> second;
  if (r.At(end) == ':' && r.DigitAt(end + 1)) {
    second = r.ParseNumber(end + 1, false);
    end = second->end;
  }
  if (minute.integer.size() != 2) return i;
  const int h = std::stoi(hour.integer);
  const int m = std::stoi(minute.integer);
  if (h > 24 || m > 59) return i;
  if (second && (second->integer.size() != 2 || std::stoi(second->integer) > 59)) return i;
  std::string meridiem;
  const size_t meridiem_end = MeridiemEnd(r, end, meridiem);
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
  r.Say(spoken, i);
  return meridiem_end;
}

// After a time: "-" and another time make a range (9:00-18:00, 9am-5pm).
size_t ThenTimeRange(EnglishRewriter& r, size_t k) {
  if (!IsRangeSeparator(r.At(k)) || !r.DigitAt(k + 1)) return k;
  const size_t emitted = r.written().size();
  r.Say("to", k);
  if (size_t e = RewriteClockTime(r, k + 1); e > k + 1) return e;
  const Number n = r.ParseNumber(k + 1, false);
  std::string meridiem;
  if (size_t e = MeridiemEnd(r, n.end, meridiem); e > n.end && n.integer.size() <= 2) {
    r.Say(ReadNumber(n) + " " + meridiem, k + 1);
    return e;
  }
  r.Truncate(emitted);
  return k;
}

}  // namespace lingcast::normalize_en
