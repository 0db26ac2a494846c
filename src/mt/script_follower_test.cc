#include "mt/script_follower.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

std::vector<FollowerLine> Lines() {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"Welcome to the live room everyone", "欢迎大家来到直播间"},
      {"Today we have a very special cream for you", "今天给大家带来一款特别的面霜"},
      {"This dress comes in red and in black", "这条裙子有红色和黑色"},
      {"This dress comes in blue and in white", "这条裙子有蓝色和白色"},
      {"The price today is only ninety nine yuan", "今天只要九十九元"},
      {"Click the link below to buy it now", "点击下方链接立即购买"},
      {"Thank you", "谢谢"},
      {"Do not forget to follow our channel", "别忘了关注我们的频道"},
  };
  std::vector<FollowerLine> lines;
  int number = 1;
  for (const auto& [source, target] : pairs) lines.push_back(FollowerLine{number++, source, "", target});
  return lines;
}

// Speaks `text` word by word: a partial after every word, then the final.
struct Spoken {
  std::vector<FollowDecision> decisions;
  int words_before_first_commit = -1;
};

Spoken Speak(ScriptFollower& follower, const std::string& text, MediaTime start = MediaTime::Zero()) {
  Spoken spoken;
  std::istringstream words(text);
  std::string word, heard;
  int count = 0;
  MediaTime t = start;
  while (words >> word) {
    heard += (heard.empty() ? "" : " ") + word;
    ++count;
    t = t + MediaTime::Millis(300);
    for (FollowDecision& d : follower.OnPartial(heard, t)) {
      if (spoken.words_before_first_commit < 0) spoken.words_before_first_commit = count;
      spoken.decisions.push_back(std::move(d));
    }
  }
  for (FollowDecision& d : follower.OnFinal(heard, t)) spoken.decisions.push_back(std::move(d));
  return spoken;
}

TEST(ScriptFollowerTest, CommitsALineBeforeItEnds) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "Today we have a very special cream for you");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  const FollowDecision& d = spoken.decisions[0];
  EXPECT_EQ(d.line, 1);
  EXPECT_EQ(d.line_number, 2);
  EXPECT_EQ(d.translation, "今天给大家带来一款特别的面霜");
  EXPECT_FALSE(d.at_endpoint);
  EXPECT_EQ(spoken.words_before_first_commit, 3);
  ASSERT_TRUE(d.commit_point.has_value());
  EXPECT_NEAR(*d.commit_point, 3.0 / 9.0, 1e-9);
  EXPECT_EQ(d.commit_time, MediaTime::Millis(900));
  EXPECT_GE(d.confidence, 0.75);
}

TEST(ScriptFollowerTest, LinesThatBeginAlikeWaitForTheWordThatTellsThemApart) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "This dress comes in blue and in white");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  EXPECT_EQ(spoken.decisions[0].line, 3);
  EXPECT_EQ(spoken.words_before_first_commit, 5);  // "blue" decides
}

TEST(ScriptFollowerTest, ToleratesRecognitionErrors) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "the prize today is only ninety nine yuan");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  EXPECT_EQ(spoken.decisions[0].line, 4);
  EXPECT_LT(*spoken.decisions[0].commit_point, 1.0);
}

TEST(ScriptFollowerTest, FindsSkippedRepeatedAndOutOfOrderLines) {
  ScriptFollower follower(Lines());
  std::vector<int> found;
  for (const char* text : {"Welcome to the live room everyone", "Click the link below to buy it now",
                           "Click the link below to buy it now", "Today we have a very special cream for you"}) {
    for (const FollowDecision& d : Speak(follower, text).decisions) found.push_back(d.line.value_or(-1));
  }
  EXPECT_EQ(found, (std::vector<int>{0, 5, 5, 1}));
}

TEST(ScriptFollowerTest, AnAdLibIsOffScript) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "wow so many of you are here tonight");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  const FollowDecision& d = spoken.decisions[0];
  EXPECT_TRUE(d.off_script);
  EXPECT_FALSE(d.line.has_value());
  EXPECT_FALSE(d.commit_point.has_value());
  EXPECT_EQ(d.heard, "wow so many of you are here tonight");
  EXPECT_TRUE(d.translation.empty());
}

TEST(ScriptFollowerTest, TwoLinesInOneUtterance) {
  ScriptFollower follower(Lines());
  Spoken spoken =
      Speak(follower, "Welcome to the live room everyone today we have a very special cream for you");
  ASSERT_EQ(spoken.decisions.size(), 2u);
  EXPECT_EQ(spoken.decisions[0].line, 0);
  EXPECT_EQ(spoken.decisions[1].line, 1);
  EXPECT_LT(spoken.decisions[1].commit_time, MediaTime::Millis(300 * 15));
}

TEST(ScriptFollowerTest, ALineThenAnAdLibInOneUtterance) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "Click the link below to buy it now hurry up guys stock is limited");
  ASSERT_EQ(spoken.decisions.size(), 2u);
  EXPECT_EQ(spoken.decisions[0].line, 5);
  EXPECT_TRUE(spoken.decisions[1].off_script);
  EXPECT_EQ(spoken.decisions[1].heard, "hurry up guys stock is limited");
}

TEST(ScriptFollowerTest, AShortLineIsDecidedAtTheEndpoint) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "thank you");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  EXPECT_EQ(spoken.decisions[0].line, 6);
  EXPECT_TRUE(spoken.decisions[0].at_endpoint);
  EXPECT_EQ(spoken.decisions[0].commit_point, 1.0);
}

TEST(ScriptFollowerTest, OnlyAFinalStillFindsTheLine) {
  ScriptFollower follower(Lines());
  std::vector<FollowDecision> d = follower.OnFinal("do not forget to follow our channel", MediaTime::Seconds(3));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 7);
  EXPECT_TRUE(d[0].at_endpoint);
}

// At the VAD endpoint the streaming hypothesis may already decide a line: it is
// committed then, and the final hypothesis only confirms it.
TEST(ScriptFollowerTest, TheEndpointCommitsALineTheWordsAlreadyDecide) {
  ScriptFollower follower(Lines());
  std::vector<FollowDecision> early = follower.OnEndpoint("thank you", MediaTime::Seconds(1));
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].line, 6);
  EXPECT_TRUE(early[0].at_endpoint);
  EXPECT_EQ(early[0].commit_point, 1.0);
  EXPECT_EQ(early[0].translation, "谢谢");
  // The final pass heard the same line (a word more or less): nothing new.
  EXPECT_TRUE(follower.OnFinal("thank you", MediaTime::Seconds(1)).empty());
  // The next line follows as usual.
  Spoken next = Speak(follower, "Do not forget to follow our channel", MediaTime::Seconds(2));
  ASSERT_EQ(next.decisions.size(), 1u);
  EXPECT_EQ(next.decisions[0].line, 7);
}

TEST(ScriptFollowerTest, TheEndpointLeavesUnsureWordsToTheFinal) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "welcome to the live room everyone").decisions.size(), 1u);
  // Words that match no line: not called off script yet (the final pass and
  // the acoustic check may still find the line), and nothing changes.
  EXPECT_TRUE(follower.OnEndpoint("to the for you", MediaTime::Seconds(5)).empty());
  std::vector<FollowDecision> decided = follower.OnFinal(
      "to the for you", MediaTime::Seconds(5),
      [](const std::vector<int>&) -> std::optional<AcousticMatch> { return AcousticMatch{1, 0.1}; });
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].line_number, 2);
  // A whole line heard only roughly (similarity under commit_quality, over
  // final_quality) waits for the final too, which still takes it.
  EXPECT_TRUE(follower.OnEndpoint("this dress comes in red", MediaTime::Seconds(9)).empty());
  decided = follower.OnFinal("this dress comes in red and in black", MediaTime::Seconds(9));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].line, 2);
  // Off-script words are decided by the final alone.
  EXPECT_TRUE(follower.OnEndpoint("my cat jumped on the table", MediaTime::Seconds(12)).empty());
  decided = follower.OnFinal("my cat jumped on the table", MediaTime::Seconds(12));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_TRUE(decided[0].off_script);
}

// A check run on the pause before the endpoint (Preview: nothing changes) can
// answer at the endpoint: the line the audio found is committed there, and the
// final that follows adds nothing.
TEST(ScriptFollowerTest, ACheckRunOnThePauseDecidesAtTheEndpoint) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "welcome to the live room everyone").decisions.size(), 1u);
  std::vector<int> asked;
  std::vector<FollowDecision> preview =
      follower.Preview("to the for you", MediaTime::Seconds(5), [&](const std::vector<int>& candidates) {
        asked = candidates;
        return std::optional<AcousticMatch>(AcousticMatch{1, 0.5});
      });
  ASSERT_EQ(preview.size(), 1u);
  EXPECT_EQ(preview[0].line, 1);
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked.front(), 1) << "the line expected next is always a candidate";
  // Preview changed nothing: a final without a check still calls the words off script.
  {
    ScriptFollower copy = follower;
    std::vector<FollowDecision> plain = copy.OnFinal("to the for you", MediaTime::Seconds(5));
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_TRUE(plain[0].off_script);
  }
  // A check that knows nothing (no pause check) leaves the words to the final.
  EXPECT_TRUE(follower
                  .OnEndpoint("to the for you", MediaTime::Seconds(5),
                              [](const std::vector<int>&) { return std::optional<AcousticMatch>(); })
                  .empty());
  std::vector<FollowDecision> early =
      follower.OnEndpoint("to the for you", MediaTime::Seconds(5), [](const std::vector<int>&) {
        return std::optional<AcousticMatch>(AcousticMatch{1, 0.5});
      });
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].line_number, 2);
  EXPECT_TRUE(early[0].at_endpoint);
  EXPECT_EQ(early[0].acoustic_gap, 0.5);
  EXPECT_TRUE(follower.OnFinal("to the for you", MediaTime::Seconds(5)).empty());
  // Past the gap the check allows, the endpoint does not take it either.
  EXPECT_TRUE(follower
                  .OnEndpoint("for the you to", MediaTime::Seconds(9),
                              [](const std::vector<int>&) {
                                return std::optional<AcousticMatch>(AcousticMatch{2, 3.0});
                              })
                  .empty());
}

// A line committed by a partial is not committed again at the endpoint; words
// after its end are the next decision.
TEST(ScriptFollowerTest, TheEndpointGoesOnAfterALinePartialsCommitted) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(follower.OnPartial("today we have a very special", MediaTime::Seconds(1)).size(), 1u);
  std::vector<FollowDecision> early =
      follower.OnEndpoint("today we have a very special cream for you thank you", MediaTime::Seconds(3));
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].line, 6);
  EXPECT_TRUE(follower.OnFinal("today we have a very special cream for you thank you", MediaTime::Seconds(3)).empty());
}

// Words that match no line get a second look from the recognizer (the
// AcousticCheck SpeechFollower gives): the line the audio fits within the gap
// is taken; a worse fit, or none, leaves the utterance off script.
TEST(ScriptFollowerTest, TheAudioDecidesWhatTheWordsCannot) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "welcome to the live room everyone").decisions.size(), 1u);
  std::vector<int> asked;
  auto fits = [&](double gap) {
    return [&asked, gap](const std::vector<int>& candidates) -> std::optional<AcousticMatch> {
      asked = candidates;
      return AcousticMatch{1, gap};
    };
  };
  // "today we have a very special cream for you", mostly lost by the recognizer.
  std::vector<FollowDecision> decided = follower.OnFinal("to the for you", MediaTime::Seconds(5), fits(0.1));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_FALSE(decided[0].off_script);
  EXPECT_EQ(decided[0].line_number, 2);
  EXPECT_TRUE(decided[0].at_endpoint);
  ASSERT_TRUE(decided[0].acoustic_gap.has_value());
  EXPECT_DOUBLE_EQ(*decided[0].acoustic_gap, 0.1);
  EXPECT_EQ(decided[0].translation, "今天给大家带来一款特别的面霜");
  // The line expected next is always a candidate, the closest lines after it.
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[0], 1);

  asked.clear();
  decided = follower.OnFinal("my cat jumped on the table", MediaTime::Seconds(9), fits(2.5));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_TRUE(decided[0].off_script);  // fits, but far worse than free phones
  EXPECT_FALSE(asked.empty());
  EXPECT_EQ(asked[0], 2);  // still the line after the last committed one

  decided = follower.OnFinal("my cat jumped on the table", MediaTime::Seconds(12),
                             [](const std::vector<int>&) { return std::nullopt; });
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_TRUE(decided[0].off_script);  // the audio fits no candidate at all
}

// Words the recognizer lost: what is left is the line's, in its order.
TEST(ScriptFollowerTest, ALineWithWordsLostIsFoundAtTheEndpoint) {
  ScriptFollower follower(Lines());
  // "click the link below to buy it now" with half its words lost.
  std::vector<FollowDecision> decided = follower.OnFinal("the link buy now", MediaTime::Seconds(3));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].line_number, 6);
  EXPECT_TRUE(decided[0].at_endpoint);
  EXPECT_DOUBLE_EQ(*decided[0].commit_point, 1.0);
  EXPECT_DOUBLE_EQ(decided[0].confidence, 0.5);
  EXPECT_FALSE(decided[0].acoustic_gap.has_value());
  // One word that is not the line's: no longer the line's words alone.
  EXPECT_TRUE(follower.OnFinal("the link buy then now", MediaTime::Seconds(6))[0].off_script);
  // The line's words out of order.
  EXPECT_TRUE(follower.OnFinal("buy the link now", MediaTime::Seconds(9))[0].off_script);
  // Too few words, or too little of the line.
  EXPECT_TRUE(follower.OnFinal("link now", MediaTime::Seconds(12))[0].off_script);
  EXPECT_TRUE(follower.OnFinal("the to it", MediaTime::Seconds(15))[0].off_script);
  // Words two lines hold as well ("this dress comes ... in": red or blue?).
  EXPECT_TRUE(follower.OnFinal("this dress in and in", MediaTime::Seconds(18))[0].off_script);
}

// An ad-lib heard right shares a word or none with the line the audio fits:
// the words are not overruled. Words that agree with the line in part are.
TEST(ScriptFollowerTest, TheAudioDoesNotOverruleWordsThatDisagreeWholly) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "welcome to the live room everyone").decisions.size(), 1u);
  const auto fits_line = [](int line) {
    return [line](const std::vector<int>&) -> std::optional<AcousticMatch> { return AcousticMatch{line, 0.5}; };
  };
  // "today we have a very special cream for you": one word in common.
  std::vector<FollowDecision> decided =
      follower.OnFinal("the weather outside is terrible for sure", MediaTime::Seconds(5), fits_line(1));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_TRUE(decided[0].off_script);
  // Two words of nine, in the line's order: the audio decides.
  decided = follower.OnFinal("we the is for cream", MediaTime::Seconds(9), fits_line(1));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].line_number, 2);
  ASSERT_TRUE(decided[0].acoustic_gap.has_value());
  // Two words, but out of the line's order, agree in one.
  decided = follower.OnFinal("cream we is to the", MediaTime::Seconds(13), fits_line(1));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_TRUE(decided[0].off_script);

  // The fraction counts too: a line of 9 words needs 3 at 0.3.
  FollowerConfig strict;
  strict.acoustic_min_agreement = 0.3;
  ScriptFollower follower3(Lines(), strict);
  ASSERT_EQ(Speak(follower3, "welcome to the live room everyone").decisions.size(), 1u);
  EXPECT_TRUE(follower3.OnFinal("we the is for cream", MediaTime::Seconds(5), fits_line(1))[0].off_script);
  EXPECT_EQ(follower3.OnFinal("we the is special for cream", MediaTime::Seconds(9), fits_line(1))[0].line_number, 2);
}

TEST(ScriptFollowerTest, NoAcousticCheckWhenTheWordsDecide) {
  FollowerConfig config;
  ScriptFollower follower(Lines(), config);
  int asked = 0;
  auto check = [&](const std::vector<int>&) -> std::optional<AcousticMatch> {
    ++asked;
    return std::nullopt;
  };
  EXPECT_EQ(follower.OnFinal("click the link below to buy it now", MediaTime::Seconds(3), check).size(), 1u);
  EXPECT_EQ(asked, 0);
  config.acoustic_candidates = 0;  // off
  ScriptFollower off(Lines(), config);
  EXPECT_TRUE(off.OnFinal("to the for you", MediaTime::Seconds(3), check)[0].off_script);
  EXPECT_EQ(asked, 0);
}

TEST(ScriptFollowerTest, SilenceDecidesNothing) {
  ScriptFollower follower(Lines());
  EXPECT_TRUE(follower.OnPartial("", MediaTime::Seconds(1)).empty());
  EXPECT_TRUE(follower.OnFinal("", MediaTime::Seconds(2)).empty());
}

TEST(ScriptFollowerTest, ChineseIsFollowedByCharacters) {
  ScriptFollower follower({{1, "欢迎大家来到直播间", "", "Welcome to the live room"},
                           {2, "今天只要九十九元", "", "Only 99 yuan today"}});
  std::vector<FollowDecision> d = follower.OnPartial("今天只要", MediaTime::Seconds(1));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 1);
  EXPECT_NEAR(*d[0].commit_point, 4.0 / 8.0, 1e-9);
}

TEST(ScriptFollowerTest, SpokenFormIsMatchedInsteadOfTheWrittenOne) {
  ScriptFollower follower({{1, "Only $99 today", "only ninety nine dollars today", "今天只要99美元"},
                           {2, "Follow us", "", "关注我们"}});
  std::vector<FollowDecision> d = follower.OnPartial("only ninety nine", MediaTime::Seconds(1));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 0);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(ScriptFollowerTest, ALineSpokenAcrossAPauseIsOneLine) {
  ScriptFollower follower(Lines());
  std::vector<FollowDecision> first = Speak(follower, "Today we have a very special").decisions;
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].line, 1);
  // After the pause: the rest of the same line, then the next line.
  EXPECT_TRUE(Speak(follower, "cream for you").decisions.empty());
  std::vector<FollowDecision> next = Speak(follower, "This dress comes in red and in black").decisions;
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].line, 2);
}

TEST(ScriptFollowerTest, AfterAnUnfinishedLineANewLineIsStillFound) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "Today we have a very special").decisions.size(), 1u);
  std::vector<FollowDecision> next = Speak(follower, "Click the link below to buy it now").decisions;
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].line, 5);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(ScriptFollowerTest, AStretchFromTheMiddleOfALineIsThatLine) {
  ScriptFollower follower(Lines());
  // The line's start was lost; the rest is heard with one word wrong.
  std::vector<FollowDecision> d = Speak(follower, "a very special dream for you").decisions;
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 1);
  EXPECT_TRUE(d[0].at_endpoint);
  ASSERT_TRUE(d[0].commit_point.has_value());
  EXPECT_DOUBLE_EQ(*d[0].commit_point, 1.0);
  // Too few words to tell: off script.
  std::vector<FollowDecision> short_one = Speak(follower, "for you").decisions;
  ASSERT_EQ(short_one.size(), 1u);
  EXPECT_TRUE(short_one[0].off_script);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(ScriptFollowerTest, AWordHeardTwiceAtTheEndStaysInTheLine) {
  ScriptFollower follower(Lines());
  std::vector<FollowDecision> d = Speak(follower, "Do not forget to follow our our channel").decisions;
  ASSERT_EQ(d.size(), 1u);  // not the line and an ad-lib "our channel"
  EXPECT_EQ(d[0].line, 7);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// The recognizer lost the line's first two words: the rest still commits on
// a partial, one word later than a whole start would (counted as two full
// edits, the missing words would hold the line back to the endpoint).
TEST(ScriptFollowerTest, ALineWhoseFirstWordsWereLostCommitsBeforeItEnds) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "have a very special cream for you");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  EXPECT_EQ(spoken.decisions[0].line, 1);
  EXPECT_FALSE(spoken.decisions[0].at_endpoint);
  EXPECT_EQ(spoken.words_before_first_commit, 4);
  ASSERT_TRUE(spoken.decisions[0].commit_point.has_value());
  EXPECT_NEAR(*spoken.decisions[0].commit_point, 6.0 / 9.0, 1e-9);  // "today we" + 4 words heard
}

// Words that only share a line's middle ("the link below") are not that line.
TEST(ScriptFollowerTest, AnAdLibSharingALinesMiddleWordsStaysOffScript) {
  ScriptFollower follower(Lines());
  Spoken spoken = Speak(follower, "the link below is broken for some of you");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  EXPECT_TRUE(spoken.decisions[0].off_script);
}

// A line said again after it was left unfinished: its start is a new
// commit, not held back as a possible continuation of the first.
TEST(ScriptFollowerTest, AnUnfinishedLineSaidAgainCommitsAtItsStart) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "Today we have a very special").decisions.size(), 1u);
  Spoken again = Speak(follower, "Today we have a very special cream for you");
  ASSERT_EQ(again.decisions.size(), 1u);
  EXPECT_EQ(again.decisions[0].line, 1);
  EXPECT_FALSE(again.decisions[0].at_endpoint);
  EXPECT_EQ(again.words_before_first_commit, 3);
}

// The line expected next (after the last one committed) commits on its first
// two words when no other line begins with them; any other line needs three.
TEST(ScriptFollowerTest, TheExpectedNextLineCommitsOnItsFirstUniqueWords) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "Welcome to the live room everyone").decisions.size(), 1u);
  Spoken next = Speak(follower, "Today we have a very special cream for you");
  ASSERT_EQ(next.decisions.size(), 1u);
  EXPECT_EQ(next.decisions[0].line, 1);
  EXPECT_EQ(next.words_before_first_commit, 2);
  EXPECT_NEAR(*next.decisions[0].commit_point, 2.0 / 9.0, 1e-9);
}

TEST(ScriptFollowerTest, ALineNotExpectedNextStillNeedsThreeWords) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "Welcome to the live room everyone").decisions.size(), 1u);
  Spoken skipped = Speak(follower, "Click the link below to buy it now");
  ASSERT_EQ(skipped.decisions.size(), 1u);
  EXPECT_EQ(skipped.decisions[0].line, 5);
  EXPECT_EQ(skipped.words_before_first_commit, 3);
}

// The expected line's start shared with another line is no evidence: it waits
// for the word that tells them apart.
TEST(ScriptFollowerTest, TheExpectedLineWaitsOnAStartItSharesWithAnother) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "Today we have a very special cream for you").decisions.size(), 1u);
  Spoken next = Speak(follower, "This dress comes in red and in black");
  ASSERT_EQ(next.decisions.size(), 1u);
  EXPECT_EQ(next.decisions[0].line, 2);
  EXPECT_EQ(next.words_before_first_commit, 5);  // "red" decides
}

// Two words that begin the expected line only approximately are not enough.
TEST(ScriptFollowerTest, TheExpectedLineMisheardAtItsStartNeedsThreeWords) {
  ScriptFollower follower(Lines());
  ASSERT_EQ(Speak(follower, "Welcome to the live room everyone").decisions.size(), 1u);
  Spoken next = Speak(follower, "today she have a very special cream for you");
  ASSERT_EQ(next.decisions.size(), 1u);
  EXPECT_EQ(next.decisions[0].line, 1);
  EXPECT_GT(next.words_before_first_commit, 2);
}

TEST(ScriptFollowerTest, TheExpectedLineRuleCanBeTurnedOff) {
  FollowerConfig config;
  config.expected_line_min_tokens = config.min_tokens;
  ScriptFollower follower(Lines(), config);
  ASSERT_EQ(Speak(follower, "Welcome to the live room everyone").decisions.size(), 1u);
  EXPECT_EQ(Speak(follower, "Today we have a very special cream for you").words_before_first_commit, 3);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// A Mandarin show's lines as the script writes them (Simplified, numbers in words).
std::vector<FollowerLine> MandarinLines() {
  return {{1, "欢迎大家来到直播间", "", "Welcome to the live room everyone"},
          {2, "这款面霜特别适合干性皮肤", "", "This face cream is made for dry skin"},
          {3, "一瓶有五十毫升", "", "One bottle holds fifty milliliters"},
          {4, "专柜价格是三百二十八元", "", "The counter price is 328 yuan"},
          {5, "今天直播间只要一百九十九元", "", "Today in the live room it is only 199 yuan"},
          {6, "喜欢的话记得点个关注", "", "If you like it, remember to follow"}};
}

MatchSpelling MandarinSpelling() {
  absl::StatusOr<MatchSpelling> spelling = MatchSpelling::Load(Language::kZh);
  EXPECT_OK(spelling);
  return *std::move(spelling);
}

// Three lines of a held-out Mandarin show that Whisper base heard right and wrote
// its own way: Traditional characters, digits for numerals. Matched as written,
// none of them is its line for sure (一瓶有50毫升 is 2 edits from its line: a weak
// endpoint match at best).
TEST(ScriptFollowerTest, MandarinHeardInTraditionalWithDigitsIsTheScriptsLine) {
  const std::vector<std::pair<std::string, int>> heard = {
      {"喜歡的話記得點個關注", 5}, {"專櫃價格是328元", 3}, {"一瓶有50毫升", 2}};
  ScriptFollower as_written(MandarinLines());
  for (const auto& [text, line] : heard) {
    const std::vector<FollowDecision> d = as_written.OnFinal(text, MediaTime::Seconds(3));
    ASSERT_EQ(d.size(), 1u) << text;
    EXPECT_TRUE(d[0].line != line || d[0].confidence < 0.75) << text << ": matched as written, " << d[0].confidence;
  }
  ScriptFollower follower(MandarinLines(), FollowerConfig{}, MandarinSpelling());
  for (const auto& [text, line] : heard) {
    const std::vector<FollowDecision> d = follower.OnFinal(text, MediaTime::Seconds(3));
    ASSERT_EQ(d.size(), 1u) << text;
    EXPECT_EQ(d[0].line, line) << text;
    EXPECT_FALSE(d[0].off_script) << text;
    EXPECT_GT(d[0].confidence, 0.99) << text;
  }
}

TEST(ScriptFollowerTest, TraditionalPartialsCommitBeforeTheLineEnds) {
  ScriptFollower follower(MandarinLines(), FollowerConfig{}, MandarinSpelling());
  EXPECT_TRUE(follower.OnPartial("專櫃", MediaTime::Millis(400)).empty());
  const std::vector<FollowDecision> d = follower.OnPartial("專櫃價格是3", MediaTime::Millis(900));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 3);
  EXPECT_LT(*d[0].commit_point, 1.0);
  EXPECT_TRUE(follower.OnFinal("專櫃價格是328元", MediaTime::Seconds(2)).empty());
}

TEST(ScriptFollowerTest, EnglishDigitsAndNumberWordsAreTheSameLine) {
  // The script writes digits, the recognizer words (pocketsphinx), or the other
  // way round (Whisper writes "$89").
  const std::vector<FollowerLine> lines = {{1, "Now only $89 for the whole set", "", "整套只要八十九美元"},
                                           {2, "The first fifteen buyers get eighty percent off", "", "前十五位买家打两折"},
                                           {3, "Do not forget to follow our channel", "", "别忘了关注我们的频道"}};
  ScriptFollower follower(lines, FollowerConfig{}, MatchSpelling(Language::kEn));
  std::vector<FollowDecision> d = follower.OnFinal("now only eighty nine dollars for the whole set", MediaTime::Seconds(3));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 0);
  EXPECT_GT(d[0].confidence, 0.99);
  d = follower.OnFinal("The first 15 buyers get 80% off.", MediaTime::Seconds(6));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 1);
  EXPECT_GT(d[0].confidence, 0.99);
  // As written, "$89" is one token against three words.
  ScriptFollower as_written(lines);
  d = as_written.OnFinal("now only eighty nine dollars for the whole set", MediaTime::Seconds(3));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_LT(d[0].confidence, 0.99);
}


// Opening scores (OnOpeningScores): the recognizer's log-probability of each
// candidate line's first tokens. The Lines() script has 8 lines, the fewest
// that are scored by default.

TEST(ScriptFollowerTest, OpeningCandidatesAreTheExpectedLineThenTheNearestOthers) {
  FollowerConfig config;
  config.opening_lines = 4;
  ScriptFollower follower(Lines(), config);
  EXPECT_THAT(follower.OpeningCandidates(), ::testing::ElementsAre(0, 1, 2, 3));
  Speak(follower, "Today we have a very special cream for you");
  ASSERT_EQ(follower.last_line(), 1);
  // The line after the one committed, then its neighbours, the earlier first.
  EXPECT_THAT(follower.OpeningCandidates(), ::testing::ElementsAre(2, 1, 3, 0));
}

TEST(ScriptFollowerTest, AClearOpeningScoreCommitsTheExpectedLineBeforeItsWordsDo) {
  ScriptFollower follower(Lines());
  // Two words heard, neither the line's: the words alone commit nothing.
  EXPECT_TRUE(follower.OnPartial("we come", MediaTime::Millis(800)).empty());
  const std::vector<int> candidates = follower.OpeningCandidates();
  ASSERT_EQ(candidates.size(), 8u);
  ASSERT_EQ(candidates[0], 0);
  std::vector<double> scores(candidates.size(), -5.0);
  scores[0] = -2.8;  // 1.5 and more ahead of every other line, above -3.0
  scores[3] = -4.3;
  const std::vector<FollowDecision> decisions =
      follower.OnOpeningScores(candidates, scores, "we come", MediaTime::Millis(800));
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].line, 0);
  EXPECT_EQ(decisions[0].line_number, 1);
  EXPECT_FALSE(decisions[0].at_endpoint);
  EXPECT_EQ(decisions[0].commit_time, MediaTime::Millis(800));
  ASSERT_TRUE(decisions[0].opening_logp.has_value());
  EXPECT_DOUBLE_EQ(*decisions[0].opening_logp, -2.8);
  EXPECT_NEAR(decisions[0].confidence, std::exp(-2.8), 1e-9);
  EXPECT_EQ(decisions[0].translation, "欢迎大家来到直播间");
  // The utterance has its line: nothing more is scored, and the rest of the
  // line heard and its final decide nothing new.
  EXPECT_TRUE(follower.OpeningCandidates().empty());
  EXPECT_TRUE(follower.OnPartial("welcome to the live room", MediaTime::Millis(1500)).empty());
  EXPECT_TRUE(follower.OnFinal("welcome to the live room everyone", MediaTime::Millis(2500)).empty());
  // The next utterance expects the line after it.
  EXPECT_EQ(follower.OpeningCandidates().front(), 1);
}

TEST(ScriptFollowerTest, AnOpeningScoreTooLowOrTooCloseToAnotherLineCommitsNothing) {
  ScriptFollower follower(Lines());
  ASSERT_TRUE(follower.OnPartial("we come", MediaTime::Millis(800)).empty());
  const std::vector<int> candidates = follower.OpeningCandidates();
  std::vector<double> scores(candidates.size(), -6.0);
  scores[0] = -3.2;  // far ahead, but below -3.0
  EXPECT_TRUE(follower.OnOpeningScores(candidates, scores, "we come", MediaTime::Millis(800)).empty());
  scores[0] = -2.0;
  scores[5] = -3.4;  // above -3.0, but only 1.4 ahead of another line
  EXPECT_TRUE(follower.OnOpeningScores(candidates, scores, "we come", MediaTime::Millis(800)).empty());
  scores[5] = -3.6;
  scores[1] = -1.9;  // another line scores best: only the expected line is committed this way
  EXPECT_TRUE(follower.OnOpeningScores(candidates, scores, "we come", MediaTime::Millis(800)).empty());
  // Not a number (a recognizer's failure) commits nothing either.
  scores[1] = -6.0;
  scores[0] = std::nan("");
  EXPECT_TRUE(follower.OnOpeningScores(candidates, scores, "we come", MediaTime::Millis(800)).empty());
  // Nothing changed: the words still decide the line at the endpoint.
  EXPECT_EQ(follower.last_line(), std::nullopt);
  EXPECT_EQ(follower.OpeningCandidates(), candidates);
}

TEST(ScriptFollowerTest, OpeningScoresForOtherCandidatesThanTheFollowersAreIgnored) {
  ScriptFollower follower(Lines());
  std::vector<int> candidates = follower.OpeningCandidates();
  std::vector<double> scores(candidates.size(), -6.0);
  scores[0] = -1.0;
  // Fewer scores than candidates, or candidates in another order.
  EXPECT_TRUE(follower.OnOpeningScores(candidates, {-1.0, -6.0}, "", MediaTime::Millis(500)).empty());
  std::swap(candidates[0], candidates[1]);
  EXPECT_TRUE(follower.OnOpeningScores(candidates, scores, "", MediaTime::Millis(500)).empty());
  EXPECT_EQ(follower.last_line(), std::nullopt);
}

TEST(ScriptFollowerTest, AShortScriptOrOpeningScoresOffScoreNothing) {
  std::vector<FollowerLine> short_script = Lines();
  short_script.resize(7);
  EXPECT_TRUE(ScriptFollower(short_script).OpeningCandidates().empty());
  FollowerConfig off;
  off.opening_lines = 0;
  EXPECT_TRUE(ScriptFollower(Lines(), off).OpeningCandidates().empty());
  FollowerConfig fewer;
  fewer.opening_min_lines = 2;
  EXPECT_EQ(ScriptFollower(short_script, fewer).OpeningCandidates().size(), 7u);
}

TEST(ScriptFollowerTest, OpeningsAreNotScoredAfterTheLastLineOrWhileALineIsOnItsWay) {
  ScriptFollower follower(Lines());
  // A line committed from its words: the utterance's opening is decided.
  ASSERT_EQ(follower.OnPartial("Welcome to the live", MediaTime::Millis(900)).size(), 1u);
  EXPECT_TRUE(follower.OpeningCandidates().empty());
  follower.OnFinal("Welcome to the live room everyone", MediaTime::Millis(2000));
  EXPECT_FALSE(follower.OpeningCandidates().empty());
  // The last line said: no line is expected next.
  Speak(follower, "Do not forget to follow our channel");
  ASSERT_EQ(follower.last_line(), 7);
  EXPECT_TRUE(follower.OpeningCandidates().empty());
}


TEST(ScriptFollowerTest, TheSameLineWrittenAgainIsNoRivalOfItsOpening) {
  std::vector<FollowerLine> lines = Lines();
  lines.push_back(FollowerLine{9, "Welcome to the live room, everyone!", "", "欢迎大家"});
  ScriptFollower follower(lines);
  const std::vector<int> candidates = follower.OpeningCandidates();
  ASSERT_EQ(candidates.size(), 9u);
  std::vector<double> scores(candidates.size(), -6.0);
  scores[0] = -2.0;
  // Line 9 is line 1 again (punctuation and case aside): it scores as line 1 does.
  scores[static_cast<size_t>(std::find(candidates.begin(), candidates.end(), 8) - candidates.begin())] = -2.0;
  const std::vector<FollowDecision> decisions = follower.OnOpeningScores(candidates, scores, "", MediaTime::Millis(700));
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].line, 0);
}


// A script that says a line twice (a host's second 谢谢大家): the words heard
// commit it from a partial as they would a line written once.
TEST(ScriptFollowerTest, ALineWrittenTwiceIsCommittedFromPartialsAndAtTheEndpoint) {
  std::vector<FollowerLine> lines = Lines();
  lines.push_back(lines[1]);
  lines.back().line_number = 9;
  ScriptFollower follower(lines);
  Spoken spoken = Speak(follower, "Today we have a very special cream for you");
  ASSERT_EQ(spoken.decisions.size(), 1u);
  EXPECT_EQ(spoken.decisions[0].translation, "今天给大家带来一款特别的面霜");
  EXPECT_FALSE(spoken.decisions[0].at_endpoint);
  // Heard only whole, at the endpoint: still that line, not an ad-lib.
  const std::vector<FollowDecision> at_end = follower.OnFinal("Today we have a very special cream for you", MediaTime::Seconds(9));
  ASSERT_EQ(at_end.size(), 1u);
  EXPECT_FALSE(at_end[0].off_script);
  EXPECT_EQ(at_end[0].translation, "今天给大家带来一款特别的面霜");
}

}  // namespace
}  // namespace lingcast
