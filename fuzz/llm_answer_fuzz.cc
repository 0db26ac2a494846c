// What an OpenAI-compatible chat server answers (mt/llm_answer.h): an event
// stream or one JSON body, cut into two network reads where the first byte says.
#include "fuzz_input.h"
#include "mt/llm_answer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  if (size == 0) return 0;
  const std::string_view answer = fuzz::AsText(data + 1, size - 1);
  const size_t cut = data[0] % (answer.size() + 1);
  size_t partials = 0;
  const PartialTranslation on_partial = [&partials](std::string_view) { ++partials; };
  LlmAnswerReader reader(on_partial);
  reader.Append(answer.substr(0, cut));
  reader.Append(answer.substr(cut));
  reader.Finish().IgnoreError();
  return 0;
}
