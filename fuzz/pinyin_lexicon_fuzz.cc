// The Mandarin lexicon reader (PinyinConverter::FromText: the compact lexicon a
// build step writes, or one a user gives) and conversion with what it read:
// the input's first line is the text to convert, the rest the lexicon.
#include "fuzz_input.h"
#include "text/pinyin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  const std::string_view input = fuzz::AsText(data, size);
  const size_t newline = input.find('\n');
  const std::string_view text = input.substr(0, newline);
  const std::string_view lexicon = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  absl::StatusOr<PinyinConverter> converter = PinyinConverter::FromText(lexicon, "fuzz.lexicon");
  if (!converter.ok()) return 0;
  converter->Segment(text);
  converter->Convert(text);
  return 0;
}
