#include "asr/pocketsphinx_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <malloc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "asr/asr_test_data.h"
#include "asr/pocketsphinx_pool.h"
#include "asr/word_error_rate.h"
#include "absl/strings/str_cat.h"
#include "audio/audio_decoder.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Measured (free mode, whole file as one utterance, which is decoded again with
// its own cepstral mean): jfk 0.23 (0.68 before that re-decode; the 1961
// recording is hard for pocketsphinx's en-us model), librispeech 0.50. The
// bounds leave room for small decoder differences but catch a broken front end
// (a wrong sample scale or CMN gives ~0.9-1.1).
constexpr double kFreeWerBoundJfk = 0.4;
constexpr double kFreeWerBoundLibri = 0.65;

// The whole recording as one utterance, fed in 100 ms pieces.
AsrHypothesis Recognize(const AsrModel& model, const AudioBuffer& audio, MediaTime pts = MediaTime::Zero()) {
  absl::StatusOr<std::unique_ptr<AsrSession>> session = model.NewSession();
  EXPECT_OK(session);
  if (!session.ok()) return {};
  const size_t piece = kAsrSampleRate / 10;
  for (size_t begin = 0; begin < audio.samples.size(); begin += piece) {
    AudioBuffer chunk{kAsrSampleRate, 1, {}};
    chunk.samples.assign(audio.samples.begin() + begin,
                         audio.samples.begin() + std::min(audio.samples.size(), begin + piece));
    const absl::Status accepted = begin == 0 ? (*session)->AcceptAudio(chunk, pts) : (*session)->AcceptAudio(chunk);
    EXPECT_OK(accepted);
  }
  absl::StatusOr<AsrHypothesis> final = (*session)->Finish();
  EXPECT_OK(final);
  return final.ok() ? *final : AsrHypothesis{};
}

class PocketsphinxTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({});
    ASSERT_OK(model);
    free_model_ = new std::shared_ptr<PocketsphinxModel>(*model);
  }
  static void TearDownTestSuite() {
    delete free_model_;
    free_model_ = nullptr;
  }
  static const PocketsphinxModel& FreeModel() { return **free_model_; }

  // A script file in the test's temporary folder.
  static std::string WriteScript(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  static std::shared_ptr<PocketsphinxModel>* free_model_;
};
std::shared_ptr<PocketsphinxModel>* PocketsphinxTest::free_model_ = nullptr;

#define LOAD_SPEECH_OR_SKIP(var, recording)                                 \
  const std::string var##_path = SpeechPath((recording).file);             \
  if (!std::filesystem::exists(var##_path)) GTEST_SKIP() << NoDataMessage(var##_path); \
  absl::StatusOr<AudioBuffer> var = DecodeAudioFile(var##_path, kAsrSampleRate); \
  ASSERT_OK(var) << var.status()

TEST_F(PocketsphinxTest, FreeModeRecognizesJfk) {
  LOAD_SPEECH_OR_SKIP(audio, kJfk);
  const AsrHypothesis hyp = Recognize(FreeModel(), *audio);
  const double wer = CountWordErrors(kJfk.transcript, hyp.text).rate();
  std::printf("free mode jfk: WER %.2f \"%s\"\n", wer, hyp.text.c_str());
  EXPECT_TRUE(hyp.final);
  EXPECT_LT(wer, kFreeWerBoundJfk) << hyp.text;
  // Some of it must come through (these words are recognized reliably).
  EXPECT_THAT(hyp.text, HasSubstr("what your country can do for you"));
}

TEST_F(PocketsphinxTest, FreeModeRecognizesLibriSpeech) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  const AsrHypothesis hyp = Recognize(FreeModel(), *audio);
  const double wer = CountWordErrors(kLibri.transcript, hyp.text).rate();
  std::printf("free mode librispeech: WER %.2f \"%s\"\n", wer, hyp.text.c_str());
  EXPECT_LT(wer, kFreeWerBoundLibri) << hyp.text;
}

TEST_F(PocketsphinxTest, ScriptModeBeatsFreeModeOnScriptedSpeech) {
  const std::string script = WriteScript("show.txt", ScriptWithReferences());
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> scripted = PocketsphinxModel::Load({.script_path = script});
  ASSERT_OK(scripted);
  EXPECT_TRUE((*scripted)->script_mode());
  for (const SpeechRecording* recording : {&kJfk, &kLibri}) {
    LOAD_SPEECH_OR_SKIP(audio, *recording);
    const double free_wer = CountWordErrors(recording->transcript, Recognize(FreeModel(), *audio).text).rate();
    const AsrHypothesis hyp = Recognize(**scripted, *audio);
    const double script_wer = CountWordErrors(recording->transcript, hyp.text).rate();
    std::printf("%s: free WER %.2f, script WER %.2f \"%s\"\n", recording->file, free_wer, script_wer,
                hyp.text.c_str());
    EXPECT_LT(script_wer, free_wer) << hyp.text;
  }
}

// Both recordings' sentences are in the script: script mode must get them right.
// (With the script weight given to sphinxbase unscaled — it interpolates scores
// raised to the language weight — LibriSpeech came out "concord would try to its
// place ..."; without the re-decode of a first utterance, JFK's opening was lost.)
TEST_F(PocketsphinxTest, ScriptModeGetsScriptedSentencesRight) {
  const std::string script = WriteScript("show.txt", ScriptWithReferences());
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> scripted = PocketsphinxModel::Load({.script_path = script});
  ASSERT_OK(scripted);
  for (const SpeechRecording* recording : {&kJfk, &kLibri}) {
    LOAD_SPEECH_OR_SKIP(audio, *recording);
    const AsrHypothesis hyp = Recognize(**scripted, *audio);
    EXPECT_LE(CountWordErrors(recording->transcript, hyp.text).errors(), recording == &kJfk ? 1 : 0) << hyp.text;
  }
}

// The script only biases: a sentence that is not in it still comes out as the
// general model hears it, not as the script line it shares words with.
TEST_F(PocketsphinxTest, ScriptModeDoesNotForceOtherSpeechIntoTheScript) {
  const std::string script =
      WriteScript("other.txt", "CONCORD STAYED IN ITS PLACE BY THE RIVER\nWelcome to the live room everyone\n");
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> scripted = PocketsphinxModel::Load({.script_path = script});
  ASSERT_OK(scripted);
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  const AsrHypothesis hyp = Recognize(**scripted, *audio);
  std::printf("librispeech against a script without it: \"%s\"\n", hyp.text.c_str());
  EXPECT_GT(CountWordErrors("CONCORD STAYED IN ITS PLACE BY THE RIVER", hyp.text).rate(), 0.4) << hyp.text;
  EXPECT_LT(CountWordErrors(kLibri.transcript, hyp.text).rate(), kFreeWerBoundLibri) << hyp.text;
}

TEST_F(PocketsphinxTest, WordTimesIncreaseInsideTheUtteranceOnTheInputTimeline) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  const MediaTime offset = MediaTime::Seconds(2);
  const AsrHypothesis hyp = Recognize(FreeModel(), *audio, offset);
  EXPECT_EQ(hyp.start, offset);
  EXPECT_EQ(hyp.end, offset + audio->duration());
  ASSERT_FALSE(hyp.words.empty());
  std::vector<std::string> texts;
  MediaTime previous_end = hyp.start;
  for (const AsrWord& word : hyp.words) {
    EXPECT_GE(word.start, previous_end) << word.text;
    EXPECT_GT(word.end, word.start) << word.text;
    EXPECT_LE(word.end, hyp.end) << word.text;
    EXPECT_GE(word.confidence, 0.0) << word.text;
    EXPECT_LE(word.confidence, 1.0) << word.text;
    previous_end = word.end;
    texts.push_back(word.text);
  }
  // The text is the words, and fillers (<s>, <sil>, [NOISE]) are not words.
  std::string joined;
  for (const std::string& t : texts) joined += (joined.empty() ? "" : " ") + t;
  EXPECT_EQ(joined, hyp.text);
  for (const std::string& t : texts) {
    EXPECT_EQ(t.find_first_of("<[+("), std::string::npos) << t;
  }
  // "concord" opens the sentence, after about half a second of silence.
  EXPECT_EQ(texts.front(), "concord");
  EXPECT_GT(hyp.words.front().start, offset + MediaTime::Millis(300));
}

// The session's first utterance is decoded again at its end (its channel
// estimate moved far: RedecodeIfTheChannelMoved); the utterances after it must
// still get their word times on the input timeline.
// The LibriSpeech recording as `utterances` utterances 10 s apart on one
// session: "concord" starts where its sound does (0.56 s in) in each, and every
// word ends inside its utterance. Word times that counted frames across a
// stream's utterances put it 100 ms early from the second utterance on.
void ExpectWordTimesOnTheTimeline(AsrSession& session, const AudioBuffer& audio, int utterances) {
  for (int k = 0; k < utterances; ++k) {
    const MediaTime start = MediaTime::Seconds(10 * k);
    ASSERT_OK(session.AcceptAudio(audio, start));
    absl::StatusOr<AsrHypothesis> hyp = session.Finish();
    ASSERT_OK(hyp);
    ASSERT_FALSE(hyp->words.empty()) << "utterance " << k;
    EXPECT_EQ(hyp->words.front().text, "concord") << "utterance " << k;
    EXPECT_GE(hyp->words.front().start, start + MediaTime::Millis(500)) << "utterance " << k;
    EXPECT_LE(hyp->words.front().start, start + MediaTime::Millis(650)) << "utterance " << k;
    for (const AsrWord& word : hyp->words) {
      EXPECT_GT(word.end, word.start) << "utterance " << k << ": " << word.text;
      EXPECT_LE(word.end, hyp->end) << "utterance " << k << ": " << word.text;
    }
  }
}

// The whole recording at once: the early check restarts the first utterance on
// its own channel.
TEST_F(PocketsphinxTest, WordTimesStayOnTheTimelineAfterAnUtteranceDecodedAgain) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
  ASSERT_OK(session);
  ExpectWordTimesOnTheTimeline(**session, *audio, 3);
}

// The same with the early check off: the whole utterance is decoded again at
// the end, and the word times of the utterances after it stay right.
TEST_F(PocketsphinxTest, WordTimesStayOnTheTimelineAfterTheEndOfUtteranceRedecode) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model =
      PocketsphinxModel::Load({.early_channel_check = MediaTime::Zero()});
  ASSERT_OK(model);
  absl::StatusOr<std::unique_ptr<AsrSession>> session = (*model)->NewSession();
  ASSERT_OK(session);
  ExpectWordTimesOnTheTimeline(**session, *audio, 2);
}

// A session's first utterance starts from the model's channel estimate, far
// from this recording's: streamed in 100 ms pieces, its partials are mostly
// wrong until the endpoint's re-decode. The early check restarts it on its own
// channel after a second, so the partials that follow are heard right.
TEST_F(PocketsphinxTest, TheFirstUtteranceRestartsEarlyOnItsOwnChannel) {
  LOAD_SPEECH_OR_SKIP(audio, kJfk);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> late =
      PocketsphinxModel::Load({.early_channel_check = MediaTime::Zero()});
  ASSERT_OK(late);
  // The partial after the first 4 s, against the words said by then ("and so
  // my fellow americans"). Measured: with the early check "and got my fellow
  // american and" (3 errors), without "and i got my arm arrowhead was i" (6).
  auto partial_errors = [&](const PocketsphinxModel& model) {
    absl::StatusOr<std::unique_ptr<AsrSession>> session = model.NewSession();
    EXPECT_OK(session);
    const size_t piece = kAsrSampleRate / 10, until = 4 * kAsrSampleRate;
    for (size_t begin = 0; begin < until; begin += piece) {
      AudioBuffer chunk{kAsrSampleRate, 1, {}};
      chunk.samples.assign(audio->samples.begin() + begin, audio->samples.begin() + begin + piece);
      EXPECT_OK((*session)->AcceptAudio(chunk));
    }
    const std::optional<AsrHypothesis> partial = (*session)->Partial();
    return CountWordErrors("and so my fellow americans",
                           partial ? partial->text : "")
        .errors();
  };
  const int early_errors = partial_errors(FreeModel()), late_errors = partial_errors(**late);
  EXPECT_LT(early_errors, late_errors);
  EXPECT_LE(early_errors, 3);
  // And the final is no worse than the end-of-utterance re-decode's.
  const double early_wer = CountWordErrors(kJfk.transcript, Recognize(FreeModel(), *audio).text).rate();
  EXPECT_LT(early_wer, kFreeWerBoundJfk);
}

TEST_F(PocketsphinxTest, PartialsWhileSpeechContinues) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
  ASSERT_OK(session);
  EXPECT_EQ((*session)->Partial(), std::nullopt);  // nothing fed yet
  AudioBuffer first_half{kAsrSampleRate, 1, {}};
  first_half.samples.assign(audio->samples.begin(), audio->samples.begin() + audio->samples.size() / 2);
  ASSERT_OK((*session)->AcceptAudio(first_half));
  const std::optional<AsrHypothesis> partial = (*session)->Partial();
  ASSERT_TRUE(partial.has_value());
  EXPECT_FALSE(partial->final);
  EXPECT_FALSE(partial->text.empty());
  EXPECT_EQ(partial->start, MediaTime::Zero());
  EXPECT_EQ(partial->end, first_half.duration());
  absl::StatusOr<AsrHypothesis> final = (*session)->Finish();
  ASSERT_OK(final);
  EXPECT_TRUE(final->final);
  EXPECT_EQ((*session)->Partial(), std::nullopt);  // the utterance is closed
}

// The second look at an utterance: its audio against a few sentences. The
// sentence said wins and costs little against a free phone loop; sentences
// not said either cannot be aligned at all or cost much more per frame.
TEST_F(PocketsphinxTest, ScoreAlternativesFindsTheSentenceSaid) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
  ASSERT_OK(session);
  EXPECT_EQ((*session)->ScoreAlternatives({"concord returned"}).status().code(),
            absl::StatusCode::kFailedPrecondition);  // nothing finished yet
  ASSERT_OK((*session)->AcceptAudio(*audio));
  ASSERT_OK((*session)->Finish());
  const std::vector<std::string> said_second = {"thank you for watching and see you tomorrow night",
                                                "concord returned to its place amidst the tents",
                                                "remember to follow the channel for more deals"};
  absl::StatusOr<AlternativesScore> right = (*session)->ScoreAlternatives(said_second);
  ASSERT_OK(right);
  EXPECT_EQ(right->best, 1);
  EXPECT_GT(right->frames, 200);
  absl::StatusOr<AlternativesScore> wrong = (*session)->ScoreAlternatives({said_second[0], said_second[2]});
  ASSERT_OK(wrong);
  EXPECT_TRUE(wrong->best < 0 || wrong->gap > right->gap + 0.3) << wrong->gap;
  // A word the dictionary lacks drops its sentence; none left is no answer.
  absl::StatusOr<AlternativesScore> unknown = (*session)->ScoreAlternatives({"qxzzy blorf"});
  ASSERT_OK(unknown);
  EXPECT_EQ(unknown->best, -1);
  // The session goes on normally: the next utterance is recognized as before.
  ASSERT_OK((*session)->AcceptAudio(*audio));
  absl::StatusOr<AsrHypothesis> again = (*session)->Finish();
  ASSERT_OK(again);
  EXPECT_LT(CountWordErrors(kLibri.transcript, again->text).rate(), kFreeWerBoundLibri) << again->text;
}

// Scoring a session's last utterance does not change what the session hears
// next: the two decodes run on a decoder of their own. (On the session's own
// decoder they moved its front end's noise estimate, and the follow bench's
// words differed with the acoustic check and without it.)
TEST_F(PocketsphinxTest, ScoringLeavesTheSessionAsItWas) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  auto heard = [&](bool score_between) -> std::vector<std::string> {
    absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
    EXPECT_OK(session);
    if (!session.ok()) return {};
    // JFK between digital silence (where the noise estimate moves most), then LibriSpeech.
    AudioBuffer first{jfk->sample_rate, 1, std::vector<float>(static_cast<size_t>(jfk->sample_rate), 0.0f)};
    first.samples.insert(first.samples.end(), jfk->samples.begin(), jfk->samples.end());
    first.samples.resize(first.samples.size() + static_cast<size_t>(jfk->sample_rate), 0.0f);
    EXPECT_OK((*session)->AcceptAudio(first));
    EXPECT_OK((*session)->Finish());
    if (score_between) {
      EXPECT_OK((*session)->ScoreAlternatives({"ask not what your country can do for you", "and so my fellow"}));
    }
    EXPECT_OK((*session)->AcceptAudio(*audio));
    absl::StatusOr<AsrHypothesis> next = (*session)->Finish();
    EXPECT_OK(next);
    std::vector<std::string> words;
    for (const AsrWord& w : next->words) {
      words.push_back(absl::StrCat(w.text, " ", w.start.micros(), "-", w.end.micros(), " ", w.confidence));
    }
    return words;
  };
  const std::vector<std::string> plain = heard(false);
  EXPECT_FALSE(plain.empty());
  EXPECT_EQ(heard(true), plain);
}

// A scorer, apart from any session, scores audio as a session scores its
// finished utterance. In script mode it is a light decoder that knows only the
// script's words.
TEST_F(PocketsphinxTest, AnAlternativesScorerScoresAsTheSessionDoes) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  const std::vector<std::string> alternatives = {"thank you for watching and see you tomorrow night",
                                                 "concord returned to its place amidst the tents"};
  absl::StatusOr<std::unique_ptr<AsrSession>> heard = FreeModel().NewSession();
  ASSERT_OK(heard);
  ASSERT_OK((*heard)->AcceptAudio(*audio));
  ASSERT_OK((*heard)->Finish());
  absl::StatusOr<AlternativesScore> finished = (*heard)->ScoreAlternatives(alternatives);
  ASSERT_OK(finished);
  EXPECT_EQ(finished->best, 1);

  const std::string script = WriteScript("scorer.txt", "en: Concord returned to its place amidst the tents. | zh: 康科德回到了帐篷中间。\n"
                                                       "en: Thank you for watching and see you tomorrow night. | zh: 谢谢观看，明晚见。\n");
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> scripted = PocketsphinxModel::Load({.script_path = script});
  ASSERT_OK(scripted);
  for (const AsrModel* model : {static_cast<const AsrModel*>(&FreeModel()), static_cast<const AsrModel*>(scripted->get())}) {
    absl::StatusOr<std::unique_ptr<AlternativesScorer>> scorer = model->NewAlternativesScorer();
    ASSERT_OK(scorer);
    absl::StatusOr<AlternativesScore> given = (*scorer)->Score(*audio, alternatives);
    ASSERT_OK(given);
    EXPECT_EQ(given->best, 1) << model->name();
    EXPECT_EQ(given->frames, finished->frames) << model->name();
    // Each score starts its own stream (the front end's noise estimate
    // afresh), so it depends on the audio alone: the same to the last bit.
    EXPECT_DOUBLE_EQ(given->gap, finished->gap) << model->name();
    // Scoring leaves nothing behind: the same audio scores the same again.
    absl::StatusOr<AlternativesScore> again = (*scorer)->Score(*audio, alternatives);
    ASSERT_OK(again);
    EXPECT_EQ(again->best, given->best);
    EXPECT_DOUBLE_EQ(again->gap, given->gap);
    // Not other audio; nothing to score in none.
    const AudioBuffer stereo = AudioBuffer::Silence(MediaTime::Seconds(1), kAsrSampleRate, 2);
    EXPECT_EQ((*scorer)->Score(stereo, alternatives).status().code(), absl::StatusCode::kInvalidArgument);
    absl::StatusOr<AlternativesScore> empty = (*scorer)->Score(AudioBuffer{kAsrSampleRate, 1, {}}, alternatives);
    ASSERT_OK(empty);
    EXPECT_EQ(empty->best, -1);
  }
  // The script's scorer has no other words: such an alternative scores nothing.
  absl::StatusOr<std::unique_ptr<AlternativesScorer>> light = (*scripted)->NewAlternativesScorer();
  ASSERT_OK(light);
  absl::StatusOr<AlternativesScore> outside = (*light)->Score(*audio, {"remember to follow the channel"});
  ASSERT_OK(outside);
  EXPECT_EQ(outside->best, -1);
}

// A live show checks a grammar of candidate lines every few utterances, for
// hours: the checks must not keep memory. (Through pocketsphinx's JSGF parser
// each kept 10-16 KB: a 30-minute show grew by 6 MB.)
TEST_F(PocketsphinxTest, ScoringAgainAndAgainKeepsNoMemory) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  const std::string script = WriteScript("checks.txt", "en: Concord returned to its place amidst the tents. | zh: 康科德回到了帐篷中间。\n"
                                                       "en: Thank you for watching and see you tomorrow night. | zh: 谢谢观看，明晚见。\n"
                                                       "en: Remember to follow the channel for more deals. | zh: 记得关注频道。\n");
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> scripted = PocketsphinxModel::Load({.script_path = script});
  ASSERT_OK(scripted);
  absl::StatusOr<std::unique_ptr<AlternativesScorer>> scorer = (*scripted)->NewAlternativesScorer();
  ASSERT_OK(scorer);
  // A different grammar each time, as the follower's candidates change.
  const std::vector<std::vector<std::string>> candidates = {
      {"concord returned to its place amidst the tents", "thank you for watching"},
      {"remember to follow the channel for more deals", "concord returned"},
      {"see you tomorrow night", "for more deals", "thank you for watching and see you tomorrow night"}};
  const AudioBuffer start{audio->sample_rate, 1,
                          std::vector<float>(audio->samples.begin(), audio->samples.begin() + 3 * audio->sample_rate)};
  auto score = [&](int times) {
    for (int i = 0; i < times; ++i) {
      absl::StatusOr<AlternativesScore> s = (*scorer)->Score(start, candidates[static_cast<size_t>(i) % candidates.size()]);
      ASSERT_OK(s);
    }
  };
  auto heap_in_use = [] {
    const struct mallinfo2 info = mallinfo2();
    return static_cast<double>(info.uordblks + info.hblkhd);
  };
  score(6);  // the decoder's buffers reach their size
  const double before = heap_in_use();
  score(40);
  EXPECT_LT(heap_in_use() - before, 100e3) << "bytes kept by 40 checks";
}

TEST_F(PocketsphinxTest, SilenceGivesAnEmptyFinal) {
  const AsrHypothesis hyp = Recognize(FreeModel(), AudioBuffer::Silence(MediaTime::Seconds(2), kAsrSampleRate));
  EXPECT_TRUE(hyp.final);
  EXPECT_EQ(hyp.text, "");
  EXPECT_TRUE(hyp.words.empty());
  // Finish() with nothing fed is an empty final too.
  absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
  ASSERT_OK(session);
  absl::StatusOr<AsrHypothesis> empty = (*session)->Finish();
  ASSERT_OK(empty);
  EXPECT_EQ(empty->text, "");
  EXPECT_EQ(empty->start, empty->end);
}

TEST_F(PocketsphinxTest, TwoSessionsOnTwoThreadsGiveTheSameResult) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  AsrHypothesis first, second;
  std::thread a([&] { first = Recognize(FreeModel(), *audio); });
  std::thread b([&] { second = Recognize(FreeModel(), *audio); });
  a.join();
  b.join();
  EXPECT_FALSE(first.text.empty());
  EXPECT_EQ(first.text, second.text);
  ASSERT_EQ(first.words.size(), second.words.size());
  for (size_t i = 0; i < first.words.size(); ++i) {
    EXPECT_EQ(first.words[i].start, second.words[i].start);
    EXPECT_EQ(first.words[i].end, second.words[i].end);
    EXPECT_DOUBLE_EQ(first.words[i].confidence, second.words[i].confidence);
  }
  // A session reusing a pooled decoder after another utterance gives the same answer.
  EXPECT_EQ(Recognize(FreeModel(), *audio).text, first.text);
}

TEST_F(PocketsphinxTest, AudioInAnotherFormatIsRejectedAndNothingIsConsumed) {
  absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
  ASSERT_OK(session);
  const absl::Status rate = (*session)->AcceptAudio(AudioBuffer::Silence(MediaTime::Seconds(1), 44100));
  EXPECT_TRUE(absl::IsInvalidArgument(rate)) << rate;
  EXPECT_THAT(rate.message(), HasSubstr("16000 Hz mono"));
  EXPECT_THAT(rate.message(), HasSubstr("44100"));
  const absl::Status stereo = (*session)->AcceptAudio(AudioBuffer::Silence(MediaTime::Seconds(1), 16000, 2));
  EXPECT_TRUE(absl::IsInvalidArgument(stereo)) << stereo;
  EXPECT_EQ((*session)->position(), MediaTime::Zero());
  EXPECT_EQ((*session)->Partial(), std::nullopt);
}

TEST_F(PocketsphinxTest, TheTimelineOnlyMovesForward) {
  absl::StatusOr<std::unique_ptr<AsrSession>> session = FreeModel().NewSession();
  ASSERT_OK(session);
  const AudioBuffer second = AudioBuffer::Silence(MediaTime::Seconds(1), kAsrSampleRate);
  ASSERT_OK((*session)->AcceptAudio(second, MediaTime::Seconds(5)));
  EXPECT_EQ((*session)->position(), MediaTime::Seconds(6));
  const absl::Status back = (*session)->AcceptAudio(second, MediaTime::Seconds(1));
  EXPECT_TRUE(absl::IsInvalidArgument(back)) << back;
  const absl::Status gap = (*session)->AcceptAudio(second, MediaTime::Seconds(9));
  EXPECT_TRUE(absl::IsInvalidArgument(gap)) << gap;
  EXPECT_THAT(gap.message(), HasSubstr("Finish()"));
  EXPECT_EQ((*session)->position(), MediaTime::Seconds(6));
  // After Finish() the next utterance may start later.
  ASSERT_OK((*session)->Finish());
  ASSERT_OK((*session)->AcceptAudio(second, MediaTime::Seconds(9)));
  absl::StatusOr<AsrHypothesis> final = (*session)->Finish();
  ASSERT_OK(final);
  EXPECT_EQ(final->start, MediaTime::Seconds(9));
  EXPECT_EQ(final->end, MediaTime::Seconds(10));
}

TEST_F(PocketsphinxTest, MandarinHasNoModel) {
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.language = Language::kZh});
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(model.status())) << model.status();
  EXPECT_THAT(model.status().message(), HasSubstr("no Mandarin (zh) speech recognition model"));
}

TEST_F(PocketsphinxTest, MissingModelFilesAreNamed) {
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.model_dir = "/nonexistent/en-us"});
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::IsNotFound(model.status())) << model.status();
  EXPECT_THAT(model.status().message(), HasSubstr("/nonexistent/en-us/en-us/mdef"));
}

TEST_F(PocketsphinxTest, MissingScriptIsNamed) {
  const std::string path = ::testing::TempDir() + "/no-such-script.txt";
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_path = path});
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::IsNotFound(model.status())) << model.status();
  EXPECT_THAT(model.status().message(), HasSubstr(path));
}

TEST_F(PocketsphinxTest, ChineseOnlyScriptIsAClearErrorForTheEnglishRecognizer) {
  const std::string path = WriteScript("zh-only.txt", "zh: 大家好 | en: Hello\n欢迎来到直播间。\n");
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_path = path});
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(model.status())) << model.status();
  EXPECT_THAT(model.status().message(), HasSubstr("has no en lines to recognize (2 zh line(s) skipped"));
  EXPECT_THAT(model.status().message(), HasSubstr(path));
}

TEST_F(PocketsphinxTest, ChineseLinesInAMixedScriptAreSkippedWithAWarning) {
  const std::string path =
      WriteScript("mixed.txt", "Hello everyone.\nzh: 大家好\nWelcome to lingcast live.\n欢迎来到直播间。\n");
  std::FILE* log_file = std::tmpfile();
  ASSERT_NE(log_file, nullptr);
  {
    Logger logger(LogLevel::kWarning, log_file);
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model =
        PocketsphinxModel::Load({.script_path = path, .logger = &logger});
    ASSERT_OK(model);
    EXPECT_THAT((*model)->script_info().skipped_lines, ElementsAre(2, 4));
    EXPECT_EQ((*model)->script_info().sentences, 2);
    // "lingcast" is in no dictionary: its pronunciation is guessed, and said so.
    EXPECT_THAT((*model)->script_info().guessed_words, Contains("lingcast"));
  }
  std::rewind(log_file);
  std::string log;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, log_file)) log += buffer;
  std::fclose(log_file);
  EXPECT_THAT(log, HasSubstr("script lines skipped"));
  EXPECT_THAT(log, HasSubstr("lines=\"2, 4\""));
  EXPECT_THAT(log, HasSubstr("lingcast"));
}

TEST_F(PocketsphinxTest, ScriptWeightOutOfRange) {
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_weight = 1.5f});
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(model.status())) << model.status();
}

TEST_F(PocketsphinxTest, EarlyChannelCheckOutOfRange) {
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model =
      PocketsphinxModel::Load({.early_channel_check = MediaTime::Millis(-1)});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("early channel check"));
}

TEST_F(PocketsphinxTest, RedecodeChannelShiftOutOfRange) {
  for (float shift : {-1.0f, std::nanf("")}) {
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model =
        PocketsphinxModel::Load({.redecode_channel_shift = shift});
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(model.status().message(), HasSubstr("re-decode channel shift"));
  }
}

// Dither (PocketsphinxOptions::dither) comes from each session's own generator,
// started from the same seed: two sessions on two threads given speech between
// stretches of digital silence (the samples dither changes most) hear the same,
// and the same as a session given it again; undithered (the default), the words differ.
TEST_F(PocketsphinxTest, DitherIsEachSessionsOwn) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  AudioBuffer padded = AudioBuffer::Silence(MediaTime::Millis(300), kAsrSampleRate);
  for (size_t begin = 0; begin < audio->samples.size(); begin += kAsrSampleRate / 2) {
    padded.samples.insert(padded.samples.end(), audio->samples.begin() + begin,
                          audio->samples.begin() + std::min(audio->samples.size(), begin + kAsrSampleRate / 2));
    padded.samples.resize(padded.samples.size() + kAsrSampleRate / 10, 0.0f);
  }
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> dithered = PocketsphinxModel::Load({.dither = true});
  ASSERT_OK(dithered);
  AsrHypothesis first, second;
  std::thread a([&] { first = Recognize(**dithered, padded); });
  std::thread b([&] { second = Recognize(**dithered, padded); });
  a.join();
  b.join();
  EXPECT_FALSE(first.text.empty());
  EXPECT_EQ(first.text, second.text);
  ASSERT_EQ(first.words.size(), second.words.size());
  for (size_t i = 0; i < first.words.size(); ++i) EXPECT_EQ(first.words[i].end, second.words[i].end);
  EXPECT_EQ(Recognize(**dithered, padded).text, first.text);
  EXPECT_NE(Recognize(FreeModel(), padded).text, first.text);
}

// Files this process has open.
int OpenFileCount() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// A server loads a model for every session; each must leave no file open once
// it is gone (sphinxbase opened its "-logfn" log once per decoder and never
// closed it: four files a `serve` session, found by bench/soak_bench).
TEST_F(PocketsphinxTest, ModelsLoadedAndDroppedLeaveNoFileOpen) {
  const std::string script = WriteScript("fd_script.txt", "the price today is only ninety nine dollars\n");
  auto load_and_drop = [&] {
    for (const std::string& path : {std::string(), script}) {
      absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_path = path});
      ASSERT_OK(model);
      Recognize(**model, AudioBuffer::Silence(MediaTime::Millis(500), kAsrSampleRate));
    }
  };
  load_and_drop();  // whatever is opened once per process (the model's files are read and closed)
  const int before = OpenFileCount();
  for (int i = 0; i < 3; ++i) load_and_drop();
  EXPECT_EQ(OpenFileCount(), before);
}

TEST_F(PocketsphinxTest, DecoderFlagsAreCheckedAndNamed) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"-lww", "8"}, "pocketsphinx has no decoder flag -lww"},
      {{"-lw"}, "decoder flag -lw has no value"},
      {{"-lw", "heavy"}, "decoder flag -lw cannot be 'heavy'"},
      {{"-maxhmmpf", "1.5"}, "decoder flag -maxhmmpf cannot be '1.5'"},
      {{"-bestpath", "maybe"}, "decoder flag -bestpath cannot be 'maybe'"},
      {{"-hmm", "/tmp"}, "decoder flag -hmm is set by lingcast itself"},
  };
  for (const auto& [flags, message] : bad) {
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.decoder_flags = flags});
    ASSERT_FALSE(model.ok()) << flags.front();
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(model.status().message(), HasSubstr(message));
  }
  EXPECT_OK(PocketsphinxModel::Load({.decoder_flags = {"-lw", "8", "-bestpath", "no"}}));
}

// The flags reach the recognizing decoder: a beam far too narrow for speech
// loses most of the words the default recognizes.
TEST_F(PocketsphinxTest, DecoderFlagsChangeTheSearch) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> narrow =
      PocketsphinxModel::Load({.decoder_flags = {"-beam", "1e-2", "-wbeam", "1e-2", "-pbeam", "1e-2"}});
  ASSERT_OK(narrow);
  const double default_wer = CountWordErrors(kLibri.transcript, Recognize(FreeModel(), *audio).text).rate();
  const double narrow_wer = CountWordErrors(kLibri.transcript, Recognize(**narrow, *audio).text).rate();
  EXPECT_GT(narrow_wer, default_wer + 0.2);
}

TEST_F(PocketsphinxTest, AlternativesBeamOutOfRange) {
  for (double beam : {-1e-3, 1.0, std::nan("")}) {
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.alternatives_beam = beam});
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(model.status().message(), HasSubstr("alternatives beam"));
  }
}

// The beam reaches the check's grammar search, and only it: too narrow a beam
// loses the sentence said (no alternative reaches the grammar's end), while the
// session's own recognition of the next utterance is unchanged.
TEST_F(PocketsphinxTest, TheAlternativesBeamIsTheGrammarSearchs) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> narrow = PocketsphinxModel::Load({.alternatives_beam = 1e-3});
  ASSERT_OK(narrow);
  const std::vector<std::string> alternatives = {"thank you for watching and see you tomorrow night",
                                                 "concord returned to its place amidst the tents"};
  std::vector<AlternativesScore> scores;
  std::vector<std::string> next;
  for (const PocketsphinxModel* model : std::vector<const PocketsphinxModel*>{&FreeModel(), narrow->get()}) {
    absl::StatusOr<std::unique_ptr<AsrSession>> session = model->NewSession();
    ASSERT_OK(session);
    ASSERT_OK((*session)->AcceptAudio(*audio));
    ASSERT_OK((*session)->Finish());
    absl::StatusOr<AlternativesScore> score = (*session)->ScoreAlternatives(alternatives);
    ASSERT_OK(score);
    scores.push_back(*score);
    ASSERT_OK((*session)->AcceptAudio(*audio));
    absl::StatusOr<AsrHypothesis> again = (*session)->Finish();
    ASSERT_OK(again);
    next.push_back(again->text);
  }
  EXPECT_EQ(scores[0].best, 1);
  EXPECT_EQ(scores[1].best, -1);
  EXPECT_EQ(next[0], next[1]);
}

TEST(SearchVocabularyTest, TheDictionaryKeepsTheWordsAskedForWithEveryPronunciation) {
  const std::string dictionary =
      "the DH AH\nthe(2) DH IY\r\n\ntents T EH N T S\n  \nconcord K AA N K AO R D\nread R IY D\nread(2) R EH D\n";
  absl::StatusOr<std::string> kept = pocketsphinx::KeepDictionaryWords(dictionary, {"the", "read", "absent"});
  ASSERT_OK(kept);
  EXPECT_EQ(*kept, "the DH AH\nthe(2) DH IY\nread R IY D\nread(2) R EH D\n");
  absl::StatusOr<std::string> none = pocketsphinx::KeepDictionaryWords(dictionary, {});
  ASSERT_OK(none);
  EXPECT_EQ(*none, "");
}

TEST(SearchVocabularyTest, ADictionaryLineWithoutPhonesIsNamed) {
  absl::StatusOr<std::string> kept = pocketsphinx::KeepDictionaryWords("the DH AH\n\nbroken\n", {"the"});
  ASSERT_FALSE(kept.ok());
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kept.status().message(), HasSubstr("dictionary line 3 has no phones: 'broken'"));
}

TEST(SearchVocabularyTest, TheLikeliestWordsOfTheGeneralModelComeFirst) {
  const std::string model = PocketsphinxOptions{}.model_dir + "/en-us.lm.bin";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << model << " is not installed (pocketsphinx-en-us)";
  absl::StatusOr<std::vector<std::string>> words = pocketsphinx::LikeliestWords(model, 1000);
  ASSERT_OK(words);
  ASSERT_EQ(words->size(), 1000u);
  EXPECT_EQ(words->front(), "the");
  EXPECT_THAT(*words, Contains("country"));
  for (const std::string& word : *words) EXPECT_NE(word.front(), '<') << word;  // no <s>, </s>, <UNK>
  absl::StatusOr<std::vector<std::string>> all = pocketsphinx::LikeliestWords(model, 1'000'000);
  ASSERT_OK(all);
  EXPECT_GT(all->size(), 70'000u);
  EXPECT_LT(all->size(), 1'000'000u);
  absl::StatusOr<std::vector<std::string>> missing = pocketsphinx::LikeliestWords("/nonexistent/lm.bin", 10);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/lm.bin"));
}

// In script mode the search hears the script's words and the likeliest of the
// general model's, and no other word; free mode hears every word.
TEST_F(PocketsphinxTest, AScriptsNarrowVocabularyHearsOnlyItsWordsAndTheScripts) {
  LOAD_SPEECH_OR_SKIP(audio, kLibri);
  const std::string lm = PocketsphinxOptions{}.model_dir + "/en-us.lm.bin";
  absl::StatusOr<std::vector<std::string>> likeliest = pocketsphinx::LikeliestWords(lm, 500);
  ASSERT_OK(likeliest);
  // "concord", "amidst" and "tents" are far outside the 500 likeliest words.
  EXPECT_THAT(*likeliest, ::testing::Not(Contains("concord")));
  const std::string other = WriteScript("narrow-other.txt", "Welcome to the live room everyone\n");
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> narrow =
      PocketsphinxModel::Load({.script_path = other, .script_vocabulary = 500});
  ASSERT_OK(narrow);
  const AsrHypothesis heard = Recognize(**narrow, *audio);
  std::printf("librispeech, 500 words and another script: \"%s\"\n", heard.text.c_str());
  EXPECT_FALSE(heard.words.empty());
  const std::vector<std::string> script_words = {"welcome", "to", "the", "live", "room", "everyone"};
  for (const AsrWord& word : heard.words) {
    const bool known = std::find(likeliest->begin(), likeliest->end(), word.text) != likeliest->end() ||
                       std::find(script_words.begin(), script_words.end(), word.text) != script_words.end();
    EXPECT_TRUE(known) << word.text;
  }
  // Free mode searches every word, whatever the option says.
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> free_mode = PocketsphinxModel::Load({.script_vocabulary = 500});
  ASSERT_OK(free_mode);
  EXPECT_THAT(Recognize(**free_mode, *audio).text, HasSubstr("concord"));

  const std::string script = WriteScript("narrow.txt", ScriptWithReferences());
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> scripted =
      PocketsphinxModel::Load({.script_path = script, .script_vocabulary = 500});
  ASSERT_OK(scripted);
  const AsrHypothesis hyp = Recognize(**scripted, *audio);
  EXPECT_EQ(CountWordErrors(kLibri.transcript, hyp.text).errors(), 0) << hyp.text;
}

}  // namespace
}  // namespace lingcast
