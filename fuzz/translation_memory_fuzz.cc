// Translation memory files (`--tm`): TSV, or CSV with quoted fields, chosen by
// the name; the input's first byte picks which. A file that loads is then
// searched with its own first source, exact and fuzzy.
#include "fuzz_input.h"
#include "mt/translation_memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  static fuzz::InputFile tsv(".tsv");
  static fuzz::InputFile csv(".csv");
  if (size == 0) return 0;
  fuzz::InputFile& file = data[0] % 2 == 0 ? tsv : csv;
  const std::string_view text = fuzz::AsText(data + 1, size - 1);
  TranslationMemory memory;
  TmLoadReport report;
  if (!memory.LoadFile(file.Write(text), Language::kZh, Language::kEn, report).ok()) return 0;
  const std::string_view first_line = text.substr(0, text.find_first_of("\t,\n"));
  memory.Lookup(first_line, Language::kZh, Language::kEn);
  memory.Search(first_line, Language::kZh, Language::kEn, 0.3, 5);
  return 0;
}
