// The text front-ends every line goes through before it is spoken or matched:
// sanitizing, the English and Mandarin normalizers, clause segmentation and
// language detection. Properties: the normalizers' and the sanitizer's offsets
// are one per output byte, inside the input, never decreasing (their headers
// promise it); the segmenter's clauses are never blank and lie inside the stream.
#include <cstdlib>

#include "fuzz_input.h"
#include "text/language_detect.h"
#include "text/normalize_en.h"
#include "text/normalize_zh.h"
#include "text/sanitize.h"
#include "text/segmenter.h"

namespace {

template <typename Normalized>
void CheckOffsets(const Normalized& normalized, size_t input_size) {
  if (normalized.source_offset.size() != normalized.text.size()) std::abort();
  int last = 0;
  for (int offset : normalized.source_offset) {
    if (offset < last || offset < 0 || static_cast<size_t>(offset) > input_size) std::abort();
    last = offset;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  const std::string_view text = fuzz::AsText(data, size);
  const SanitizedText clean = SanitizeText(text);
  if (clean.source_offset.size() != clean.text.size()) std::abort();
  for (int offset : clean.source_offset) {
    if (offset < 0 || static_cast<size_t>(offset) >= size) std::abort();
  }
  CheckOffsets(NormalizeEnglish(clean.text), clean.text.size());
  CheckOffsets(NormalizeChinese(clean.text), clean.text.size());
  DetectLanguage(clean.text);

  // The same text fed in two pieces, split where the first byte says.
  ClauseSegmenter segmenter;
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  std::vector<Clause> clauses = segmenter.Push(text.substr(0, cut));
  for (Clause& clause : segmenter.Push(text.substr(cut))) clauses.push_back(std::move(clause));
  for (Clause& clause : segmenter.Flush()) clauses.push_back(std::move(clause));
  for (const Clause& clause : clauses) {
    if (clause.text.empty() || clause.source_offset < 0 ||
        static_cast<size_t>(clause.source_offset) + clause.text.size() > size) {
      std::abort();
    }
  }
  return 0;
}
