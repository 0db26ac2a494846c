#include "mt/llm_answer.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using Json = nlohmann::json;

std::string Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(begin, end - begin + 1));
}

// choices[0].<field>.content when it is a string; null otherwise.
const Json* ContentOf(const Json& answer, const char* field) {
  if (!answer.is_object()) return nullptr;
  const auto choices = answer.find("choices");
  if (choices == answer.end() || !choices->is_array() || choices->empty()) return nullptr;
  const Json& choice = (*choices)[0];
  if (!choice.is_object()) return nullptr;
  const auto holder = choice.find(field);
  if (holder == choice.end() || !holder->is_object()) return nullptr;
  const auto content = holder->find("content");
  if (content == holder->end() || !content->is_string()) return nullptr;
  return &*content;
}

// What the server said went wrong: error.message when it is a string, else the
// error as JSON. (Replaced, not thrown on, when it is not UTF-8.)
std::string ErrorText(const Json& error) {
  if (error.is_object()) {
    const auto message = error.find("message");
    if (message != error.end() && message->is_string()) return message->get<std::string>();
  }
  return error.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

void LlmAnswerReader::Append(std::string_view bytes) {
  raw_.append(bytes);
  if (!streaming_decided_) {
    const std::string head = Trim(raw_);
    constexpr std::string_view kData = "data:";
    // Too little to tell yet: the bytes may stop inside "data:".
    if (head.size() < kData.size() && kData.substr(0, head.size()) == head) return;
    streaming_decided_ = true;
    streaming_ = head.rfind("data:", 0) == 0;
  }
  if (!streaming_) return;
  size_t newline;
  while ((newline = raw_.find('\n', consumed_)) != std::string::npos) {
    const std::string line = Trim(std::string_view(raw_).substr(consumed_, newline - consumed_));
    consumed_ = newline + 1;
    if (line.rfind("data:", 0) != 0) continue;  // comments, event names, blank separators
    TakeEvent(Trim(std::string_view(line).substr(5)));
  }
}

void LlmAnswerReader::TakeEvent(const std::string& payload) {
  if (payload == "[DONE]") {
    done_ = true;
    return;
  }
  const Json event = Json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (event.is_discarded()) {
    malformed_ = true;
    return;
  }
  if (event.is_object() && event.contains("error")) {
    error_ = ErrorText(event["error"]);
    return;
  }
  if (const Json* delta = ContentOf(event, "delta"); delta != nullptr) {
    text_ += delta->get<std::string>();
    if (on_partial_) on_partial_(text_);
  }
}

absl::StatusOr<std::string> LlmAnswerReader::Finish() {
  if (!streaming_) {
    const Json body = Json::parse(raw_, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) return absl::DataLossError("the server's answer is not JSON");
    if (body.is_object() && body.contains("error")) {
      return absl::UnavailableError(absl::StrCat("the server reported an error: ",
                                                 body["error"].dump(-1, ' ', false, Json::error_handler_t::replace)));
    }
    const Json* content = ContentOf(body, "message");
    if (content == nullptr) return absl::DataLossError("the server's answer has no choices[0].message.content");
    text_ = content->get<std::string>();
  } else {
    if (!error_.empty()) return absl::UnavailableError(absl::StrCat("the server reported an error: ", error_));
    if (malformed_ && text_.empty()) return absl::DataLossError("the server's event stream is not JSON");
    if (!done_ && text_.empty()) return absl::DataLossError("the server's event stream ended early");
  }
  std::string text = Trim(text_);
  if (text.empty()) return absl::UnavailableError("the server answered with an empty translation");
  return text;
}

}  // namespace lingcast
