// VitsTts: the tiny checkpoint behind the TtsEngine interface -- the audio the
// model makes, a phoneme and word track that follows the predicted durations,
// and the settings it cannot honour refused with the value named.
#include "neural/vits/vits_tts.h"

#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::TestdataDir;

std::unique_ptr<VitsTts> Tiny() {
  VitsTtsOptions options;
  options.model_dir = TestdataDir("vits_tiny");
  auto tts = VitsTts::Create(options);
  EXPECT_OK(tts);
  return tts.ok() ? *std::move(tts) : nullptr;
}

TEST(VitsTts, SpeaksWithATrackThatFollowsTheDurations) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  EXPECT_EQ(tts->sample_rate(), 16000);
  EXPECT_EQ(tts->name(), "vits");
  SynthesisRequest request;
  request.text = "Hello big world";
  auto result = tts->Synthesize(request);
  ASSERT_OK(result);
  ASSERT_FALSE(result->audio.empty());
  // The model's own hop: whole frames of 8 samples.
  EXPECT_EQ(result->audio.samples.size() % 8, 0u);
  ASSERT_EQ(result->track.words.size(), 3u);
  EXPECT_EQ(request.text.substr(result->track.words[1].text_offset, result->track.words[1].text_length), "big");
  EXPECT_EQ(request.text.substr(result->track.words[2].text_offset, result->track.words[2].text_length), "world");
  EXPECT_LT(result->track.words[0].start, result->track.words[1].start);
  EXPECT_LT(result->track.words[2].start, result->audio.duration());
  // One event per character (plus a leading pause for the first blank): h, ɛ, l, l, ɒ, ...
  std::string phonemes;
  for (const auto& p : result->track.phonemes) phonemes += p.phoneme + " ";
  EXPECT_NE(phonemes.find("h ɛ l l ɒ _ b ɪ ɡ _ w ɒ ɹ l d"), std::string::npos) << phonemes;
  for (std::size_t i = 1; i < result->track.phonemes.size(); ++i) {
    EXPECT_LT(result->track.phonemes[i - 1].start, result->track.phonemes[i].start);
  }
}

TEST(VitsTts, SameTextSameAudioAndFasterRateShorter) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  SynthesisRequest request;
  request.text = "keep it simple";
  auto a = tts->Synthesize(request);
  auto b = tts->Synthesize(request);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->audio.samples, b->audio.samples);
  request.rate = 2.0;
  auto fast = tts->Synthesize(request);
  ASSERT_OK(fast);
  EXPECT_LT(fast->audio.samples.size(), a->audio.samples.size());
}

TEST(VitsTts, NothingToSayGivesEmptyAudio) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  SynthesisRequest request;
  request.text = "... !?";
  auto result = tts->Synthesize(request);
  ASSERT_OK(result);
  EXPECT_TRUE(result->audio.empty());
  EXPECT_EQ(result->audio.sample_rate, 16000);
}

TEST(VitsTts, SessionsSpeakClausesAndStopWhenCancelled) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  VoiceSettings settings;
  auto session = tts->OpenSession(settings);
  ASSERT_OK(session);
  auto clause = (*session)->SynthesizeClause("one clause", Language::kEn);
  ASSERT_OK(clause);
  EXPECT_FALSE(clause->audio.empty());
  (*session)->Cancel();
  EXPECT_TRUE((*session)->cancelled());
  EXPECT_EQ((*session)->SynthesizeClause("another", Language::kEn).status().code(), absl::StatusCode::kCancelled);
}

TEST(VitsTts, RefusesWhatItCannotDo) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  SynthesisRequest request;
  request.text = "hello";
  request.voice = "en-gb";
  EXPECT_EQ(tts->Synthesize(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.voice.clear();
  request.pitch = 1.5;
  auto pitch = tts->Synthesize(request);
  EXPECT_NE(pitch.status().message().find("pitch 1.5"), std::string::npos) << pitch.status();
  request.pitch = 1.0;
  request.language = Language::kZh;
  auto zh = tts->Synthesize(request);
  EXPECT_NE(zh.status().message().find("speaks eng, not zh"), std::string::npos) << zh.status();
  VoiceSettings settings;
  settings.rate = -1;
  EXPECT_EQ(tts->OpenSession(settings).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(VitsTts, BadCheckpointIsOneLineNamingIt) {
  VitsTtsOptions options;
  options.model_dir = TestdataDir("marian_tiny");
  auto tts = VitsTts::Create(options);
  ASSERT_FALSE(tts.ok());
  EXPECT_EQ(tts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(tts.status().message().find("not a VITS"), std::string::npos) << tts.status();
  options.model_dir = "/nonexistent/model";
  EXPECT_EQ(VitsTts::Create(options).status().code(), absl::StatusCode::kNotFound);
}

// A weights file cut short is the user's checkpoint at fault, not lingcast: the
// loader's DataLoss reaches the command line as bad input (exit 2) naming the file.
TEST(VitsTts, TruncatedWeightsAreBadInputNamingTheFile) {
  ScratchDir dir;
  testing::CopyDir(TestdataDir("vits_tiny"), dir.path());
  testing::TruncateFile(dir.File("model.safetensors"), testing::FileSize(dir.File("model.safetensors")) / 2);
  VitsTtsOptions options;
  options.model_dir = dir.path();
  auto tts = VitsTts::Create(options);
  ASSERT_FALSE(tts.ok());
  EXPECT_EQ(tts.status().code(), absl::StatusCode::kInvalidArgument) << tts.status();
  EXPECT_NE(tts.status().message().find("model.safetensors"), std::string::npos) << tts.status();
  EXPECT_EQ(tts.status().message().find('\n'), std::string::npos) << tts.status();
}

// The parts a session streams, joined, and how many there were.
struct Parts {
  SynthesisResult joined;
  std::size_t count = 0;
  std::size_t with_track = 0;
};
absl::StatusOr<Parts> StreamParts(TtsSession& session, std::string_view text) {
  Parts parts;
  const absl::Status status = session.StreamClause(text, Language::kEn, [&](SynthesisResult part) {
    ++parts.count;
    if (!part.track.phonemes.empty()) ++parts.with_track;
    AppendClausePart(parts.joined, std::move(part));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return parts;
}

// The tiny voice streaming in `chunking`, and a session of it.
struct ChunkedTiny {
  std::unique_ptr<VitsTts> tts;
  std::unique_ptr<TtsSession> session;
};
ChunkedTiny OpenChunkedTiny(VocoderChunking chunking) {
  VitsTtsOptions options;
  options.model_dir = TestdataDir("vits_tiny");
  options.chunking = chunking;
  ChunkedTiny out;
  auto tts = VitsTts::Create(options);
  EXPECT_OK(tts);
  if (!tts.ok()) return out;
  out.tts = *std::move(tts);
  auto session = out.tts->OpenSession({});
  EXPECT_OK(session);
  if (session.ok()) out.session = *std::move(session);
  return out;
}

TEST(VitsTts, AStreamedClauseIsTheWholeClauseInParts) {
  ChunkedTiny tiny = OpenChunkedTiny({4, 16});
  ASSERT_NE(tiny.session, nullptr);
  const std::string text = "a clause long enough to be cut";
  auto whole = tiny.session->SynthesizeClause(text, Language::kEn);
  ASSERT_OK(whole);
  auto parts = StreamParts(*tiny.session, text);
  ASSERT_OK(parts);
  EXPECT_GT(parts->count, 2u);
  EXPECT_EQ(parts->with_track, 1u);  // the first part carries the whole track
  ASSERT_EQ(parts->joined.audio.samples.size(), whole->audio.samples.size());
  for (std::size_t i = 0; i < whole->audio.samples.size(); ++i) {
    ASSERT_NEAR(parts->joined.audio.samples[i], whole->audio.samples[i], 1e-5) << "sample " << i;
  }
  EXPECT_EQ(parts->joined.audio.sample_rate, whole->audio.sample_rate);
  ASSERT_EQ(parts->joined.track.phonemes.size(), whole->track.phonemes.size());
  for (std::size_t i = 0; i < whole->track.phonemes.size(); ++i) {
    EXPECT_EQ(parts->joined.track.phonemes[i].phoneme, whole->track.phonemes[i].phoneme);
    EXPECT_EQ(parts->joined.track.phonemes[i].start, whole->track.phonemes[i].start);
    EXPECT_EQ(parts->joined.track.phonemes[i].duration, whole->track.phonemes[i].duration);
  }
  ASSERT_EQ(parts->joined.track.words.size(), whole->track.words.size());
  for (std::size_t i = 0; i < whole->track.words.size(); ++i) {
    EXPECT_EQ(parts->joined.track.words[i].start, whole->track.words[i].start);
    EXPECT_EQ(parts->joined.track.words[i].text_offset, whole->track.words[i].text_offset);
  }
  // Nothing to say: one empty part.
  auto nothing = StreamParts(*tiny.session, "");
  ASSERT_OK(nothing);
  EXPECT_EQ(nothing->count, 1u);
  EXPECT_TRUE(nothing->joined.audio.empty());
}

TEST(VitsTts, LongSpeechIsDecodedInBoundedChunksWithTheSameSamples) {
  auto make = [](std::int64_t whole_chunk_frames) {
    VitsTtsOptions options;
    options.model_dir = TestdataDir("vits_tiny");
    options.whole_chunk_frames = whole_chunk_frames;
    auto tts = VitsTts::Create(options);
    EXPECT_OK(tts);
    return tts.ok() ? *std::move(tts) : nullptr;
  };
  auto chunked = make(4), whole = make(1 << 20);
  ASSERT_NE(chunked, nullptr);
  ASSERT_NE(whole, nullptr);
  SynthesisRequest request;
  request.text = "a line long enough for several chunks of four frames";
  auto a = chunked->Synthesize(request);
  auto b = whole->Synthesize(request);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_GT(b->audio.samples.size(), 8u * 8 * 4);  // 32 frames of 8 samples: several chunks of 4
  ASSERT_EQ(a->audio.samples.size(), b->audio.samples.size());
  for (std::size_t i = 0; i < a->audio.samples.size(); ++i) ASSERT_NEAR(a->audio.samples[i], b->audio.samples[i], 1e-5) << i;
  EXPECT_EQ(a->track.phonemes.size(), b->track.phonemes.size());
}

TEST(VitsTts, BadChunkingIsRefusedAtLoad) {
  VitsTtsOptions options;
  options.model_dir = TestdataDir("vits_tiny");
  options.chunking = {0, 4};
  auto bad_first = VitsTts::Create(options);
  ASSERT_FALSE(bad_first.ok());
  EXPECT_EQ(bad_first.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_first.status().message().find("vocoder chunks of 0"), std::string::npos) << bad_first.status();
  options.chunking = {};
  options.whole_chunk_frames = 0;
  auto bad_whole = VitsTts::Create(options);
  ASSERT_FALSE(bad_whole.ok());
  EXPECT_EQ(bad_whole.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(VitsTts, ASinkErrorOrACancelStopsTheClause) {
  ChunkedTiny tiny = OpenChunkedTiny({2, 2});
  ASSERT_NE(tiny.session, nullptr);
  std::size_t parts = 0;
  absl::Status status = tiny.session->StreamClause("stop here please", Language::kEn, [&](SynthesisResult) {
    ++parts;
    return absl::DataLossError("the output is full");
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(parts, 1u);
  parts = 0;
  status = tiny.session->StreamClause("stop here please", Language::kEn, [&](SynthesisResult) {
    ++parts;
    tiny.session->Cancel();  // as another thread would, mid-clause
    return absl::OkStatus();
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_EQ(parts, 1u);
  EXPECT_EQ(tiny.session->StreamClause("more", Language::kEn, [](SynthesisResult) { return absl::OkStatus(); }).code(),
            absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace lingcast::neural
