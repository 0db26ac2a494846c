#include "lipsync/dialog_alignment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "audio/audio_decoder.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

const std::string kJfkPath = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/en-jfk.wav";
constexpr char kJfkText[] =
    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.\n";

TEST(SpreadPhonesTest, CoversTheWordVowelsLongerThanStops) {
  const std::vector<PhonemeEvent> events =
      SpreadPhones({"K", "AE1", "T"}, MediaTime::Millis(100), MediaTime::Millis(400));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events.front().start, MediaTime::Millis(100));
  EXPECT_EQ(events.back().start + events.back().duration, MediaTime::Millis(400));
  for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].start, events[i - 1].start + events[i - 1].duration);
  EXPECT_GT(events[1].duration, events[0].duration * 2);
  // Without stress digits (as the pocketsphinx dictionary spells them) too.
  const std::vector<PhonemeEvent> bare = SpreadPhones({"K", "AE", "T"}, MediaTime::Zero(), MediaTime::Millis(300));
  EXPECT_GT(bare[1].duration, bare[0].duration * 2);
  // Unstressed vowels are shorter than stressed ones.
  const std::vector<PhonemeEvent> sofa =
      SpreadPhones({"S", "OW1", "F", "AH0"}, MediaTime::Zero(), MediaTime::Millis(500));
  EXPECT_GT(sofa[1].duration, sofa[3].duration);
  EXPECT_TRUE(SpreadPhones({}, MediaTime::Zero(), MediaTime::Millis(100)).empty());
  EXPECT_TRUE(SpreadPhones({"AA1"}, MediaTime::Millis(100), MediaTime::Millis(100)).empty());
}

TEST(PronunciationDictionaryTest, LooksUpTheFirstPronunciation) {
  if (!std::filesystem::exists(kCmuDictPath)) GTEST_SKIP() << kCmuDictPath << " absent (pocketsphinx-en-us)";
  absl::StatusOr<PronunciationDictionary> dict = PronunciationDictionary::LoadWords(kCmuDictPath, {"hello", "read"});
  ASSERT_OK(dict);
  // The pocketsphinx copy of CMUdict has no stress digits.
  EXPECT_EQ(dict->Lookup("hello"), (std::vector<std::string>{"HH", "AH", "L", "OW"}));
  EXPECT_FALSE(dict->Lookup("read").empty());
  EXPECT_TRUE(dict->Lookup("world").empty());  // not asked for
  EXPECT_FALSE(PronunciationDictionary::LoadWords("/nonexistent/dict", {"a"}).ok());
}

TEST(LipSyncRecordingTest, DialogErrorsAndFallbacks) {
  testing_util::ScratchDir dir;
  const AudioBuffer silence = AudioBuffer::Silence(MediaTime::Seconds(1), 16000);
  RecordingLipSyncOptions options;
  absl::StatusOr<RecordingLipSync> none = LipSyncRecording(silence, options);
  ASSERT_OK(none);
  EXPECT_EQ(none->method, LipSyncMethod::kAudioOnly);
  EXPECT_EQ(none->note, "no dialog given");
  EXPECT_TRUE(none->track.cues.empty());

  options.dialog_path = dir.File("missing.txt");
  absl::StatusOr<RecordingLipSync> missing = LipSyncRecording(silence, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("missing.txt"), std::string::npos);

  options.dialog_path = dir.path();
  EXPECT_EQ(LipSyncRecording(silence, options).status().code(), absl::StatusCode::kInvalidArgument);

  std::ofstream(dir.File("zh.txt")) << "大家好，欢迎来到直播间。\n";
  options.dialog_path = dir.File("zh.txt");
  absl::StatusOr<RecordingLipSync> zh = LipSyncRecording(silence, options);
  ASSERT_OK(zh);
  EXPECT_EQ(zh->method, LipSyncMethod::kAudioOnly);
  EXPECT_NE(zh->note.find("Chinese"), std::string::npos);

  std::ofstream(dir.File("en.txt")) << kJfkText;
  options.dialog_path = dir.File("en.txt");
  options.model_dir = dir.File("no-model-here");
  absl::StatusOr<RecordingLipSync> no_model = LipSyncRecording(silence, options);
  ASSERT_OK(no_model);
  EXPECT_EQ(no_model->method, LipSyncMethod::kAudioOnly);
  EXPECT_NE(no_model->note.find("recognizer is unavailable"), std::string::npos) << no_model->note;

  AudioBuffer wrong_rate = AudioBuffer::Silence(MediaTime::Seconds(1), 44100);
  EXPECT_EQ(LipSyncRecording(wrong_rate, RecordingLipSyncOptions{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LipSyncRecordingTest, EnglishRecordingIsAlignedWithItsDialog) {
  if (!std::filesystem::exists(kJfkPath)) GTEST_SKIP() << kJfkPath << " is absent (../shared/data is not part of a clone)";
  if (!std::filesystem::exists(kCmuDictPath)) GTEST_SKIP() << kCmuDictPath << " absent (pocketsphinx-en-us)";
  testing_util::ScratchDir dir;
  std::ofstream(dir.File("dialog.txt")) << kJfkText;
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(kJfkPath, 16000);
  ASSERT_OK(audio);
  RecordingLipSyncOptions options;
  options.dialog_path = dir.File("dialog.txt");
  options.frame_rate = 30;
  absl::StatusOr<RecordingLipSync> result = LipSyncRecording(*audio, options);
  ASSERT_OK(result);
  ASSERT_EQ(result->method, LipSyncMethod::kAsrAlignment) << result->note;
  // "my fellow Americans ... country": bilabials (m, f-less) and rounded vowels appear.
  bool closure = false, rounded = false, open = false;
  for (const VisemeCue& c : result->track.cues) {
    closure |= c.shape == Viseme::kA;
    rounded |= c.shape == Viseme::kF;
    open |= c.shape == Viseme::kC || c.shape == Viseme::kD;
  }
  EXPECT_TRUE(closure && rounded && open);
  // Phones lie inside the audio, in order; the first speech is after the leading silence.
  ASSERT_FALSE(result->phones.phonemes.empty());
  EXPECT_GT(result->phones.phonemes.front().start, MediaTime::Millis(200));
  EXPECT_LE(result->phones.phonemes.back().start, audio->duration());
  // The long pause after "Americans" (about 1 s) shows the rest shape.
  bool rest_inside = false;
  for (size_t i = 1; i + 1 < result->track.cues.size(); ++i) {
    const VisemeCue& c = result->track.cues[i];
    rest_inside |= c.shape == Viseme::kX && c.end - c.start >= MediaTime::Millis(300);
  }
  EXPECT_TRUE(rest_inside);
}

}  // namespace
}  // namespace lingcast
