#include "mt/translator_chain.h"

#include <deque>

#include "core/clock.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/glossary.h"
#include "mt/tm_translator.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

// An engine whose answers the test scripts, one per call (the last one repeats).
class ScriptedEngine final : public Translator {
 public:
  ScriptedEngine(std::string name, std::deque<absl::StatusOr<std::string>> answers, int* calls)
      : name_(std::move(name)), answers_(std::move(answers)), calls_(calls) {}
  std::string name() const override { return name_; }
  absl::StatusOr<Translation> Translate(const TranslationRequest&, std::stop_token,
                                        const PartialTranslation&) override {
    ++*calls_;
    absl::StatusOr<std::string> answer = answers_.front();
    if (answers_.size() > 1) answers_.pop_front();
    if (!answer.ok()) return answer.status();
    return Translation{*answer, name_, 0.8};
  }

 private:
  std::string name_;
  std::deque<absl::StatusOr<std::string>> answers_;
  int* calls_;
};

struct ChainFixture {
  TranslationMemory memory;
  SimulatedClock clock;
  int llm_calls = 0;

  std::unique_ptr<TranslatorChain> Make(std::deque<absl::StatusOr<std::string>> llm_answers,
                                        CircuitBreakerConfig breaker = {}) {
    std::vector<std::unique_ptr<Translator>> engines;
    engines.push_back(std::make_unique<TmTranslator>(memory));
    engines.push_back(std::make_unique<ScriptedEngine>("llm", std::move(llm_answers), &llm_calls));
    return std::make_unique<TranslatorChain>(std::move(engines), clock, breaker);
  }
};

TranslationRequest Request(std::string source) { return TranslationRequest{std::move(source)}; }

TEST(TranslatorChainTest, MemoryFirstThenTheNextEngine) {
  ChainFixture f;
  f.memory.Add(TmEntry{"欢迎来到直播间", "Welcome to the live room", Language::kZh, Language::kEn, "show:1"});
  auto chain = f.Make({std::string("from the llm")});
  absl::StatusOr<Translation> hit = chain->Translate(Request("欢迎来到直播间！"));
  ASSERT_OK(hit);
  EXPECT_EQ(hit->engine, "tm");
  EXPECT_EQ(hit->origin, "show:1");
  EXPECT_EQ(f.llm_calls, 0);
  absl::StatusOr<Translation> miss = chain->Translate(Request("今天天气怎么样"));
  ASSERT_OK(miss);
  EXPECT_EQ(miss->engine, "llm");
  EXPECT_EQ(miss->text, "from the llm");
  EXPECT_EQ(chain->name(), "tm+llm");
  EXPECT_EQ(chain->counters()[0].missed, 1);
}

TEST(TranslatorChainTest, AppliesTheGlossaryToEveryEngine) {
  ChainFixture f;
  absl::StatusOr<Glossary> glossary = Glossary::Parse("小米\tXiaomi\n", "g.tsv");
  ASSERT_OK(glossary);
  auto chain = f.Make({std::string("The new XIAOMI phone")});
  TranslationRequest request = Request("小米新手机");
  request.glossary = &*glossary;
  absl::StatusOr<Translation> result = chain->Translate(request);
  ASSERT_OK(result);
  EXPECT_EQ(result->text, "The new Xiaomi phone");
  EXPECT_EQ(result->glossary_fixed, 1);
}

TEST(TranslatorChainTest, AllMissIsNotFoundNamingEachEngine) {
  ChainFixture f;
  auto chain = f.Make({absl::NotFoundError("nothing")});
  absl::StatusOr<Translation> result = chain->Translate(Request("你好"));
  EXPECT_TRUE(absl::IsNotFound(result.status()));
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("tm: no translation memory match"));
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("llm: nothing"));
}

TEST(TranslatorChainTest, BreakerOpensAfterFailuresAndRetriesAfterCooldown) {
  ChainFixture f;
  auto chain = f.Make({absl::UnavailableError("connection refused"), absl::UnavailableError("connection refused"),
                       absl::UnavailableError("connection refused"), std::string("back")},
                      CircuitBreakerConfig{3, MediaTime::Seconds(30)});
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Translation> result = chain->Translate(Request("你好"));
    EXPECT_TRUE(absl::IsUnavailable(result.status())) << result.status();
  }
  EXPECT_EQ(f.llm_calls, 3);
  // Open: the dead engine is not called again until the cooldown is over.
  absl::StatusOr<Translation> skipped = chain->Translate(Request("你好"));
  EXPECT_TRUE(absl::IsUnavailable(skipped.status()));
  EXPECT_THAT(std::string(skipped.status().message()), HasSubstr("llm: skipped"));
  EXPECT_EQ(f.llm_calls, 3);
  f.clock.Advance(MediaTime::Seconds(30));
  absl::StatusOr<Translation> retried = chain->Translate(Request("你好"));
  ASSERT_OK(retried);
  EXPECT_EQ(retried->text, "back");
  EXPECT_EQ(f.llm_calls, 4);
  std::vector<EngineCounters> counters = chain->counters();
  EXPECT_EQ(counters[1].failed, 3);
  EXPECT_EQ(counters[1].skipped, 1);
  EXPECT_EQ(counters[1].translated, 1);
}

TEST(TranslatorChainTest, HalfOpenFailureOpensAgainAtOnce) {
  SimulatedClock clock;
  CircuitBreaker breaker(clock, CircuitBreakerConfig{2, MediaTime::Seconds(10)});
  breaker.RecordFailure();
  EXPECT_TRUE(breaker.Allow());
  breaker.RecordFailure();
  EXPECT_FALSE(breaker.Allow());
  clock.Advance(MediaTime::Seconds(10));
  EXPECT_TRUE(breaker.Allow());
  EXPECT_EQ(breaker.state(), CircuitBreaker::State::kHalfOpen);
  breaker.RecordFailure();
  EXPECT_EQ(breaker.state(), CircuitBreaker::State::kOpen);
  EXPECT_FALSE(breaker.Allow());
}

TEST(TranslatorChainTest, CancelledStopsTheChain) {
  ChainFixture f;
  auto chain = f.Make({std::string("x")});
  std::stop_source stop;
  stop.request_stop();
  absl::StatusOr<Translation> result = chain->Translate(Request("你好"), stop.get_token());
  EXPECT_TRUE(absl::IsCancelled(result.status()));
  EXPECT_EQ(f.llm_calls, 0);
}

}  // namespace
}  // namespace lingcast
