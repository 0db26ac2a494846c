// Pronunciations for script words the dictionary does not have (brand names,
// coinages, compounds): a compound of two dictionary words when the word splits
// that way ("livestream" -> live + stream), otherwise English spelling rules.
//
// The rules are a small greedy longest-match table from letter groups to CMU
// phones. They are rough (English spelling is irregular), but a rough
// pronunciation still lets the script language model offer the word, and the
// acoustic match decides; without one the word could never be recognized.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace lingcast {

// Space-separated CMU phones (the set of the pocketsphinx en-us model, no stress
// digits) for a lower-case ASCII word (apostrophes allowed); empty for a word
// without letters.
std::string SpellingToPhones(const std::string& word);

// `lookup` returns a dictionary pronunciation or nullopt. Tries the word, then a
// split into two dictionary words of at least 3 letters each, then the rules.
std::string GuessPronunciation(const std::string& word,
                               const std::function<std::optional<std::string>(const std::string&)>& lookup);

}  // namespace lingcast
