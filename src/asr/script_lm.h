// The language model of a script: what the anchor is expected to say, as an
// n-gram model in ARPA text, so the recognizer can prefer the script's word
// sequences (as Rhubarb Lip Sync does with its dialog text).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "media/language.h"
#include "text/script.h"

namespace lingcast {

// English text as recognizer words: lower-case ASCII words (apostrophes kept
// inside words: "don't"), split at spaces, hyphens and punctuation; simple
// numbers spelled out ("99" -> "ninety nine", "19.99" -> "nineteen point nine
// nine", "2nd" -> "second", "50%" -> "fifty percent", "$5" -> "five dollars").
// Anything else (non-Latin characters, emoji) separates words and is dropped.
std::vector<std::string> AsrWordsOf(std::string_view text);

// "ninety nine" for 99; 0 <= n < 10^12.
std::string CardinalWords(long long n);

// The recognizer sentences of a script, for one language.
struct ScriptCorpus {
  std::vector<std::vector<std::string>> sentences;  // each a sentence of AsrWordsOf words
  // Spoken lines in another language (the recognizer has no model for them):
  // skipped, and their 1-based line numbers kept so the caller can say which.
  std::vector<int> skipped_lines;
};

// Takes the spoken segment (segments[0]) of every script line in `language`,
// split into sentences at . ! ? (a sentence is what a VAD utterance usually holds).
ScriptCorpus CorpusOf(const Script& script, Language language);

// A backoff n-gram model (order 1-3) in ARPA text, estimated from `sentences`
// with interpolated absolute discounting (D = 0.5: a script is tiny, and every
// sequence in it is meant to be said, so seen n-grams keep most of their mass).
// Each sentence is wrapped in <s> ... </s>. Empty sentences are ignored; at least
// one word is needed (the caller checks).
std::string BuildArpa(const std::vector<std::vector<std::string>>& sentences, int order = 3);

}  // namespace lingcast
