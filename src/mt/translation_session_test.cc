#include "mt/translation_session.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/tm_translator.h"
#include "mt/translation_memory.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

// A word-for-word engine (English -> Chinese): enough to show how partial
// sources turn into partial translations, and it counts its calls.
class WordForWord final : public Translator {
 public:
  explicit WordForWord(std::map<std::string, std::string> words) : words_(std::move(words)) {}
  std::string name() const override { return "words"; }
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop,
                                        const PartialTranslation&) override {
    if (stop.stop_requested()) return absl::CancelledError("stopped");
    ++calls;
    std::istringstream in(request.source);
    std::string word, out;
    while (in >> word) {
      auto it = words_.find(word);
      out += it == words_.end() ? word : it->second;
    }
    return Translation{out, name(), 0.5};
  }
  int calls = 0;

 private:
  std::map<std::string, std::string> words_;
};

// An engine that answers from a list, one answer per call, whatever the source.
class Answers final : public Translator {
 public:
  explicit Answers(std::deque<std::string> answers) : answers_(std::move(answers)) {}
  std::string name() const override { return "answers"; }
  absl::StatusOr<Translation> Translate(const TranslationRequest&, std::stop_token,
                                        const PartialTranslation&) override {
    std::string answer = answers_.front();
    if (answers_.size() > 1) answers_.pop_front();
    return Translation{answer, name(), 0.5};
  }

 private:
  std::deque<std::string> answers_;
};

TranslationSessionOptions EnToZh() {
  TranslationSessionOptions options;
  options.from = Language::kEn;
  options.to = Language::kZh;
  return options;
}

TEST(TranslationSessionTest, GrowingSourceGivesGrowingStableText) {
  WordForWord engine({{"buy", "买"}, {"one", "一"}, {"get", "送"}, {"free", "免费"}});
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, EnToZh());
  ASSERT_OK(session);

  auto first = session->Update("buy one");
  ASSERT_OK(first);
  ASSERT_TRUE(first->has_value());
  // One translation is not yet an agreement: all of it is provisional.
  EXPECT_EQ((*first)->stable, "");
  EXPECT_EQ((*first)->provisional, "买一");

  // One more word is below min_new_tokens (2): no engine call, nothing new.
  auto small = session->Update("buy one get");
  ASSERT_OK(small);
  EXPECT_FALSE(small->has_value());
  EXPECT_EQ(engine.calls, 1);

  auto second = session->Update("buy one get one");
  ASSERT_OK(second);
  ASSERT_TRUE(second->has_value());
  EXPECT_EQ((*second)->stable, "买一");  // both translations begin with it
  EXPECT_EQ((*second)->provisional, "送一");
  EXPECT_EQ((*second)->text(), "买一送一");

  absl::StatusOr<SessionOutput> final = session->Finish("buy one get one free");
  ASSERT_OK(final);
  EXPECT_TRUE(final->final);
  EXPECT_FALSE(final->revised);
  EXPECT_EQ(final->stable, "买一送一免费");
  EXPECT_EQ(final->provisional, "");
  EXPECT_EQ(final->engine, "words");
  EXPECT_EQ(final->engine_calls, 3);
}

TEST(TranslationSessionTest, StableTextNeverShrinksWhenTheEngineChangesItsMind) {
  // English target: units are words. The third translation rewrites the
  // beginning; what was stable stays shown, the new tail follows it.
  Answers engine({"The cream", "The cream keeps", "This cream keeps skin", "This cream keeps skin soft"});
  TranslationSessionOptions options;
  options.from = Language::kZh;
  options.to = Language::kEn;
  options.min_new_tokens = 1;
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, options);
  ASSERT_OK(session);
  std::vector<std::string> stable;
  for (const std::string source : {"这款", "这款面霜", "这款面霜让皮肤", "这款面霜让皮肤柔软"}) {
    auto out = session->Update(source);
    ASSERT_OK(out);
    ASSERT_TRUE(out->has_value());
    if (!stable.empty()) {
      EXPECT_EQ((*out)->stable.rfind(stable.back(), 0), 0u) << "stable text shrank: " << (*out)->stable;
    }
    stable.push_back((*out)->stable);
  }
  EXPECT_EQ(stable[0], "");
  EXPECT_EQ(stable[1], "The cream ");
  EXPECT_EQ(stable[2], "The cream ");  // "This" disagrees with "The": nothing new agreed
  EXPECT_EQ(stable[3], "The cream ");  // agreed "This cream keeps skin " does not go on from it

  absl::StatusOr<SessionOutput> final = session->Finish("这款面霜让皮肤柔软");
  ASSERT_OK(final);
  EXPECT_TRUE(final->revised);  // the display must replace "The cream"
  EXPECT_EQ(final->stable, "This cream keeps skin soft");
}

TEST(TranslationSessionTest, ARevisedLastWordIsTranslatedAgain) {
  WordForWord engine({{"red", "红色"}, {"bed", "床"}, {"dress", "裙子"}, {"the", ""}});
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, EnToZh());
  ASSERT_OK(session);
  ASSERT_OK(session->Update("the red bed"));
  // The recognizer changed its mind about the last word: same length, new text.
  auto changed = session->Update("the red dress");
  ASSERT_OK(changed);
  ASSERT_TRUE(changed->has_value());
  EXPECT_EQ((*changed)->stable, "红色");
  EXPECT_EQ((*changed)->provisional, "裙子");
  EXPECT_EQ(engine.calls, 2);
}

TEST(TranslationSessionTest, FinalOfWhatWasTranslatedCostsNoSecondCall) {
  WordForWord engine({{"hello", "你好"}, {"everyone", "大家"}});
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, EnToZh());
  ASSERT_OK(session);
  ASSERT_OK(session->Update("hello everyone"));
  absl::StatusOr<SessionOutput> final = session->Finish("hello everyone");
  ASSERT_OK(final);
  EXPECT_EQ(final->stable, "你好大家");
  EXPECT_EQ(engine.calls, 1);
  // Done: a new segment needs a new session.
  EXPECT_EQ(session->Update("more").status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(session->Finish("more").status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(TranslationSessionTest, MemoryMissIsNothingNewNotAnError) {
  TranslationMemory memory;
  memory.Add(TmEntry{"Do not forget to follow our channel", "别忘了关注我们的频道", Language::kEn, Language::kZh, "t"});
  TmTranslator tm(memory);
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(tm, EnToZh());
  ASSERT_OK(session);
  auto early = session->Update("do not");
  ASSERT_OK(early);
  EXPECT_FALSE(early->has_value());  // too little of the line for a fuzzy match
  auto most = session->Update("do not forget to follow our");
  ASSERT_OK(most);
  ASSERT_TRUE(most->has_value());  // 6 of 7 words: a fuzzy match of the whole line
  EXPECT_EQ((*most)->provisional, "别忘了关注我们的频道");
  EXPECT_EQ((*most)->engine, "tm");
  // The final of a line the memory does not know is an error the caller sees.
  absl::StatusOr<SessionOutput> final = session->Finish("something else entirely");
  EXPECT_EQ(final.status().code(), absl::StatusCode::kNotFound);
}

TEST(TranslationSessionTest, CancelStopsTheCallInFlightAndEveryLaterOne) {
  // An engine that waits for its stop token: the call in flight ends only
  // because the session was cancelled from another thread.
  class WaitsForStop final : public Translator {
   public:
    std::string name() const override { return "slow"; }
    absl::StatusOr<Translation> Translate(const TranslationRequest&, std::stop_token stop,
                                          const PartialTranslation&) override {
      std::unique_lock<std::mutex> lock(mu);
      started = true;
      cv.notify_all();
      std::condition_variable_any wait;
      wait.wait(lock, stop, [] { return false; });
      return absl::CancelledError("stopped");
    }
    std::mutex mu;
    std::condition_variable cv;
    bool started = false;
  } engine;
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, EnToZh());
  ASSERT_OK(session);
  std::thread canceller([&] {
    std::unique_lock<std::mutex> lock(engine.mu);
    engine.cv.wait(lock, [&] { return engine.started; });
    lock.unlock();
    session->Cancel();
  });
  auto out = session->Update("a line that never gets translated");
  canceller.join();
  EXPECT_EQ(out.status().code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(session->cancelled());
  EXPECT_EQ(session->Update("more words come").status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(session->Finish("more words come").status().code(), absl::StatusCode::kCancelled);
}

TEST(TranslationSessionTest, BadOptionsAreClearErrors) {
  WordForWord engine({});
  TranslationSessionOptions options = EnToZh();
  options.min_new_tokens = 0;
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("min_new_tokens is 0"));
  options = EnToZh();
  options.agreement = 0;
  absl::StatusOr<TranslationSession> second = TranslationSession::Create(engine, options);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("agreement is 0"));
}

TEST(TranslationSessionTest, AgreementOfOneShowsEverythingAsStable) {
  WordForWord engine({{"buy", "买"}, {"now", "现在"}});
  TranslationSessionOptions options = EnToZh();
  options.agreement = 1;
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, options);
  ASSERT_OK(session);
  auto out = session->Update("buy now");
  ASSERT_OK(out);
  ASSERT_TRUE(out->has_value());
  EXPECT_EQ((*out)->stable, "买现在");
  EXPECT_EQ((*out)->provisional, "");
}

}  // namespace
}  // namespace lingcast
