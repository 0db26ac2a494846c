#include "tts/tts_stream.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/status_matchers.h"
#include "tts/espeak_engine.h"
#include "tts/test_engine.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;


std::unique_ptr<TtsStream> Open(Language language, bool detect_language = false) {
  TtsStreamOptions options;
  options.voice.language = language;
  options.detect_language = detect_language;
  auto stream = TtsStream::Open(TestEspeakEngine(), options);
  EXPECT_OK(stream);
  if (!stream.ok()) std::abort();
  return *std::move(stream);
}

// Every piece the stream has ready now.
std::vector<SpeechPiece> Drain(TtsStream& stream) {
  std::vector<SpeechPiece> pieces;
  while (true) {
    auto next = stream.Next();
    EXPECT_OK(next);
    if (!next.ok() || !next->has_value()) return pieces;
    pieces.push_back(**std::move(next));
  }
}

std::vector<std::string> Texts(const std::vector<SpeechPiece>& pieces) {
  std::vector<std::string> texts;
  for (const SpeechPiece& p : pieces) texts.push_back(p.text);
  return texts;
}

// The words of a piece, as the stream's whole text spells them.
std::vector<std::string> Words(const SpeechPiece& piece, const std::string& whole) {
  std::vector<std::string> words;
  for (const WordBoundary& w : piece.speech.track.words) {
    words.push_back(whole.substr(piece.text_offset + w.text_offset, w.text_length));
  }
  return words;
}

TEST(TtsStreamTest, SpeaksClauseByClauseWithOffsetsIntoTheWholeText) {
  const std::string text = "大家好，欢迎来到直播间。今天有优惠！";
  auto stream = Open(Language::kZh);
  ASSERT_OK(stream->Push(text));
  stream->Finish();
  const std::vector<SpeechPiece> pieces = Drain(*stream);
  EXPECT_TRUE(stream->done());
  ASSERT_THAT(Texts(pieces), ElementsAre("大家好，", "欢迎来到直播间。", "今天有优惠！"));
  EXPECT_FALSE(pieces[0].ends_sentence);
  EXPECT_TRUE(pieces[1].ends_sentence);
  for (const SpeechPiece& p : pieces) {
    EXPECT_EQ(text.substr(p.text_offset, p.text.size()), p.text);
    EXPECT_FALSE(p.speech.audio.empty()) << p.text;
    EXPECT_FALSE(p.speech.track.phonemes.empty()) << p.text;
    EXPECT_EQ(p.language, Language::kZh);
    // Timed from its own start.
    EXPECT_LT(p.speech.track.phonemes.front().start, MediaTime::Millis(100)) << p.text;
  }
  EXPECT_THAT(Words(pieces[1], text), ElementsAre("欢", "迎", "来", "到", "直", "播", "间"));

  // On one timeline, the pieces' words point into the whole text in order.
  SynthesisResult whole;
  for (const SpeechPiece& p : pieces) AppendSynthesis(whole, p.speech, static_cast<int>(p.text_offset));
  ASSERT_EQ(whole.track.words.size(), 15u);
  EXPECT_EQ(text.substr(whole.track.words[14].text_offset, whole.track.words[14].text_length), "惠");
  EXPECT_GT(whole.track.words[14].start, whole.track.words[0].start);
}

TEST(TtsStreamTest, FirstClauseIsSpokenBeforeTheRestArrives) {
  auto stream = Open(Language::kEn);
  ASSERT_OK(stream->Push("Good evening everyone, wel"));
  // The first clause is complete; the second is not.
  auto first = stream->Next();
  ASSERT_OK(first);
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->text, "Good evening everyone,");
  EXPECT_FALSE((*first)->speech.audio.empty());
  auto nothing = stream->Next();
  ASSERT_OK(nothing);
  EXPECT_FALSE(nothing->has_value());
  EXPECT_FALSE(stream->done());
  ASSERT_OK(stream->Push("come to the show"));
  EXPECT_EQ(stream->ready_clauses(), 0u);  // no end of clause yet
  stream->Finish();
  const std::vector<SpeechPiece> rest = Drain(*stream);
  ASSERT_THAT(Texts(rest), ElementsAre("welcome to the show"));
  EXPECT_EQ(rest[0].text_offset, 23);
  EXPECT_TRUE(stream->done());
}

TEST(TtsStreamTest, AnySplitOfTheTextGivesTheSamePieces) {
  const std::string text = "Try our 小笼包 today, only 9元! 欢迎光临。";
  auto whole = Open(Language::kEn, /*detect_language=*/true);
  ASSERT_OK(whole->Push(text));
  whole->Finish();
  const std::vector<SpeechPiece> expected = Drain(*whole);
  ASSERT_EQ(expected.size(), 3u);

  auto byte_by_byte = Open(Language::kEn, /*detect_language=*/true);
  std::vector<SpeechPiece> got;
  for (const char c : text) {
    ASSERT_OK(byte_by_byte->Push(std::string(1, c)));
    for (SpeechPiece& p : Drain(*byte_by_byte)) got.push_back(std::move(p));
  }
  byte_by_byte->Finish();
  for (SpeechPiece& p : Drain(*byte_by_byte)) got.push_back(std::move(p));
  ASSERT_EQ(Texts(got), Texts(expected));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].text_offset, expected[i].text_offset);
    EXPECT_EQ(got[i].language, expected[i].language);
    EXPECT_EQ(Words(got[i], text), Words(expected[i], text));
  }
  EXPECT_EQ(expected[0].language, Language::kEn);
  EXPECT_THAT(Words(expected[0], text), ElementsAre("Try", "our", "小", "笼", "包", "today"));
  EXPECT_EQ(expected[2].language, Language::kZh);
}

TEST(TtsStreamTest, UnspeakableCharactersAreSkippedCountedAndOffsetsKept) {
  const std::string text = "Hello \xF0\x9F\x98\x80 new\x07 world! \xEE\x80\x80";  // emoji, BEL, private use
  auto stream = Open(Language::kEn);
  ASSERT_OK(stream->Push(text));
  stream->Finish();
  const std::vector<SpeechPiece> pieces = Drain(*stream);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(stream->skipped().emoji, 1);
  EXPECT_EQ(stream->skipped().control, 1);
  EXPECT_EQ(stream->skipped().private_use, 1);
  EXPECT_THAT(Words(pieces[0], text), ElementsAre("Hello", "new", "world"));
  // Nothing of the emoji was read out ("grinning face").
  for (const PhonemeEvent& p : pieces[0].speech.track.phonemes) EXPECT_NE(p.phoneme, "ɡ");
}

TEST(TtsStreamTest, EmptyTextIsDoneWithNothing) {
  auto stream = Open(Language::kZh);
  ASSERT_OK(stream->Push(""));
  stream->Finish();
  EXPECT_TRUE(stream->done());
  EXPECT_TRUE(Drain(*stream).empty());
  int pieces = 0;
  SynthesisRequest request;
  EXPECT_TRUE(SynthesizeStreaming(TestEspeakEngine(), request, [&](SpeechPiece) {
                ++pieces;
                return absl::OkStatus();
              }).ok());
  EXPECT_EQ(pieces, 0);
}

TEST(TtsStreamTest, LongLineIsSpokenInBoundedPieces) {
  // One 10,000-character line: a stream of short clauses, never one huge piece.
  std::string line;
  const std::string sentence = "the quick brown fox jumps over the lazy dog and ";
  while (line.size() < 10000) line += sentence;
  line.resize(10000);
  SynthesisRequest request;
  request.text = line;
  size_t pieces = 0;
  size_t longest_text = 0;
  MediaTime longest_audio;
  MediaTime total;
  int64_t next_offset = 0;
  ASSERT_TRUE(SynthesizeStreaming(TestEspeakEngine(), request, [&](SpeechPiece piece) {
                ++pieces;
                EXPECT_GE(piece.text_offset, next_offset);
                next_offset = piece.text_offset + static_cast<int64_t>(piece.text.size());
                longest_text = std::max(longest_text, piece.text.size());
                longest_audio = std::max(longest_audio, piece.speech.audio.duration());
                total += piece.speech.audio.duration();
                return absl::OkStatus();
              }).ok());
  // 20 words at most per clause (the segmenter's default): a few seconds each.
  EXPECT_GE(pieces, 80u);
  EXPECT_LE(longest_text, 200u);
  EXPECT_LT(longest_audio, MediaTime::Seconds(10));
  EXPECT_GT(total, MediaTime::Seconds(300));
  EXPECT_GE(next_offset, 9990);
}

TEST(TtsStreamTest, PendingTextStaysBoundedWhenNothingEndsAClause) {
  // Text with no punctuation at all, pushed a word at a time and never drained:
  // clauses become ready, and what the stream buffers beyond them stays small.
  auto stream = Open(Language::kEn);
  for (int i = 0; i < 2000; ++i) ASSERT_OK(stream->Push("word "));
  EXPECT_GE(stream->ready_clauses(), 90u);
  auto piece = stream->Next();
  ASSERT_OK(piece);
  ASSERT_TRUE(piece->has_value());
  EXPECT_LE((*piece)->text.size(), 120u);
}

TEST(TtsStreamTest, LanguageOfEachClauseWithAuto) {
  const std::string text = "Hello everyone. 大家好。3.5";
  auto stream = Open(Language::kEn, /*detect_language=*/true);
  ASSERT_OK(stream->Push(text));
  stream->Finish();
  const std::vector<SpeechPiece> pieces = Drain(*stream);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].language, Language::kEn);
  EXPECT_EQ(pieces[1].language, Language::kZh);
  EXPECT_EQ(pieces[2].language, Language::kZh);  // no evidence: like the clause before
}

TEST(TtsStreamTest, CancelStopsTheStream) {
  auto stream = Open(Language::kEn);
  ASSERT_OK(stream->Push("One. Two. Three."));
  ASSERT_OK(stream->Next());
  stream->Cancel();
  EXPECT_EQ(stream->Next().status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(stream->Push("Four.").code(), absl::StatusCode::kCancelled);
}

TEST(TtsStreamTest, AnErrorFromTheConsumerStopsStreaming) {
  SynthesisRequest request;
  request.text = "One. Two. Three.";
  int calls = 0;
  const absl::Status status = SynthesizeStreaming(TestEspeakEngine(), request, [&](SpeechPiece) {
    ++calls;
    return absl::UnavailableError("output closed");
  });
  EXPECT_EQ(status, absl::UnavailableError("output closed"));
  EXPECT_EQ(calls, 1);
}

TEST(TtsStreamTest, PartsOfAClauseComeBeforeItAndJoinToIt) {
  auto stream = Open(Language::kEn);
  const std::string text = "First clause here, and a second one.";
  ASSERT_OK(stream->Push(text));
  stream->Finish();
  std::vector<SpeechPiece> parts;
  auto piece = stream->Next([&](const SpeechPiece& part) {
    parts.push_back(part);
    return absl::OkStatus();
  });
  ASSERT_OK(piece);
  ASSERT_TRUE(piece->has_value());
  // espeak-ng speaks a clause in one part: the part is the piece.
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].text, (*piece)->text);
  EXPECT_EQ(parts[0].text_offset, (*piece)->text_offset);
  EXPECT_EQ(parts[0].speech.audio.samples, (*piece)->speech.audio.samples);
  EXPECT_EQ(Words(parts[0], text), Words(**piece, text));
  // An error from the consumer of parts stops the clause and is returned.
  auto failed = stream->Next([](const SpeechPiece&) { return absl::ResourceExhaustedError("disk full"); });
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(TtsStreamTest, JoinedPartsMergeAPauseThatSpansTheJoin) {
  // Two engine calls of one clause: the first ends in silence, the second begins
  // with it -- one pause, as FinishPhonemeTrack makes of the whole.
  SynthesisResult first, second, joined;
  first.audio.sample_rate = second.audio.sample_rate = 1000;
  first.audio.samples.assign(300, 0.1f);
  second.audio.samples.assign(300, 0.1f);
  first.track.phonemes = {{"a", MediaTime::Zero(), MediaTime::Millis(200)}, {"_", MediaTime::Millis(200), MediaTime::Millis(100)}};
  second.track.phonemes = {{"_", MediaTime::Millis(300), MediaTime::Millis(50)}, {"b", MediaTime::Millis(350), MediaTime::Millis(250)}};
  AppendClausePart(joined, first);
  AppendClausePart(joined, second);
  ASSERT_EQ(joined.track.phonemes.size(), 3u);
  EXPECT_EQ(joined.track.phonemes[1].phoneme, "_");
  EXPECT_EQ(joined.track.phonemes[1].duration, MediaTime::Millis(150));
  EXPECT_EQ(joined.track.phonemes[2].phoneme, "b");
  EXPECT_EQ(joined.audio.samples.size(), 600u);
  SynthesisResult whole = joined;
  FinishPhonemeTrack(whole);
  ASSERT_EQ(whole.track.phonemes.size(), joined.track.phonemes.size());
  for (std::size_t i = 0; i < whole.track.phonemes.size(); ++i) {
    EXPECT_EQ(whole.track.phonemes[i].start, joined.track.phonemes[i].start);
    EXPECT_EQ(whole.track.phonemes[i].duration, joined.track.phonemes[i].duration);
  }
}

TEST(TtsStreamTest, MisuseAndBadSettingsAreClearErrors) {
  auto stream = Open(Language::kEn);
  stream->Finish();
  EXPECT_EQ(stream->Push("late").code(), absl::StatusCode::kFailedPrecondition);
  TtsStreamOptions options;
  options.voice.voice = "xx-nope";
  EXPECT_THAT(TtsStream::Open(TestEspeakEngine(), options).status().message(), ::testing::HasSubstr("'xx-nope'"));
  options.voice.voice.clear();
  options.voice.rate = 9;
  EXPECT_THAT(TtsStream::Open(TestEspeakEngine(), options).status().message(), ::testing::HasSubstr("speech rate 9"));
}

}  // namespace
}  // namespace lingcast
