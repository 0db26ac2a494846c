// The corrections file (`--corrections`): the operator's fixes kept from show
// to show. A log that opens is applied to a memory and a glossary.
#include "fuzz_input.h"
#include "mt/corrections.h"
#include "mt/glossary.h"
#include "mt/translation_memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  static fuzz::InputFile file(".corrections");
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(file.Write(fuzz::AsText(data, size)));
  if (!log.ok()) return 0;
  TranslationMemory memory;
  Glossary glossary;
  log->ApplyTo(memory, &glossary);
  return 0;
}
