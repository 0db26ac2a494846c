#include "mt/follow_stage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "asr/asr_test_data.h"
#include "asr/pocketsphinx_engine.h"
#include "audio/audio_decoder.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "graph/harness.h"
#include "mt/tm_translator.h"

namespace lingcast {
namespace {

using testing_util::ScratchDir;

constexpr MediaTime kPiece = MediaTime::Millis(20);  // as audio/ingest_stage.h sends it

AudioBuffer Silence(MediaTime duration) {
  return AudioBuffer{kAsrSampleRate, 1,
                     std::vector<float>(static_cast<size_t>(duration.micros() * kAsrSampleRate / 1'000'000), 0.0f)};
}

// A second of silence, `speech`, a second of silence.
AudioBuffer Padded(const AudioBuffer& speech) {
  AudioBuffer all = Silence(MediaTime::Seconds(1));
  all.samples.insert(all.samples.end(), speech.samples.begin(), speech.samples.end());
  const AudioBuffer tail = Silence(MediaTime::Seconds(1));
  all.samples.insert(all.samples.end(), tail.samples.begin(), tail.samples.end());
  return all;
}

// A script with both reference recordings among distractor lines, each with
// its translation.
std::vector<FollowerLine> Script() {
  return {{1, "Hello everyone, and welcome to the live stream.", "", "大家好，欢迎来到直播间。"},
          {2, "Today we have a special offer on winter jackets.", "", "今天冬季夹克有特别优惠。"},
          {3, kJfk.transcript, "", "所以，我的美国同胞们，不要问国家能为你做什么，要问你能为国家做什么。"},
          {4, "The fabric is soft, warm and easy to wash.", "", "面料柔软保暖，容易清洗。"},
          {5, kLibri.transcript, "", "和睦回到了帐篷之间。"},
          {6, "Thank you for watching, and see you tomorrow night.", "", "感谢观看，明晚见。"}};
}

// pocketsphinx in script mode: a language model made from `lines`.
std::shared_ptr<PocketsphinxModel> ScriptModel(const ScratchDir& dir, const std::vector<FollowerLine>& lines) {
  const std::string path = dir.File("show.script");
  std::ofstream file(path);
  for (const FollowerLine& line : lines) file << "en: " << line.source << " | zh: " << line.translation << "\n";
  file.close();
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_path = path});
  EXPECT_OK(model);
  return model.ok() ? *model : nullptr;
}

struct Heard {
  std::vector<Packet<LiveEvent>> packets;
  MediaTime audio_end;
};

// `audio` in 20 ms pieces through a FollowStage, as the live job feeds it.
Heard Hear(const AsrModel& model, const std::vector<FollowerLine>& lines, const AudioBuffer& audio,
           FollowStageOptions options = {}) {
  SpeechFollowerOptions follower_options;
  follower_options.recognizer.partial_interval = MediaTime::Millis(250);  // as the live job asks
  absl::StatusOr<SpeechFollower> follower = SpeechFollower::Create(model, lines, follower_options);
  EXPECT_OK(follower);
  StageHarness<FollowStage> harness(std::make_unique<FollowStage>(*std::move(follower), lines, options));
  auto in = harness.Feed(harness.stage().in);
  auto out = harness.Collect(harness.stage().out);
  EXPECT_OK(harness.Open());
  const size_t piece = static_cast<size_t>(kPiece.micros() * kAsrSampleRate / 1'000'000);
  Heard heard;
  for (size_t begin = 0; begin < audio.samples.size(); begin += piece) {
    const size_t end = std::min(audio.samples.size(), begin + piece);
    AudioBuffer chunk{kAsrSampleRate, 1, {}};
    chunk.samples.assign(audio.samples.begin() + static_cast<std::ptrdiff_t>(begin),
                         audio.samples.begin() + static_cast<std::ptrdiff_t>(end));
    const MediaTime pts = MediaTime::Micros(static_cast<int64_t>(begin) * 1'000'000 / kAsrSampleRate);
    const MediaTime duration = MediaTime::Micros(static_cast<int64_t>(end - begin) * 1'000'000 / kAsrSampleRate);
    // Origin from the timeline, as the ingest stage stamps a file's pieces.
    in.Push(Packet<AudioBuffer>{std::move(chunk), pts, duration, pts + duration});
    heard.audio_end = pts + duration;
  }
  in.End();
  EXPECT_OK(harness.RunUntilFinished());
  EXPECT_TRUE(out.ended());
  heard.packets = out.Packets();
  return heard;
}

// What every run must show: watermarks (each event's pts) that never go back
// and end where the audio ends, lines numbered in decision order, and each
// line sent before its utterance's end.
void ExpectWellFormed(const Heard& heard) {
  ASSERT_FALSE(heard.packets.empty());
  MediaTime watermark;
  int64_t next_id = 0;
  int64_t ended_utterances = 0;
  for (const Packet<LiveEvent>& packet : heard.packets) {
    const LiveEvent& event = packet.value;
    EXPECT_EQ(packet.pts, event.watermark);
    EXPECT_GE(event.watermark, watermark) << "watermarks never go back";
    watermark = event.watermark;
    EXPECT_FALSE(event.caption.has_value()) << "captions are the translate stage's";
    if (event.line) {
      EXPECT_EQ(event.line->id, next_id++);
      EXPECT_GE(event.line->utterance, ended_utterances) << "a line of an utterance that already ended";
      EXPECT_LE(event.line->decided_at, event.watermark + kPiece);
    }
    if (event.ended) {
      EXPECT_EQ(event.ended->utterance, ended_utterances++);
      EXPECT_LT(event.ended->start, event.ended->end);
    }
  }
  EXPECT_EQ(heard.packets.back().value.watermark, heard.audio_end) << "everything heard has been decided";
  EXPECT_FALSE(heard.packets.back().value.line || heard.packets.back().value.ended) << "a last watermark";
}

TEST(FollowStageTest, SilenceSendsAWatermarkAfterEveryPieceAndNothingElse) {
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({});
  ASSERT_OK(model);
  const Heard heard = Hear(**model, {}, Silence(MediaTime::Seconds(1)));
  ExpectWellFormed(heard);
  ASSERT_EQ(heard.packets.size(), 51u) << "50 pieces of 20 ms, and the end of input";
  for (size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(heard.packets[i].value.watermark, kPiece * static_cast<int64_t>(i + 1));
    EXPECT_EQ(heard.packets[i].origin, kPiece * static_cast<int64_t>(i + 1)) << "the audio's origin";
  }
  for (const Packet<LiveEvent>& packet : heard.packets) {
    EXPECT_FALSE(packet.value.line || packet.value.ended || packet.value.partial);
  }
}

TEST(FollowStageTest, AScriptLineIsSentWithTheScriptsTranslationBeforeItsUtteranceEnds) {
  const std::string path = SpeechPath(kJfk.file);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << NoDataMessage(path);
  absl::StatusOr<AudioBuffer> jfk = DecodeAudioFile(path, kAsrSampleRate);
  ASSERT_OK(jfk);
  ScratchDir dir;
  const std::vector<FollowerLine> lines = Script();
  std::shared_ptr<PocketsphinxModel> model = ScriptModel(dir, lines);
  ASSERT_NE(model, nullptr);
  const Heard heard = Hear(*model, lines, Padded(*jfk));
  ExpectWellFormed(heard);

  const HeardLine* first = nullptr;
  const UtteranceEnded* first_end = nullptr;
  for (const Packet<LiveEvent>& packet : heard.packets) {
    if (packet.value.line && first == nullptr) first = &*packet.value.line;
    if (packet.value.ended && first_end == nullptr) first_end = &*packet.value.ended;
  }
  ASSERT_NE(first, nullptr);
  ASSERT_NE(first_end, nullptr);
  ASSERT_TRUE(first->line_number.has_value()) << first->heard;
  EXPECT_EQ(*first->line_number, 3) << first->heard;
  EXPECT_EQ(first->source_text, kJfk.transcript);
  EXPECT_EQ(first->translation, lines[2].translation);
  EXPECT_EQ(first->engine, "script");
  EXPECT_FALSE(first->heard.empty());
  EXPECT_GE(first->utterance_start, MediaTime::Millis(900)) << "after the leading second of silence";
  EXPECT_LE(first->decided_at, first_end->end) << "decided while the host was still speaking, or at the endpoint";
  EXPECT_GE(first->trigger_origin, first->decided_at) << "the origin of the audio that decided it";
}

TEST(FollowStageTest, WithoutAScriptEachUtteranceIsOneOffScriptLineAndPartialsGoOnWhenAsked) {
  const std::string path = SpeechPath(kLibri.file);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << NoDataMessage(path);
  absl::StatusOr<AudioBuffer> libri = DecodeAudioFile(path, kAsrSampleRate);
  ASSERT_OK(libri);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({});
  ASSERT_OK(model);
  ProvisionalInterrupt interrupt;
  FollowStageOptions options;
  options.partials = true;
  options.interrupt = &interrupt;
  const Heard heard = Hear(**model, {}, Padded(*libri), options);
  ExpectWellFormed(heard);

  int64_t lines = 0, ends = 0, partials = 0;
  for (size_t i = 0; i < heard.packets.size(); ++i) {
    const LiveEvent& event = heard.packets[i].value;
    if (event.partial) {
      ++partials;
      EXPECT_FALSE(event.partial->text.empty());
      EXPECT_EQ(event.partial->utterance, ends) << "a partial of the utterance being heard";
    }
    if (event.line) {
      ++lines;
      EXPECT_FALSE(event.line->line_number.has_value());
      EXPECT_TRUE(event.line->at_endpoint);
      EXPECT_FALSE(event.line->heard.empty());
      EXPECT_EQ(event.line->source_text, event.line->heard);
      EXPECT_TRUE(event.line->translation.empty()) << "the translate stage's work";
      EXPECT_EQ(event.line->engine, "");
      // Its utterance's end comes right after it.
      ASSERT_LT(i + 1, heard.packets.size());
      ASSERT_TRUE(heard.packets[i + 1].value.ended.has_value());
      EXPECT_EQ(heard.packets[i + 1].value.ended->utterance, event.line->utterance);
    }
    if (event.ended) ++ends;
  }
  EXPECT_GE(lines, 1);
  EXPECT_EQ(lines, ends);
  EXPECT_GT(partials, 0);
  // Every line and every utterance's end, and no partial, told the interrupt it
  // was urgent: a caption may start only once the translate stage has taken them all.
  TranslationMemory memory;
  TmTranslator engine(memory);
  absl::StatusOr<TranslationSession> session = TranslationSession::Create(engine, {});
  ASSERT_OK(session);
  EXPECT_FALSE(interrupt.Begin(*session, lines + ends - 1));
  EXPECT_TRUE(interrupt.Begin(*session, lines + ends));
  interrupt.End();
  EXPECT_EQ(interrupt.interrupted(), 0) << "no caption was being translated";
}

}  // namespace
}  // namespace lingcast
