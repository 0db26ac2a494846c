#include "lipsync/phoneme_shapes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lingcast {
namespace {

// The shapes of one phoneme as letters, e.g. "EF" for "oʊ".
std::string Letters(std::string_view ipa) {
  std::string out;
  for (const ShapePart& p : ShapeOfPhoneme(ipa).parts) out.push_back(VisemeLetter(p.shape));
  return out;
}

TEST(PhonemeShapesTest, EnglishConsonants) {
  EXPECT_EQ(Letters("m"), "A");
  EXPECT_EQ(Letters("b"), "A");
  EXPECT_EQ(Letters("p"), "A");
  EXPECT_EQ(Letters("f"), "G");
  EXPECT_EQ(Letters("v"), "G");
  EXPECT_EQ(Letters("l"), "H");
  EXPECT_EQ(Letters("θ"), "H");
  EXPECT_EQ(Letters("w"), "F");
  EXPECT_EQ(Letters("ɹ"), "E");
  EXPECT_EQ(Letters("tʃ"), "B");
  EXPECT_EQ(Letters("dʒ"), "B");
  EXPECT_EQ(Letters("s"), "B");
  EXPECT_EQ(Letters("k"), "B");
  EXPECT_TRUE(ShapeOfPhoneme("m").bilabial);
  EXPECT_FALSE(ShapeOfPhoneme("n").bilabial);
}

TEST(PhonemeShapesTest, EnglishVowelsAndDiphthongs) {
  EXPECT_EQ(Letters("iː"), "B");
  EXPECT_EQ(Letters("ɛ"), "C");
  EXPECT_EQ(Letters("æ"), "C");
  EXPECT_EQ(Letters("ɑː"), "D");
  EXPECT_EQ(Letters("ɔː"), "E");
  EXPECT_EQ(Letters("ɜː"), "E");
  EXPECT_EQ(Letters("uː"), "F");
  EXPECT_EQ(Letters("oʊ"), "EF");
  EXPECT_EQ(Letters("əʊ"), "EF");
  EXPECT_EQ(Letters("aɪ"), "DB");
  EXPECT_EQ(Letters("aʊ"), "DF");
  EXPECT_EQ(Letters("eɪ"), "CB");
}

TEST(PhonemeShapesTest, MandarinInitialsAndFinals) {
  EXPECT_EQ(Letters("tɕh"), "B");  // aspirated q
  EXPECT_EQ(Letters("ts.h"), "B");  // ch, espeak's retroflex spelling
  EXPECT_EQ(Letters("s."), "B");
  EXPECT_EQ(Letters("ʂ"), "B");
  EXPECT_EQ(Letters("ph"), "A");
  EXPECT_EQ(Letters("i."), "B");   // the apical vowel of zhi, shi
  EXPECT_EQ(Letters("y"), "F");
  EXPECT_EQ(Letters("iɑ"), "BD");
  EXPECT_EQ(Letters("ua"), "FD");
  EXPECT_EQ(Letters("ɑu"), "DF");
  EXPECT_EQ(Letters("yɛ"), "FC");
  EXPECT_EQ(Letters("ər"), "E");
  EXPECT_EQ(ShapeOfPhoneme("χ").kind, PhonemeKind::kTransparent);
  EXPECT_EQ(ShapeOfPhoneme("x").kind, PhonemeKind::kTransparent);
}

TEST(PhonemeShapesTest, GlideGetsTheShorterShare) {
  const PhonemeShape ia = ShapeOfPhoneme("iɑ");
  ASSERT_EQ(ia.parts.size(), 2u);
  EXPECT_LT(ia.parts[0].share_permille, ia.parts[1].share_permille);
  const PhonemeShape ai = ShapeOfPhoneme("aɪ");
  ASSERT_EQ(ai.parts.size(), 2u);
  EXPECT_GT(ai.parts[0].share_permille, ai.parts[1].share_permille);
  EXPECT_EQ(ai.parts[0].share_permille + ai.parts[1].share_permille, 1000);
}

TEST(PhonemeShapesTest, StressLengthAndToneMarksAreIgnored) {
  EXPECT_EQ(StripPhonemeMarks("ˈoʊ"), "oʊ");
  EXPECT_EQ(StripPhonemeMarks("ˌiː"), "i");
  EXPECT_EQ(StripPhonemeMarks("a5"), "a");
  EXPECT_EQ(StripPhonemeMarks("t\u200Dɕh"), "tɕ");
  EXPECT_EQ(StripPhonemeMarks("a˥˩"), "a");
  EXPECT_EQ(Letters("ˈɑ5"), "D");
  EXPECT_EQ(Letters("t\u200Dʃ"), "B");
}

TEST(PhonemeShapesTest, PausesAndMarkers) {
  EXPECT_EQ(ShapeOfPhoneme("_").kind, PhonemeKind::kPause);
  EXPECT_EQ(ShapeOfPhoneme("").kind, PhonemeKind::kMarker);
  EXPECT_EQ(ShapeOfPhoneme("(en)").kind, PhonemeKind::kMarker);
  EXPECT_EQ(ShapeOfPhoneme("ˈ").kind, PhonemeKind::kMarker);
  EXPECT_EQ(ShapeOfPhoneme("5").kind, PhonemeKind::kMarker);
}

TEST(PhonemeShapesTest, UnknownSymbolsFallBackByFirstLetter) {
  const PhonemeShape click = ShapeOfPhoneme("ʘ");
  EXPECT_FALSE(click.recognized);
  EXPECT_EQ(click.kind, PhonemeKind::kConsonant);
  EXPECT_EQ(Letters("ʘ"), "B");
  EXPECT_EQ(Letters("ä"), "C");
  EXPECT_EQ(Letters("ɑn"), "D");   // a known vowel leads: its shape
  EXPECT_EQ(Letters("mb"), "A");   // a known bilabial leads: still a closure
  EXPECT_TRUE(ShapeOfPhoneme("mb").bilabial);
  EXPECT_EQ(Letters("\xff"), "B");  // not UTF-8 at all
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

std::string ArpabetLetters(std::string_view phone) {
  std::string out;
  for (const ShapePart& p : ShapeOfArpabet(phone).parts) out.push_back(VisemeLetter(p.shape));
  return out;
}

TEST(ArpabetShapesTest, ConsonantsAsCmuDictSpellsThem) {
  EXPECT_EQ(ArpabetLetters("M"), "A");
  EXPECT_EQ(ArpabetLetters("B"), "A");
  EXPECT_EQ(ArpabetLetters("P"), "A");
  EXPECT_TRUE(ShapeOfArpabet("P").bilabial);
  EXPECT_EQ(ArpabetLetters("F"), "G");
  EXPECT_EQ(ArpabetLetters("V"), "G");
  EXPECT_EQ(ArpabetLetters("L"), "H");
  EXPECT_EQ(ArpabetLetters("TH"), "H");
  EXPECT_EQ(ArpabetLetters("DH"), "H");
  EXPECT_EQ(ArpabetLetters("W"), "F");
  EXPECT_EQ(ArpabetLetters("R"), "E");
  EXPECT_EQ(ArpabetLetters("S"), "B");
  EXPECT_EQ(ArpabetLetters("NG"), "B");
  EXPECT_EQ(ArpabetLetters("CH"), "B");
  EXPECT_EQ(ShapeOfArpabet("HH").kind, PhonemeKind::kTransparent);
  EXPECT_FALSE(ShapeOfArpabet("N").bilabial);
}

TEST(ArpabetShapesTest, VowelsStressAndDiphthongs) {
  EXPECT_EQ(ArpabetLetters("AA1"), "D");
  EXPECT_EQ(ArpabetLetters("AE1"), "C");
  EXPECT_EQ(ArpabetLetters("AH1"), "C");
  EXPECT_EQ(ArpabetLetters("AH0"), "B");  // the schwa
  EXPECT_EQ(ArpabetLetters("AO1"), "E");
  EXPECT_EQ(ArpabetLetters("ER0"), "E");
  EXPECT_EQ(ArpabetLetters("IY1"), "B");
  EXPECT_EQ(ArpabetLetters("UW1"), "F");
  EXPECT_EQ(ArpabetLetters("OW1"), "EF");
  EXPECT_EQ(ArpabetLetters("AY2"), "DB");
  EXPECT_EQ(ArpabetLetters("AW1"), "DF");
  EXPECT_EQ(ArpabetLetters("EY1"), "CB");
  EXPECT_EQ(ArpabetLetters("ow1"), "EF");  // case does not matter
  EXPECT_EQ(ShapeOfArpabet("OY1").parts[0].share_permille + ShapeOfArpabet("OY1").parts[1].share_permille, 1000);
}

TEST(ArpabetShapesTest, PausesFillersAndUnknowns) {
  EXPECT_EQ(ShapeOfArpabet("SIL").kind, PhonemeKind::kPause);
  EXPECT_EQ(ShapeOfArpabet("+NOISE+").kind, PhonemeKind::kPause);
  EXPECT_EQ(ShapeOfArpabet("<sil>").kind, PhonemeKind::kPause);
  EXPECT_EQ(ShapeOfArpabet("1").kind, PhonemeKind::kMarker);
  EXPECT_FALSE(ShapeOfArpabet("QQ").recognized);
  EXPECT_EQ(ArpabetLetters("QQ"), "B");
  EXPECT_EQ(ArpabetLetters("OE1"), "C");
  // The same phone through either alphabet gives the same mouth.
  EXPECT_EQ(ShapeOf("UW1", PhoneAlphabet::kArpabet).parts[0].shape, ShapeOf("uː", PhoneAlphabet::kIpa).parts[0].shape);
}

}  // namespace
}  // namespace lingcast
