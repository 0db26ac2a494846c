// The answer of an OpenAI-compatible chat server as it arrives, for
// LlmTranslator: either a server-sent event stream of "data: {json}" lines
// (each a delta of the translation, "[DONE]" at the end) or, from servers that
// ignore "stream", one JSON body. Bytes from the network in, text or a clear
// error out: whatever the server sends, nothing throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "mt/translator.h"

namespace lingcast {

class LlmAnswerReader {
 public:
  // `on_partial` (may be empty) gets the text so far after each delta; it must
  // outlive the reader.
  explicit LlmAnswerReader(const PartialTranslation& on_partial) : on_partial_(on_partial) {}

  // The next bytes as they came (any split, even inside a line).
  void Append(std::string_view bytes);
  // The final text, or why there is none: DataLoss (not JSON, ended early, no
  // content), Unavailable (the server reported an error, or an empty translation).
  absl::StatusOr<std::string> Finish();

 private:
  void TakeEvent(const std::string& payload);

  const PartialTranslation& on_partial_;
  std::string raw_;
  size_t consumed_ = 0;
  bool streaming_decided_ = false, streaming_ = false, done_ = false, malformed_ = false;
  std::string text_, error_;
};

}  // namespace lingcast
