#include "mt/llm_translator.h"

#include "core/clock.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/glossary.h"
#include "mt/loopback_http_server.h"
#include "mt/translator_chain.h"
#include "mt/tm_translator.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using Reply = LoopbackHttpServer::Reply;
using Json = nlohmann::json;

std::string Event(const std::string& content) {
  return "data: " + Json{{"choices", {{{"delta", {{"content", content}}}}}}}.dump() + "\n\n";
}

Reply Streamed(std::vector<std::string> pieces) {
  Reply reply;
  reply.content_type = "text/event-stream";
  for (const std::string& piece : pieces) reply.chunks.push_back(Event(piece));
  reply.chunks.push_back("data: [DONE]\n\n");
  return reply;
}

Reply Status(int status, std::string body = "{\"error\":{\"message\":\"no\"}}") {
  Reply reply;
  reply.status = status;
  reply.chunks = {std::move(body)};
  return reply;
}

struct LlmFixture {
  SimulatedClock clock{MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance};
  std::unique_ptr<LoopbackHttpServer> server;

  std::unique_ptr<LlmTranslator> Start(LoopbackHttpServer::Handler handler, LlmConfig config = {}) {
    absl::StatusOr<std::unique_ptr<LoopbackHttpServer>> started = LoopbackHttpServer::Start(std::move(handler));
    EXPECT_OK(started);
    server = *std::move(started);
    config.endpoint = server->url();
    if (config.attempt_timeout == LlmConfig{}.attempt_timeout) config.attempt_timeout = MediaTime::Millis(500);
    absl::StatusOr<std::unique_ptr<LlmTranslator>> llm = LlmTranslator::Create(config, clock);
    EXPECT_OK(llm);
    return *std::move(llm);
  }
};

TranslationRequest Request(std::string source) { return TranslationRequest{std::move(source)}; }

TEST(LlmTranslatorTest, StreamsTheAnswerAndReportsPartials) {
  LlmFixture f;
  auto llm = f.Start([](const LoopbackHttpServer::Request&) { return Streamed({"This cream", " is only", " 99 yuan."}); });
  std::vector<std::string> partials;
  absl::StatusOr<Translation> result =
      llm->Translate(Request("这款面霜只要99元"), {}, [&](std::string_view text) { partials.emplace_back(text); });
  ASSERT_OK(result);
  EXPECT_EQ(result->text, "This cream is only 99 yuan.");
  EXPECT_EQ(result->engine, "llm");
  EXPECT_EQ(partials, (std::vector<std::string>{"This cream", "This cream is only", "This cream is only 99 yuan."}));
  std::vector<LoopbackHttpServer::Request> received = f.server->received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].method, "POST");
  EXPECT_EQ(received[0].path, "/v1/chat/completions");
  Json body = Json::parse(received[0].body);
  EXPECT_TRUE(body["stream"].get<bool>());
  EXPECT_EQ(body["messages"].back()["content"], "这款面霜只要99元");
}

TEST(LlmTranslatorTest, AcceptsANonStreamedAnswer) {
  LlmFixture f;
  auto llm = f.Start([](const LoopbackHttpServer::Request&) {
    Reply reply;
    reply.chunks = {R"({"choices":[{"message":{"role":"assistant","content":"  Hello!  "}}]})"};
    return reply;
  });
  absl::StatusOr<Translation> result = llm->Translate(Request("你好"));
  ASSERT_OK(result);
  EXPECT_EQ(result->text, "Hello!");
}

TEST(LlmTranslatorTest, PromptCarriesGlossaryContextKeyAndModel) {
  LlmFixture f;
  LlmConfig config;
  config.model = "qwen2.5-7b";
  config.api_key = "secret-key";
  config.context_lines = 1;
  auto llm = f.Start([](const LoopbackHttpServer::Request&) { return Streamed({"ok"}); }, config);
  absl::StatusOr<Glossary> glossary = Glossary::Parse("小米\tXiaomi\n华为\tHuawei\n", "g.tsv");
  ASSERT_OK(glossary);
  TranslationRequest request = Request("小米手机今天特价");
  request.glossary = &*glossary;
  request.context = {{"第一句", "first"}, {"第二句", "second"}};
  ASSERT_OK(llm->Translate(request));
  const LoopbackHttpServer::Request sent = f.server->received().at(0);
  EXPECT_THAT(sent.headers, HasSubstr("Authorization: Bearer secret-key"));
  Json body = Json::parse(sent.body);
  EXPECT_EQ(body["model"], "qwen2.5-7b");
  const Json& messages = body["messages"];
  ASSERT_EQ(messages.size(), 4u);  // system, one context pair, the line
  EXPECT_THAT(messages[0]["content"].get<std::string>(), HasSubstr("小米 = Xiaomi"));
  EXPECT_THAT(messages[0]["content"].get<std::string>(), ::testing::Not(HasSubstr("Huawei")));
  EXPECT_EQ(messages[1]["content"], "第二句");
  EXPECT_EQ(messages[2]["content"], "second");
}

TEST(LlmTranslatorTest, RetriesADroppedConnection) {
  LlmFixture f;
  auto llm = f.Start([](const LoopbackHttpServer::Request& request) {
    if (request.index == 0) return Reply{Reply::Kind::kDrop};
    return Streamed({"second try"});
  });
  absl::StatusOr<Translation> result = llm->Translate(Request("你好"));
  ASSERT_OK(result);
  EXPECT_EQ(result->text, "second try");
  EXPECT_EQ(f.server->requests(), 2);
}

TEST(LlmTranslatorTest, ServerErrorsAreRetriedThenReported) {
  LlmFixture f;
  auto llm = f.Start([](const LoopbackHttpServer::Request&) { return Status(503); });
  absl::StatusOr<Translation> result = llm->Translate(Request("你好"));
  EXPECT_TRUE(absl::IsUnavailable(result.status())) << result.status();
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("HTTP 503 (after 3 attempts)"));
  EXPECT_EQ(f.server->requests(), 3);
}

TEST(LlmTranslatorTest, AuthenticationErrorsAreNotRetried) {
  LlmFixture f;
  auto llm = f.Start([](const LoopbackHttpServer::Request&) { return Status(401); });
  absl::StatusOr<Translation> result = llm->Translate(Request("你好"));
  EXPECT_TRUE(absl::IsPermissionDenied(result.status())) << result.status();
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("check the API key"));
  EXPECT_EQ(f.server->requests(), 1);
}

TEST(LlmTranslatorTest, InvalidJsonAndEmptyAnswersAreFailures) {
  LlmFixture f;
  LlmConfig config;
  config.max_attempts = 1;
  auto llm = f.Start(
      [](const LoopbackHttpServer::Request& request) {
        Reply reply;
        reply.chunks = {request.index == 0 ? std::string("<html>oops</html>") : std::string("")};
        if (request.index == 2) return Streamed({"   "});
        return reply;
      },
      config);
  absl::StatusOr<Translation> not_json = llm->Translate(Request("你好"));
  EXPECT_TRUE(absl::IsDataLoss(not_json.status())) << not_json.status();
  EXPECT_THAT(std::string(not_json.status().message()), HasSubstr("not JSON"));
  absl::StatusOr<Translation> empty_body = llm->Translate(Request("你好"));
  EXPECT_FALSE(empty_body.ok());
  absl::StatusOr<Translation> blank = llm->Translate(Request("你好"));
  EXPECT_TRUE(absl::IsUnavailable(blank.status())) << blank.status();
  EXPECT_THAT(std::string(blank.status().message()), HasSubstr("empty translation"));
}

TEST(LlmTranslatorTest, ASlowServerTimesOutWithThePartialSeen) {
  LlmFixture f;
  LlmConfig config;
  config.max_attempts = 1;
  config.attempt_timeout = MediaTime::Millis(300);
  auto llm = f.Start(
      [](const LoopbackHttpServer::Request&) {
        Reply reply = Streamed({"Half an"});
        reply.chunks.pop_back();  // no [DONE]
        reply.hang_after_chunks = true;
        return reply;
      },
      config);
  std::string partial;
  absl::StatusOr<Translation> result =
      llm->Translate(Request("你好"), {}, [&](std::string_view text) { partial = std::string(text); });
  EXPECT_TRUE(absl::IsDeadlineExceeded(result.status())) << result.status();
  EXPECT_EQ(partial, "Half an");
}

TEST(LlmTranslatorTest, AServerThatIsDownFallsBackToTheNextEngine) {
  SimulatedClock clock(MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance);
  // A port that was just free: nothing listens there.
  int port;
  {
    auto probe = LoopbackHttpServer::Start([](const LoopbackHttpServer::Request&) { return Reply{}; });
    ASSERT_OK(probe);
    port = (*probe)->port();
  }
  LlmConfig config;
  config.endpoint = absl::StrCat("http://127.0.0.1:", port, "/v1");
  absl::StatusOr<std::unique_ptr<LlmTranslator>> llm = LlmTranslator::Create(config, clock);
  ASSERT_OK(llm);
  TranslationMemory memory;
  memory.Add(TmEntry{"谢谢大家", "Thank you all", Language::kZh, Language::kEn, "show:9"});
  std::vector<std::unique_ptr<Translator>> engines;
  engines.push_back(std::move(*llm));
  engines.push_back(std::make_unique<TmTranslator>(memory));
  TranslatorChain chain(std::move(engines), clock);
  absl::StatusOr<Translation> result = chain.Translate(Request("谢谢大家"));
  ASSERT_OK(result);
  EXPECT_EQ(result->engine, "tm");
  EXPECT_EQ(chain.counters()[0].failed, 1);
}

TEST(LlmTranslatorTest, CancelStopsAHangingRequest) {
  LlmFixture f;
  LlmConfig config;
  config.attempt_timeout = MediaTime::Seconds(60);
  config.deadline = MediaTime::Seconds(60);
  auto llm = f.Start([](const LoopbackHttpServer::Request&) { return Reply{Reply::Kind::kHang}; }, config);
  std::stop_source stop;
  std::thread canceller([&] {
    while (f.server->requests() == 0) std::this_thread::yield();
    stop.request_stop();
  });
  absl::StatusOr<Translation> result = llm->Translate(Request("你好"), stop.get_token());
  canceller.join();
  EXPECT_TRUE(absl::IsCancelled(result.status())) << result.status();
}

TEST(LlmTranslatorTest, BadEndpointsAreClearErrors) {
  SimulatedClock clock;
  LlmConfig config;
  EXPECT_THAT(std::string(LlmTranslator::Create(config, clock).status().message()),
              HasSubstr("LINGCAST_LLM_ENDPOINT"));
  config.endpoint = "localhost:8080";
  EXPECT_THAT(std::string(LlmTranslator::Create(config, clock).status().message()),
              HasSubstr("is not an http:// or https:// URL"));
}

TEST(LlmTranslatorTest, ConfigComesFromTheEnvironmentWhereNotGiven) {
  setenv("LINGCAST_LLM_ENDPOINT", "http://10.0.0.1:8000", 1);
  setenv("LINGCAST_LLM_MODEL", "m", 1);
  setenv("OPENAI_API_KEY", "k", 1);
  LlmConfig given;
  given.model = "mine";
  LlmConfig config = LlmConfigFromEnvironment(given);
  EXPECT_EQ(config.endpoint, "http://10.0.0.1:8000");
  EXPECT_EQ(config.model, "mine");
  EXPECT_EQ(config.api_key, "k");
  unsetenv("LINGCAST_LLM_ENDPOINT");
  unsetenv("LINGCAST_LLM_MODEL");
  unsetenv("OPENAI_API_KEY");
}

}  // namespace
}  // namespace lingcast
