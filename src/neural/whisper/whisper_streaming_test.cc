// LocalAgreement-n on scripted hypotheses (plain logic, no model); SplitWords on
// the tiny checkpoint's tokenizer; and the streaming WhisperAsrSession on the tiny
// random-weight checkpoint: the real model code runs, so these check the
// promises (committed text never changes, partials and the final agree, a final
// with nothing committed is the whole-utterance decode, the window stays within
// 30 s, decodes at most once per interval), not what the random model says.
#include "neural/whisper/whisper_streaming.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/whisper/whisper_asr.h"

namespace lingcast::neural {
namespace {

using testing::TestdataDir;

std::vector<StreamWord> Words(const std::vector<std::string>& texts, int spelling = 0) {
  std::vector<StreamWord> words;
  for (const auto& t : texts) words.push_back({t, {static_cast<std::int64_t>(t.size()) + spelling}, {}, {}});
  return words;
}

std::vector<std::string> Texts(const std::vector<StreamWord>& words) {
  std::vector<std::string> texts;
  for (const auto& w : words) texts.push_back(w.text);
  return texts;
}

using Strings = std::vector<std::string>;

TEST(LocalAgreement, CommitsTheLongestPrefixTheLastTwoHypothesesShare) {
  LocalAgreement policy = *LocalAgreement::Create(2);
  EXPECT_TRUE(policy.Add(Words({" ask", " not", " what"})).empty()) << "one hypothesis agrees with nothing yet";
  EXPECT_EQ(Texts(policy.tail()), (Strings{" ask", " not", " what"}));
  EXPECT_EQ(Texts(policy.Add(Words({" ask", " not", " whet", " your"}))), (Strings{" ask", " not"}));
  EXPECT_EQ(Texts(policy.tail()), (Strings{" whet", " your"}));
  // The next hypothesis continues after the committed words.
  EXPECT_EQ(Texts(policy.Add(Words({" what", " your", " country"}))), Strings{});
  EXPECT_EQ(Texts(policy.Add(Words({" what", " your", " country", " can"}))), (Strings{" what", " your", " country"}));
  EXPECT_EQ(Texts(policy.tail()), (Strings{" can"}));
}

TEST(LocalAgreement, CommitsTheNewestSpellingOfAgreedWords) {
  LocalAgreement policy = *LocalAgreement::Create(2);
  policy.Add(Words({" a", " b"}, /*spelling=*/100));
  const std::vector<StreamWord> committed = policy.Add(Words({" a", " c"}, /*spelling=*/200));
  ASSERT_EQ(committed.size(), 1u);
  EXPECT_EQ(committed[0].tokens, (std::vector<std::int64_t>{202})) << "timestamps move: the newest decode's tokens are kept";
}

TEST(LocalAgreement, DisagreementAtTheFirstWordCommitsNothing) {
  LocalAgreement policy = *LocalAgreement::Create(2);
  policy.Add(Words({" one", " two"}));
  EXPECT_TRUE(policy.Add(Words({" won", " two"})).empty());
  EXPECT_EQ(Texts(policy.tail()), (Strings{" won", " two"}));
  EXPECT_TRUE(policy.Add(Words({})).empty()) << "an empty hypothesis agrees on nothing";
  EXPECT_TRUE(policy.tail().empty());
}

TEST(LocalAgreement, NeedsNHypothesesAndResetForgetsThem) {
  LocalAgreement three = *LocalAgreement::Create(3);
  EXPECT_TRUE(three.Add(Words({" x", " y"})).empty());
  EXPECT_TRUE(three.Add(Words({" x", " y"})).empty()) << "two of three";
  EXPECT_EQ(Texts(three.Add(Words({" x", " z"}))), Strings{" x"});
  three.Reset();
  EXPECT_TRUE(three.tail().empty());
  EXPECT_TRUE(three.Add(Words({" z"})).empty());
  EXPECT_TRUE(three.Add(Words({" z"})).empty()) << "what came before the reset does not count";

  LocalAgreement one = *LocalAgreement::Create(1);
  EXPECT_EQ(Texts(one.Add(Words({" all", " at", " once"}))), (Strings{" all", " at", " once"}));
  EXPECT_TRUE(one.tail().empty());
}

TEST(LocalAgreement, BadAgreementIsRefused) {
  const absl::StatusOr<LocalAgreement> zero = LocalAgreement::Create(0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero.status().message().find("got 0"), std::string::npos) << zero.status();
}

std::vector<StreamWord> Characters(const std::string& utf8) {
  std::vector<std::string> characters;
  for (std::size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    characters.push_back(utf8.substr(i, length));
    i += length;
  }
  return Words(characters);
}

std::vector<StreamWord> Joined(std::vector<StreamWord> a, const std::vector<StreamWord>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(CommittableWords, APhraseAgreedOnAgainRightAfterItselfIsHeldBack) {
  // What Whisper base committed on an H100: the phrase once more at each pair of decodes.
  const std::vector<StreamWord> phrase = Characters("甚至出现交易，");
  EXPECT_EQ(CommittableWords(phrase, phrase), 0u);
  EXPECT_EQ(CommittableWords(phrase, Joined(phrase, Characters("几乎"))), 0u) << "nothing after the copy either";
  EXPECT_EQ(CommittableWords({}, Joined(phrase, phrase)), phrase.size()) << "the first copy is committed";
  EXPECT_EQ(CommittableWords(Characters("甚至出现"), Characters("交易甚至出现交易")), 2u)
      << "a copy that began among the committed words";
  // English: the words before the copy go through.
  EXPECT_EQ(CommittableWords(Words({" we", " have"}), Words({" a", " new", " product", " a", " new", " product"})), 3u);
  EXPECT_EQ(CommittableWords(Words({" a", " new", " product"}), Words({" a", " new", " product", " for"})), 0u);
}

TEST(CommittableWords, ShortRepeatsAndNewWordsAreCommitted) {
  EXPECT_EQ(CommittableWords(Words({" ask", " not"}), Words({" what", " your", " country"})), 3u);
  EXPECT_EQ(CommittableWords(Words({" the"}), Words({" the", " dog"})), 2u) << "3 letters: a stammer, not a loop";
  EXPECT_EQ(CommittableWords({}, Characters("谢谢谢谢")), 4u) << "two characters said twice";
  EXPECT_EQ(CommittableWords(Characters("好，"), Characters("，，，，好")), 5u) << "punctuation is not a phrase";
  EXPECT_EQ(CommittableWords(Words({" go", " go"}), {}), 0u) << "nothing agreed, nothing to commit";
  // A repeat already among the committed words is not looked at again.
  EXPECT_EQ(CommittableWords(Joined(Characters("换一首歌"), Characters("换一首歌")), Characters("吧")), 1u);
}

TEST(WhisperStreamingOptions, EachBadFieldIsNamed) {
  const MediaTime window = MediaTime::Seconds(30);
  EXPECT_OK(CheckStreamingOptions({}, window));
  WhisperStreamingOptions o;
  o.agreement = 0;
  EXPECT_NE(CheckStreamingOptions(o, window).message().find("agreement"), std::string::npos);
  o = {};
  o.min_partial_interval = MediaTime::Millis(-1);
  EXPECT_NE(CheckStreamingOptions(o, window).message().find("min_partial_interval"), std::string::npos);
  o = {};
  o.max_compute_share = 1.5;
  EXPECT_NE(CheckStreamingOptions(o, window).message().find("max_compute_share"), std::string::npos);
  o = {};
  o.commit_after = MediaTime::Millis(-1);
  EXPECT_NE(CheckStreamingOptions(o, window).message().find("commit_after"), std::string::npos);
  o.commit_after = MediaTime::Seconds(21);  // past trim_after: the window would move before any commit
  EXPECT_NE(CheckStreamingOptions(o, window).message().find("commit_after"), std::string::npos);
  o = {};
  o.trim_after = MediaTime::Millis(500);
  EXPECT_NE(CheckStreamingOptions(o, window).message().find("trim_after"), std::string::npos);
  o.trim_after = MediaTime::Seconds(31);
  const absl::Status too_long = CheckStreamingOptions(o, window);
  EXPECT_EQ(too_long.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(too_long.message().find("31000 ms"), std::string::npos) << too_long;
}

class WhisperStreaming : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.model_dir = TestdataDir("whisper_tiny");
    options_.language = "en";
    options_.max_new_tokens = 24;  // the random model never says <|endoftext|>
    // The cadence's compute-share rule watches wall time: off here, so these
    // tests count audio alone (one test below turns it on).
    options_.streaming.max_compute_share = 0.0;
    transcriber_ = WhisperTranscriber::Load(options_.model_dir);
    const auto reference = SafetensorsFile::Open(options_.model_dir + "/reference.safetensors");
    for (const char* name : {"audio_0", "audio_1"}) {
      const torch::Tensor a = reference->Load(name).contiguous();
      clips_.emplace_back(a.data_ptr<float>(), a.data_ptr<float>() + a.numel());
    }
  }
  std::vector<float> Speech(std::size_t seconds) const {
    std::vector<float> audio;
    for (std::size_t i = 0; audio.size() < seconds * kAsrSampleRate; ++i) {
      const auto& clip = clips_[i % clips_.size()];
      audio.insert(audio.end(), clip.begin(), clip.end());
    }
    audio.resize(seconds * kAsrSampleRate);
    return audio;
  }
  std::unique_ptr<WhisperAsrSession> Session() const { return *WhisperAsrSession::Create(options_, transcriber_); }
  static AudioBuffer Mono16k(const float* samples, std::size_t count) {
    AudioBuffer buffer;
    buffer.sample_rate = kAsrSampleRate;
    buffer.channels = 1;
    buffer.samples.assign(samples, samples + count);
    return buffer;
  }
  std::string Text(const std::vector<std::int64_t>& tokens) const {
    std::vector<std::string> words = absl::StrSplit(transcriber_->tokenizer().Decode(tokens), absl::ByAnyChar(" \t\n"),
                                                    absl::SkipEmpty());
    return absl::StrJoin(words, " ");
  }
  WhisperOptions DecodeOptions() const {
    WhisperOptions o;
    o.language = "en";
    o.timestamps = true;
    o.encode_heard_only = options_.encode_heard_only;
    o.max_new_tokens = options_.max_new_tokens;
    return o;
  }
  std::vector<std::int64_t> TextTokens(const std::vector<std::int64_t>& tokens) const {
    std::vector<std::int64_t> text;
    for (std::int64_t id : tokens) {
      if (id < transcriber_->special().end_of_text) text.push_back(id);
    }
    return text;
  }

  WhisperAsrOptions options_;
  std::shared_ptr<const WhisperTranscriber> transcriber_;
  std::vector<std::vector<float>> clips_;
};

TEST_F(WhisperStreaming, SplitWordsCutsAtSpacesCharactersAndSegmentEnds) {
  const WhisperTokenizer& tokenizer = transcriber_->tokenizer();
  const std::int64_t t0 = transcriber_->special().timestamp_begin;
  std::vector<std::int64_t> tokens = {t0};
  for (std::int64_t id : tokenizer.Encode(" hello world")) tokens.push_back(id);
  tokens.push_back(t0 + 50);  // 1.00 s: closes the segment
  tokens.push_back(t0 + 50);  // opens the next
  for (std::int64_t id : tokenizer.Encode("你好")) tokens.push_back(id);
  tokens.push_back(t0 + 90);
  tokens.push_back(t0 + 95);  // an opening timestamp with no text yet
  const std::vector<StreamWord> words = SplitWords(tokens, *transcriber_, /*after_text=*/false);
  ASSERT_EQ(Texts(words), (Strings{" hello", " world", "你", "好"}));
  EXPECT_EQ(words[0].tokens.front(), t0);
  ASSERT_TRUE(words[1].segment_end.has_value());
  EXPECT_DOUBLE_EQ(*words[1].segment_end, 1.0);
  EXPECT_EQ(words[1].tokens.back(), t0 + 50);
  EXPECT_EQ(words[2].tokens.front(), t0 + 50);
  EXPECT_FALSE(words[2].segment_end.has_value());
  EXPECT_DOUBLE_EQ(words[3].segment_end.value_or(0.0), 1.8);
  // Every token but the trailing opening timestamp is in exactly one word.
  tokens.pop_back();
  EXPECT_EQ(TokensOf(words, /*text_only=*/false), tokens);
  EXPECT_EQ(tokenizer.Decode(TokensOf(words, /*text_only=*/true)), " hello world你好");

  // After committed text, a leading timestamp closes that text's segment.
  const std::vector<StreamWord> closing = SplitWords({t0 + 10, t0 + 10}, *transcriber_, /*after_text=*/true);
  ASSERT_EQ(closing.size(), 1u);
  EXPECT_EQ(closing[0].text, "");
  EXPECT_DOUBLE_EQ(closing[0].segment_end.value_or(-1), 0.2);
}

TEST_F(WhisperStreaming, WithoutPartialsTheFinalIsTheWholeUtteranceDecode) {
  const std::vector<float> audio = Speech(6);
  auto session = Session();
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data(), audio.size()), MediaTime::Zero()));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  const WhisperResult whole =
      transcriber_->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), DecodeOptions());
  EXPECT_EQ(final->text, whole.no_speech_probability > options_.no_speech_threshold ? "" : Text(TextTokens(whole.tokens)));
  EXPECT_EQ(final->stable_prefix_chars, final->text.size());
}

TEST_F(WhisperStreaming, CommittedTextNeverChangesAndTheFinalContinuesIt) {
  const std::vector<float> audio = Speech(5);
  options_.streaming.min_partial_interval = MediaTime::Millis(500);
  auto session = Session();
  std::string stable;
  int partials = 0;
  for (std::size_t at = 0; at < audio.size(); at += 1600) {
    ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + at, std::min<std::size_t>(1600, audio.size() - at))));
    const std::optional<AsrHypothesis> partial = session->Partial();
    if (!partial) continue;
    ++partials;
    EXPECT_FALSE(partial->final);
    ASSERT_LE(partial->stable_prefix_chars, partial->text.size());
    ASSERT_EQ(partial->text.compare(0, stable.size(), stable), 0)
        << "committed \"" << stable << "\" changed: now \"" << partial->text << "\"";
    EXPECT_GE(partial->stable_prefix_chars, stable.size());
    stable = partial->text.substr(0, partial->stable_prefix_chars);
  }
  EXPECT_GT(partials, 0);
  // The audio fits the window and trim_after: nothing was dropped, and the final
  // is one decode of the whole utterance that continues the committed words.
  EXPECT_EQ(session->trimmed_samples(), 0u);
  EXPECT_TRUE(session->previous_tokens().empty());
  WhisperOptions o = DecodeOptions();
  o.prefix_tokens = TokensOf(session->committed_words(), /*text_only=*/false);
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  EXPECT_EQ(final->text.compare(0, stable.size(), stable), 0) << "final \"" << final->text << "\" drops \"" << stable << "\"";
  const WhisperResult whole = transcriber_->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), o);
  const bool silent = o.prefix_tokens.empty() && whole.no_speech_probability > options_.no_speech_threshold;
  EXPECT_EQ(final->text, silent ? "" : Text(TextTokens(whole.tokens)));
}

TEST_F(WhisperStreaming, PartialDecodesAtMostOncePerInterval) {
  options_.streaming.min_partial_interval = MediaTime::Millis(500);
  const std::vector<float> audio = Speech(2);
  auto session = Session();
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data(), 8000), MediaTime::Zero()));
  const std::optional<AsrHypothesis> first = session->Partial();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->end, MediaTime::Millis(500));
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + 8000, 4800)));  // 300 ms more
  const std::optional<AsrHypothesis> cached = session->Partial();
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->end, MediaTime::Millis(500)) << "less than the interval: the last partial stands";
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + 12800, 3200)));  // 500 ms since the decode
  const std::optional<AsrHypothesis> fresh = session->Partial();
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(fresh->end, MediaTime::Millis(1000));
}

// An utterance's first second is shown, never committed: with agreement 1
// every hypothesis would commit at once, yet nothing does before commit_after.
TEST_F(WhisperStreaming, NoWordIsCommittedFromADecodeShorterThanCommitAfter) {
  options_.streaming.agreement = 1;
  options_.streaming.min_partial_interval = MediaTime::Millis(100);
  options_.streaming.max_compute_share = 0.0;
  options_.streaming.commit_after = MediaTime::Millis(1000);
  const std::vector<float> audio = Speech(2);
  auto session = Session();
  int early_partials_with_text = 0;
  bool committed_later = false;
  for (std::size_t at = 0; at < audio.size(); at += 1600) {
    ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + at, 1600)));
    const std::optional<AsrHypothesis> partial = session->Partial();
    if (at + 1600 < 16000) {
      EXPECT_TRUE(session->committed_words().empty()) << "committed after " << (at + 1600) / 16 << " ms";
      if (partial) {
        EXPECT_EQ(partial->stable_prefix_chars, 0u) << partial->text;
        if (!partial->text.empty()) ++early_partials_with_text;
      }
    } else if (partial && !partial->text.empty()) {
      committed_later = committed_later || !session->committed_words().empty();
    }
  }
  EXPECT_GT(early_partials_with_text, 0) << "the early decodes said nothing: the test shows nothing";
  EXPECT_TRUE(committed_later) << "agreement 1 commits every hypothesis once the utterance is long enough";
}

// The cadence adapts to the machine: a decode that took d waits for d /
// max_compute_share of new audio. With a share of a millionth any decode (at
// least a microsecond) asks for more audio than the test gives, however fast
// the machine: the later partials repeat the first.
TEST_F(WhisperStreaming, ASlowDecodeWaitsForAudioEnoughToPayForIt) {
  options_.streaming.min_partial_interval = MediaTime::Millis(500);
  options_.streaming.max_compute_share = 1e-6;
  const std::vector<float> audio = Speech(3);
  auto session = Session();
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data(), 8000), MediaTime::Zero()));
  const std::optional<AsrHypothesis> first = session->Partial();
  ASSERT_TRUE(first.has_value());
  for (std::size_t at = 8000; at < audio.size(); at += 8000) {
    ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + at, std::min<std::size_t>(8000, audio.size() - at))));
    const std::optional<AsrHypothesis> later = session->Partial();
    ASSERT_TRUE(later.has_value());
    EXPECT_EQ(later->end, first->end) << "decoded again after " << at << " samples";
  }
  // Off (0), the interval alone decides, as in the tests above.
  options_.streaming.max_compute_share = 0.0;
  auto steady = Session();
  ASSERT_OK(steady->AcceptAudio(Mono16k(audio.data(), 8000), MediaTime::Zero()));
  ASSERT_TRUE(steady->Partial().has_value());
  ASSERT_OK(steady->AcceptAudio(Mono16k(audio.data() + 8000, 8000)));
  const std::optional<AsrHypothesis> fresh = steady->Partial();
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(fresh->end, MediaTime::Millis(1000));
}

TEST_F(WhisperStreaming, EachPartialDecodeIsLoggedWithItsTimeAtDebugLevel) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::tmpfile(), &std::fclose);
  ASSERT_NE(file, nullptr);
  Logger logger(LogLevel::kDebug, file.get());
  options_.logger = &logger;
  const std::vector<float> audio = Speech(1);
  auto session = Session();
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data(), audio.size()), MediaTime::Zero()));
  session->Partial();
  session->Partial();  // no new audio: no decode, no line
  std::fflush(file.get());
  std::rewind(file.get());
  std::string log;
  for (int c; (c = std::fgetc(file.get())) != EOF;) log += static_cast<char>(c);
  EXPECT_NE(log.find("component=whisper"), std::string::npos) << log;
  EXPECT_NE(log.find("decode_ms="), std::string::npos) << log;
  EXPECT_NE(log.find("window_ms=1000"), std::string::npos) << log;
  EXPECT_EQ(log.find("decode_ms="), log.rfind("decode_ms=")) << "one decode, one line: " << log;
}

TEST_F(WhisperStreaming, LongUtteranceKeepsTheWindowWithin30SecondsAndTheCommittedText) {
  options_.streaming.trim_after = MediaTime::Seconds(4);
  options_.streaming.min_partial_interval = MediaTime::Millis(2000);
  const std::vector<float> audio = Speech(36);
  auto session = Session();
  std::string stable;
  std::size_t most_in_window = 0;
  for (std::size_t at = 0; at < audio.size(); at += 32000) {
    ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + at, std::min<std::size_t>(32000, audio.size() - at))));
    const std::optional<AsrHypothesis> partial = session->Partial();
    most_in_window = std::max(most_in_window, at + 32000 - session->trimmed_samples());
    if (!partial) continue;
    ASSERT_EQ(partial->text.compare(0, stable.size(), stable), 0) << "committed \"" << stable << "\" changed";
    stable = partial->text.substr(0, partial->stable_prefix_chars);
    // Committed words carry their alignment (the checkpoint has alignment heads),
    // inside the window, shifted when the window was trimmed.
    const double window_seconds = static_cast<double>(at + 32000 - session->trimmed_samples()) / kAsrSampleRate;
    for (const StreamWord& word : session->committed_words()) {
      if (word.text_tokens.empty()) continue;
      ASSERT_TRUE(word.start && word.end) << word.text;
      EXPECT_LE(0.0, *word.start);
      EXPECT_LE(*word.start, *word.end);
      EXPECT_LE(*word.end, window_seconds + 0.02) << word.text;
    }
  }
  EXPECT_GT(session->trimmed_samples(), 0u) << "36 s of audio cannot stay in one window";
  EXPECT_LE(most_in_window, static_cast<std::size_t>(30 * kAsrSampleRate));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  EXPECT_EQ(final->text.compare(0, stable.size(), stable), 0);
  EXPECT_EQ(final->end, MediaTime::Seconds(36));
  // Words of trimmed audio kept their partial decodes' times: in order, inside.
  ASSERT_FALSE(final->words.empty());
  MediaTime previous = final->start;
  for (const AsrWord& word : final->words) {
    EXPECT_GE(word.start, previous) << word.text;
    EXPECT_GE(word.end, word.start) << word.text;
    EXPECT_LE(word.end, final->end) << word.text;
    previous = word.start;
  }
  // The session is ready for the next utterance.
  EXPECT_EQ(session->trimmed_samples(), 0u);
  EXPECT_TRUE(session->committed_words().empty());
  EXPECT_FALSE(session->Partial().has_value());
}

TEST_F(WhisperStreaming, ProportionalWordTimesLeavePartialDecodesUnaligned) {
  options_.word_times = WhisperWordTimeSource::kProportional;
  const std::vector<float> audio = Speech(4);
  auto session = Session();
  for (std::size_t at = 0; at < audio.size(); at += 16000) {
    ASSERT_OK(session->AcceptAudio(Mono16k(audio.data() + at, 16000)));
    session->Partial();
  }
  ASSERT_FALSE(session->committed_words().empty());
  for (const StreamWord& word : session->committed_words()) EXPECT_FALSE(word.start.has_value()) << word.text;
}

TEST_F(WhisperStreaming, BadStreamingOptionsAreRefusedWhenTheModelLoads) {
  options_.streaming.agreement = 0;
  absl::StatusOr<std::shared_ptr<WhisperAsrModel>> model = WhisperAsrModel::Load(options_);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("agreement"), std::string::npos) << model.status();
  options_.streaming.agreement = 2;
  options_.streaming.trim_after = MediaTime::Seconds(45);
  model = WhisperAsrModel::Load(options_);
  EXPECT_NE(model.status().message().find("trim_after must be between 1000 ms and the 30000 ms window, got 45000 ms"),
            std::string::npos)
      << model.status();
  EXPECT_EQ(WhisperAsrSession::Create(options_, transcriber_).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lingcast::neural
