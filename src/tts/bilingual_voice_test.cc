// BilingualVoice: runs of each language go to their own engine, joined on one
// timeline at one rate, with word offsets into the whole text.
#include "tts/bilingual_voice.h"

#include <cmath>

#include "core/status.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

// A voice that says each text as one word: 10 ms of a tone per byte, and
// remembers what it was asked.
class RecordingEngine : public TtsEngine {
 public:
  RecordingEngine(std::string name, int rate) : name_(std::move(name)), rate_(rate) {}

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override {
    if (request.voice == "bad") return absl::InvalidArgumentError("voice \"bad\" is not one of " + name_ + "'s");
    calls.push_back(request);
    return Say(request.text, request.language);
  }
  absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) override;
  int sample_rate() const override { return rate_; }
  std::string name() const override { return name_; }

  SynthesisResult Say(std::string_view text, Language language) const {
    SynthesisResult out;
    out.audio.sample_rate = rate_;
    const std::size_t n = text.size() * static_cast<std::size_t>(rate_) / 100;
    for (std::size_t i = 0; i < n; ++i) out.audio.samples.push_back(0.5f * std::sin(0.05f * static_cast<float>(i)));
    out.track.language = language;
    if (text.find_first_not_of(' ') == std::string_view::npos) {  // nothing to say, as real engines
      out.audio.samples.clear();
      return out;
    }
    out.track.phonemes.push_back({"a", MediaTime::Zero(), out.audio.duration()});
    out.track.words.push_back({MediaTime::Zero(), 0, static_cast<int>(text.size())});
    return out;
  }

  std::vector<SynthesisRequest> calls;
  std::vector<std::string> clauses;
  int sessions_opened = 0;
  bool session_cancelled = false;

 private:
  std::string name_;
  int rate_;
};

class RecordingSession : public TtsSession {
 public:
  explicit RecordingSession(RecordingEngine& engine) : engine_(engine) {}
  absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) override {
    if (cancelled_) return absl::CancelledError("cancelled");
    engine_.clauses.emplace_back(clause);
    return engine_.Say(clause, language);
  }
  // In two parts, the track with the first, as a neural voice streams.
  absl::Status StreamClause(std::string_view clause, Language language, const ClausePartSink& sink) override {
    LC_ASSIGN_OR_RETURN(SynthesisResult whole, SynthesizeClause(clause, language));
    SynthesisResult second;
    second.audio.sample_rate = whole.audio.sample_rate;
    second.track.language = language;
    const std::size_t half = whole.audio.samples.size() / 2;
    second.audio.samples.assign(whole.audio.samples.begin() + static_cast<std::ptrdiff_t>(half), whole.audio.samples.end());
    whole.audio.samples.resize(half);
    LC_RETURN_IF_ERROR(sink(std::move(whole)));
    return sink(std::move(second));
  }
  void Cancel() override {
    cancelled_ = true;
    engine_.session_cancelled = true;
  }
  bool cancelled() const override { return cancelled_; }

 private:
  RecordingEngine& engine_;
  bool cancelled_ = false;
};

absl::StatusOr<std::unique_ptr<TtsSession>> RecordingEngine::OpenSession(const VoiceSettings& settings) {
  if (settings.voice == "bad") return absl::InvalidArgumentError("voice \"bad\" is not one of " + name_ + "'s");
  ++sessions_opened;
  return std::unique_ptr<TtsSession>(std::make_unique<RecordingSession>(*this));
}

struct Pair {
  std::shared_ptr<RecordingEngine> en = std::make_shared<RecordingEngine>("piper", 22050);
  std::shared_ptr<RecordingEngine> zh = std::make_shared<RecordingEngine>("fastspeech2", 24000);
  std::unique_ptr<BilingualVoice> voice;
  Pair() {
    auto created = BilingualVoice::Create(en, zh);
    EXPECT_OK(created);
    voice = *std::move(created);
  }
};

TEST(BilingualVoice, EachRunGoesToItsLanguagesEngineOnOneTimeline) {
  Pair pair;
  EXPECT_EQ(pair.voice->name(), "piper+fastspeech2");
  EXPECT_EQ(pair.voice->sample_rate(), 24000);
  SynthesisRequest request;
  request.language = Language::kEn;
  request.text = "Try our 小笼包 today";
  auto result = pair.voice->Synthesize(request);
  ASSERT_OK(result);
  ASSERT_EQ(pair.zh->calls.size(), 1u);
  EXPECT_EQ(pair.zh->calls[0].text, "小笼包");
  EXPECT_EQ(pair.zh->calls[0].language, Language::kZh);
  ASSERT_EQ(pair.en->calls.size(), 2u);
  EXPECT_EQ(result->audio.sample_rate, 24000);
  // The English pieces were resampled: the whole lasts what its pieces did
  // (10 ms a byte), within a few samples.
  const double expected_s = static_cast<double>(request.text.size()) / 100.0;
  EXPECT_NEAR(result->audio.duration().seconds(), expected_s, 0.002);
  // One word per run, offsets into the whole text, in time order.
  ASSERT_EQ(result->track.words.size(), 3u);
  EXPECT_EQ(request.text.substr(result->track.words[1].text_offset, result->track.words[1].text_length), "小笼包");
  EXPECT_LT(result->track.words[0].start, result->track.words[1].start);
  EXPECT_LT(result->track.words[1].start, result->track.words[2].start);
}

TEST(BilingualVoice, ANamedVoiceGoesToTheSettingsLanguageOnly) {
  Pair pair;
  SynthesisRequest request;
  request.language = Language::kZh;
  request.voice = "cmn";
  request.text = "我爱iPhone手机";
  ASSERT_OK(pair.voice->Synthesize(request));
  ASSERT_EQ(pair.en->calls.size(), 1u);
  EXPECT_EQ(pair.en->calls[0].text, "iPhone");
  EXPECT_EQ(pair.en->calls[0].voice, "");
  ASSERT_EQ(pair.zh->calls.size(), 2u);
  EXPECT_EQ(pair.zh->calls[0].voice, "cmn");
}

TEST(BilingualVoice, SessionsOpenPerLanguageAndCancelBoth) {
  Pair pair;
  VoiceSettings settings;
  settings.language = Language::kZh;
  auto session = pair.voice->OpenSession(settings);
  ASSERT_OK(session);
  EXPECT_EQ(pair.zh->sessions_opened, 1);
  EXPECT_EQ(pair.en->sessions_opened, 0);  // not until an English run comes
  auto spoken = (*session)->SynthesizeClause("我爱iPhone手机", Language::kZh);
  ASSERT_OK(spoken);
  EXPECT_EQ(pair.en->sessions_opened, 1);
  EXPECT_EQ(pair.en->clauses, (std::vector<std::string>{"iPhone"}));
  (*session)->Cancel();
  EXPECT_TRUE(pair.en->session_cancelled);
  EXPECT_TRUE(pair.zh->session_cancelled);
  EXPECT_EQ((*session)->SynthesizeClause("你好", Language::kZh).status().code(), absl::StatusCode::kCancelled);
}

TEST(BilingualVoice, BadSettingsAndMissingEnginesAreRefused) {
  Pair pair;
  VoiceSettings settings;
  settings.language = Language::kEn;
  settings.voice = "bad";
  const auto session = pair.voice->OpenSession(settings);
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(session.status().message().find("piper"), std::string::npos) << session.status();
  settings.voice.clear();
  settings.rate = -1;
  EXPECT_EQ(pair.voice->OpenSession(settings).status().code(), absl::StatusCode::kInvalidArgument);
  SynthesisRequest request;
  request.text = "caf\xC3";
  EXPECT_EQ(pair.voice->Synthesize(request).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(pair.en->calls.empty());
  EXPECT_EQ(BilingualVoice::Create(nullptr, pair.zh).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BilingualVoice, NothingToSayIsEmptyAudio) {
  Pair pair;
  SynthesisRequest request;
  request.text = "  ";
  auto result = pair.voice->Synthesize(request);
  ASSERT_OK(result);
  EXPECT_TRUE(result->audio.samples.empty());
  EXPECT_TRUE(result->track.words.empty());
}

TEST(BilingualVoice, AOneLanguageClauseAtOurRateStreamsAsItsEngineDoes) {
  Pair pair;  // our rate is the Mandarin engine's, 24 kHz
  auto session = pair.voice->OpenSession({.language = Language::kZh});
  ASSERT_OK(session);
  auto stream = [&](std::string_view text) {
    std::vector<SynthesisResult> parts;
    SynthesisResult joined;
    const absl::Status status = (*session)->StreamClause(text, Language::kZh, [&](SynthesisResult part) {
      parts.push_back(part);
      AppendClausePart(joined, std::move(part));
      return absl::OkStatus();
    });
    EXPECT_OK(status);
    return std::make_pair(parts.size(), joined);
  };
  for (const std::string text : {"大家好", "hello there", "大家好 hello"}) {
    const auto [parts, joined] = stream(text);
    auto whole = (*session)->SynthesizeClause(text, Language::kZh);
    ASSERT_OK(whole);
    // Mandarin alone streams in the engine's two parts; English needs resampling
    // and a mixed clause joining, so those come whole.
    EXPECT_EQ(parts, text == "大家好" ? 2u : 1u) << text;
    EXPECT_EQ(joined.audio.sample_rate, 24000) << text;
    EXPECT_EQ(joined.audio.samples, whole->audio.samples) << text;
    ASSERT_EQ(joined.track.words.size(), whole->track.words.size()) << text;
    for (std::size_t i = 0; i < joined.track.words.size(); ++i) {
      EXPECT_EQ(joined.track.words[i].text_offset, whole->track.words[i].text_offset) << text;
      EXPECT_EQ(joined.track.words[i].start, whole->track.words[i].start) << text;
    }
    EXPECT_EQ(joined.track.language, Language::kZh) << text;
  }
}

}  // namespace
}  // namespace lingcast
