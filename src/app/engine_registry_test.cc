#include "app/engine_registry.h"
#include "app/studio.h"
#include "app/whisper_recognizer.h"
#include "core/status_matchers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

namespace lingcast {
namespace {

TEST(EngineRegistryTest, EachCommandListsTheEnginesItsFlagsTake) {
  EXPECT_EQ(EngineNames(EngineRole::kRecognizer, kUsedByLive), "auto, whisper or pocketsphinx");
  EXPECT_EQ(EngineNames(EngineRole::kVoice, kUsedByLive), "auto, espeak or vits");
  EXPECT_EQ(EngineNames(EngineRole::kVoice, kUsedByRender), "auto or espeak");
  EXPECT_EQ(EngineNames(EngineRole::kVoice, kUsedByTtsCommand), "auto, espeak, vits or fastspeech2");
  EXPECT_EQ(EngineNames(EngineRole::kTranslator, kUsedByTranslate), "tm, llm or marian");
}

TEST(EngineRegistryTest, AnUnknownOrUnofferedNameIsOneLineNamingTheFlag) {
  EXPECT_OK(CheckEngineFlag(EngineRole::kVoice, "vits", kUsedByLive, "--tts"));
  const absl::Status festival = CheckEngineFlag(EngineRole::kVoice, "festival", kUsedByLive, "--tts");
  EXPECT_EQ(festival.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(festival.message(), "unknown --tts \"festival\" (use auto, espeak or vits)");
  // render offers no VITS checkpoint flag.
  EXPECT_EQ(CheckEngineFlag(EngineRole::kVoice, "vits", kUsedByRender, "--tts").message(),
            "unknown --tts \"vits\" (use auto or espeak)");
  // A name of another role is not taken.
  EXPECT_FALSE(CheckEngineFlag(EngineRole::kRecognizer, "espeak", kUsedByLive, "--asr").ok());
}

TEST(EngineRegistryTest, TheTableIsConsistent) {
  std::set<std::pair<EngineRole, std::string>> seen;
  for (const EngineInfo& engine : Engines()) {
    EXPECT_TRUE(seen.insert({engine.role, std::string(engine.name)}).second) << engine.name << " twice";
    EXPECT_FALSE(engine.languages.empty()) << engine.name;
    EXPECT_NE(engine.used_by, 0u) << engine.name;
    EXPECT_FALSE(engine.summary.empty()) << engine.name;
    // A chooser only picks among the others: it needs no model and no plug-in itself.
    if (engine.chooser) {
      EXPECT_FALSE(engine.neural || engine.needs_model_dir) << engine.name;
    }
  }
  const EngineInfo* pocketsphinx = FindEngine(EngineRole::kRecognizer, "pocketsphinx", kUsedByAsrCommand);
  ASSERT_NE(pocketsphinx, nullptr);
  EXPECT_EQ(pocketsphinx->languages, std::vector<Language>{Language::kEn});
  EXPECT_FALSE(pocketsphinx->neural);
  EXPECT_TRUE(FindEngine(EngineRole::kTranslator, "marian", kUsedByFollow)->neural);
}

TEST(EngineRegistryTest, EveryEngineButAChooserHasTheFactoryOfItsRoleOnly) {
  for (const EngineInfo& engine : Engines()) {
    const bool recognizer = engine.make_recognizer != nullptr;
    const bool voice = engine.make_voice != nullptr;
    const bool translator = engine.make_translator != nullptr;
    if (engine.chooser) {
      EXPECT_FALSE(recognizer || voice || translator) << engine.name << ": a chooser's pick is made, not itself";
      continue;
    }
    EXPECT_EQ(recognizer, engine.role == EngineRole::kRecognizer) << engine.name;
    EXPECT_EQ(voice, engine.role == EngineRole::kVoice) << engine.name;
    EXPECT_EQ(translator, engine.role == EngineRole::kTranslator) << engine.name;
  }
}

TEST(EngineRegistryTest, AChooserHasNoFactoryToCall) {
  EXPECT_FALSE(MakeVoice("auto", VoiceEngineSettings{}).ok());
  EXPECT_FALSE(MakeRecognizer("auto", RecognizerSettings{}).ok());
}

TEST(EngineRegistryTest, NeuralEnginesAndChoosersThatMayPickOneAreNeural) {
  EXPECT_TRUE(AnyNeuralEngine(EngineRole::kRecognizer, {"whisper"}));
  EXPECT_FALSE(AnyNeuralEngine(EngineRole::kRecognizer, {"pocketsphinx"}));
  EXPECT_TRUE(AnyNeuralEngine(EngineRole::kVoice, {"auto"}));
  EXPECT_FALSE(AnyNeuralEngine(EngineRole::kVoice, {"espeak"}));
  EXPECT_TRUE(AnyNeuralEngine(EngineRole::kTranslator, {"tm", "marian"}));
  EXPECT_FALSE(AnyNeuralEngine(EngineRole::kTranslator, {"tm", "llm"}));
}

}  // namespace
}  // namespace lingcast
