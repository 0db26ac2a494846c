#include "text/normalize_en_units.h"

#include <array>

namespace lingcast::normalize_en {

namespace {

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

}  // namespace

const Unit* UnitAt(const EnglishRewriter& r, size_t k, size_t& end) {
  const bool spaced = r.At(k) == ' ';
  if (spaced) ++k;
  for (const Unit& unit : kUnits) {
    const size_t n = unit.written.size();
    bool match = k + n <= r.size();
    for (size_t j = 0; match && j < n; ++j) match = r.At(k + j) == unit.written[j];
    if (!match || IsAsciiAlnum(r.At(k + n))) continue;
    // One-letter units and symbols are written against the number: "5 m" may be prose.
    if (spaced && (n == 1 || unit.written[0] == U'°' || unit.written == U"pc")) continue;
    end = k + n;
    return &unit;
  }
  return nullptr;
}

}  // namespace lingcast::normalize_en
