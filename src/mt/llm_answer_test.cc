#include "mt/llm_answer.h"

#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;

absl::StatusOr<std::string> Read(const std::string& answer, size_t piece = std::string::npos,
                                 std::vector<std::string>* partials = nullptr) {
  PartialTranslation on_partial;
  if (partials != nullptr) on_partial = [partials](std::string_view text) { partials->emplace_back(text); };
  LlmAnswerReader reader(on_partial);
  for (size_t at = 0; at < answer.size(); at += piece) reader.Append(std::string_view(answer).substr(at, piece));
  return reader.Finish();
}

constexpr char kStream[] =
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hello\"}}]}\n\n"
    ": a comment\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\" there\"}}]}\n\n"
    "data: [DONE]\n\n";

TEST(LlmAnswerReaderTest, AStreamIsJoinedHoweverItIsSplit) {
  for (size_t piece : {size_t{1}, size_t{7}, std::string::npos}) {
    std::vector<std::string> partials;
    absl::StatusOr<std::string> text = Read(kStream, piece, &partials);
    ASSERT_OK(text);
    EXPECT_EQ(*text, "Hello there") << piece;
    EXPECT_EQ(partials, (std::vector<std::string>{"Hello", "Hello there"})) << piece;
  }
}

TEST(LlmAnswerReaderTest, OneJsonBodyFromAServerThatDoesNotStream) {
  absl::StatusOr<std::string> text = Read(R"({"choices":[{"message":{"content":"  你好  "}}]})");
  ASSERT_OK(text);
  EXPECT_EQ(*text, "你好");
}

TEST(LlmAnswerReaderTest, ErrorsAreClearWhateverTheirShape) {
  EXPECT_THAT(Read("data: {\"error\":{\"message\":\"model not loaded\"}}\n"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("model not loaded")));
  // A message that is not a string, or an error that is not an object: said as JSON, not thrown.
  EXPECT_THAT(Read("data: {\"error\":{\"message\":5}}\n"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("{\"message\":5}")));
  EXPECT_THAT(Read("data: {\"error\":[1,2]}\n"), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("[1,2]")));
  EXPECT_THAT(Read(R"({"error": "busy"})"), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("busy")));
}

TEST(LlmAnswerReaderTest, WhatIsNotAnAnswerIsDataLoss) {
  EXPECT_THAT(Read("<html>bad gateway</html>"), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not JSON")));
  EXPECT_THAT(Read("data: {not json\n"), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not JSON")));
  EXPECT_THAT(Read("data: {\"choices\":[{\"delta\":{}}]}\n"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("ended early")));
  EXPECT_THAT(Read(R"({"choices":[{"message":{"content":7}}]})"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("no choices[0].message.content")));
  EXPECT_THAT(Read(R"(["choices"])"), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("no choices")));
  EXPECT_THAT(Read("data: [DONE]\n"), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("empty translation")));
  EXPECT_THAT(Read(""), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("JSON")));
}

}  // namespace
}  // namespace lingcast
