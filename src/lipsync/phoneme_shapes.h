// Which mouth shape (Preston Blair / Rhubarb set, see media/viseme.h) a single
// IPA phoneme shows, as espeak-ng reports it with espeakINITIALIZE_PHONEME_IPA.
//
// Input is one phoneme event's text: English IPA ("h", "oʊ", "tʃ", "ɹ"),
// Mandarin IPA from the cmn voices ("tɕh", "ts.", "i.", "iɑ", "ər"), possibly
// with stress marks (ˈ ˌ), length (ː), tone digits or tone letters, combining
// diacritics and espeak's zero-width joiners attached. Those are stripped: they
// do not change what the lips do.
//
// Diphthongs and Mandarin finals with a medial ("aɪ", "oʊ", "iɑ", "uai") become
// several shapes with their share of the phoneme's duration, because the mouth
// visibly travels from one vowel to the next.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "media/viseme.h"

namespace lingcast {

enum class PhonemeKind {
  kPause,        // "_" : the speaker is silent
  kMarker,       // no articulation: "", "(en)" language switches, lone stress or tone marks
  kVowel,        // one or more vowel shapes
  kConsonant,    // one shape
  kTransparent,  // h, x, χ, ʔ: no lip shape of their own; they show the neighbouring vowel
};

// One part of a phoneme: `shape` held for `share` (per mille) of its duration.
struct ShapePart {
  Viseme shape = Viseme::kX;
  int share_permille = 1000;
};

struct PhonemeShape {
  PhonemeKind kind = PhonemeKind::kMarker;
  std::vector<ShapePart> parts;  // empty for pause, marker and transparent
  bool bilabial = false;         // m b p: the lips must visibly close
  bool recognized = true;        // false when the first-letter fallback decided
};

// How a phoneme track spells its phonemes: IPA from the TTS, or ARPAbet (the
// CMUdict / pocketsphinx phone set: "AA1", "HH", "NG", stress digits 0-2) from
// the ASR alignment.
enum class PhoneAlphabet { kIpa, kArpabet };

// Classifies one ARPAbet phone ("AA1", "ow0", "M"; case and stress digits are
// ignored). "SIL", "SP" and pocketsphinx fillers ("+NOISE+", "<sil>") are
// pauses. Never fails: an unknown phone is judged by its first letter as for
// IPA and reports recognized = false.
PhonemeShape ShapeOfArpabet(std::string_view phone);

// ShapeOfPhoneme or ShapeOfArpabet.
PhonemeShape ShapeOf(std::string_view phoneme, PhoneAlphabet alphabet);

// Classifies one phoneme. Never fails: an unknown symbol is judged by its first
// letter (a known vowel or consonant -> its shape, another vowel letter -> C,
// anything else -> B) and reports recognized = false.
PhonemeShape ShapeOfPhoneme(std::string_view ipa);

// The phoneme with stress, length, tone, aspiration and diacritic marks removed,
// as UTF-8 ("ˈoʊ" -> "oʊ", "tɕh" -> "tɕ", "i5" -> "i"). Exposed for tests and tools.
std::string StripPhonemeMarks(std::string_view ipa);

}  // namespace lingcast
