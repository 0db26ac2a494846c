#include "asr/pocketsphinx_decoder.h"

namespace lingcast::pocketsphinx {

bool IsFiller(const char* word) { return word[0] == '<' || word[0] == '[' || word[0] == '+'; }

std::string BaseWord(const char* word) {
  std::string base(word);
  const size_t paren = base.find('(');
  if (paren != std::string::npos && paren > 0) base.resize(paren);
  return base;
}

std::optional<std::string> LookupWord(ps_decoder_t* ps, const std::string& word) {
  char* phones = ps_lookup_word(ps, word.c_str());
  if (phones == nullptr) return std::nullopt;
  std::string out(phones);
  ckd_free(phones);
  return out;
}

std::vector<int16> ToPcm16(const AudioBuffer& audio, bool dither) {
  Dither add_dither(dither);
  std::vector<int16> pcm(audio.samples.size());
  for (size_t i = 0; i < pcm.size(); ++i) pcm[i] = add_dither(audio.samples[i]);
  return pcm;
}

}  // namespace lingcast::pocketsphinx
