// lingcast's script format (text/script.h, docs/script-format.md): what
// `render`, `live --script`, `follow` and the translation memory read.
// Property: a script that parses holds only valid UTF-8, and its line numbers
// never go back.
#include <cstdlib>

#include "fuzz_input.h"
#include "text/script.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  absl::StatusOr<Script> script = ParseScriptText(fuzz::AsText(data, size), "fuzz.script");
  if (!script.ok()) return 0;
  int last_line = 0;
  for (const ScriptItem& item : script->items) {
    const int line = std::visit([](const auto& i) { return i.line_number; }, item);
    if (line < last_line) std::abort();
    last_line = line;
    if (const auto* spoken = std::get_if<ScriptLine>(&item)) {
      for (const TextSegment& segment : spoken->segments) {
        if (!ValidateUtf8(segment.text).ok()) std::abort();
      }
    }
  }
  return 0;
}
