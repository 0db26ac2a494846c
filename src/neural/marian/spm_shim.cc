// The SentencePiece shim: a small plug-in (loaded with dlopen) through which the
// tokenizers call libsentencepiece.
//
// Why not link libsentencepiece directly: Debian's libsentencepiece carries its own
// copy of protobuf and exports its symbols, while libtorch links the system
// libprotobuf. Loaded into one process, protobuf's start-up code binds to
// sentencepiece's copy and crashes before main(). This plug-in is loaded with
// RTLD_LOCAL | RTLD_DEEPBIND (sentencepiece_library.cc), so sentencepiece binds to
// its own protobuf and nothing else sees it. The interface is plain C.
#include <sentencepiece_processor.h>

#include <cstddef>
#include <string>
#include <vector>

extern "C" {

typedef void (*lc_spm_emit)(void* context, const char* data, std::size_t size);

__attribute__((visibility("default"))) void* lc_spm_load(const char* path, lc_spm_emit on_error, void* context) {
  auto* processor = new sentencepiece::SentencePieceProcessor();
  const auto status = processor->Load(path);
  if (!status.ok()) {
    const std::string message = status.ToString();
    on_error(context, message.data(), message.size());
    delete processor;
    return nullptr;
  }
  return processor;
}

__attribute__((visibility("default"))) void lc_spm_free(void* model) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(model);
}

__attribute__((visibility("default"))) int lc_spm_encode(void* model, const char* text, std::size_t size,
                                                         lc_spm_emit on_piece, lc_spm_emit on_error, void* context) {
  std::vector<std::string> pieces;
  const auto status = static_cast<sentencepiece::SentencePieceProcessor*>(model)->Encode(std::string(text, size), &pieces);
  if (!status.ok()) {
    const std::string message = status.ToString();
    on_error(context, message.data(), message.size());
    return 1;
  }
  for (const auto& piece : pieces) on_piece(context, piece.data(), piece.size());
  return 0;
}

__attribute__((visibility("default"))) int lc_spm_decode(void* model, const char* const* pieces, const std::size_t* sizes,
                                                         std::size_t count, lc_spm_emit on_text, lc_spm_emit on_error,
                                                         void* context) {
  std::vector<std::string> input;
  input.reserve(count);
  for (std::size_t i = 0; i < count; ++i) input.emplace_back(pieces[i], sizes[i]);
  std::string text;
  const auto status = static_cast<sentencepiece::SentencePieceProcessor*>(model)->Decode(input, &text);
  if (!status.ok()) {
    const std::string message = status.ToString();
    on_error(context, message.data(), message.size());
    return 1;
  }
  on_text(context, text.data(), text.size());
  return 0;
}

}  // extern "C"
