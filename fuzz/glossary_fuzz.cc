// Glossary files (`--glossary`): a file that parses is applied to its own text.
#include "fuzz_input.h"
#include "mt/glossary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  const std::string_view text = fuzz::AsText(data, size);
  std::vector<std::string> warnings;
  absl::StatusOr<Glossary> glossary = Glossary::Parse(text, "fuzz.glossary", &warnings);
  if (!glossary.ok()) return 0;
  glossary->TermsIn(text, Language::kZh);
  glossary->TermsIn(text, Language::kEn);
  return 0;
}
