// The acoustic check of script mode (AsrSession::ScoreAlternatives,
// AlternativesScorer): how well an utterance's audio fits the best of a few
// alternatives (script lines), as a likelihood ratio against a free loop of
// phones. The session scores its last utterance on a decoder kept with it; the
// model's PocketsphinxScorer scores any audio on a light decoder of its own
// (PocketsphinxModel::DecoderPool::BuildScorer). Internal to src/asr.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "asr/pocketsphinx_decoder.h"

namespace lingcast::pocketsphinx {

// AsrSession::ScoreAlternatives and AlternativesScorer::Score: two block
// decodes of `pcm` on `ps`, a decoder of their own (never a session's
// recognizing one: the decodes would move its front end's noise estimate,
// and so change what the session hears next). Each decode starts a fresh
// stream, so a score depends on its audio alone, not on what was scored
// before; the running channel estimate is put back afterwards.
// `beam` (when not 0) is the grammar search's -beam, -pbeam and -wbeam.
absl::StatusOr<AlternativesScore> ScoreOnDecoder(ps_decoder_t* ps, const std::vector<int16>& pcm,
                                                 const std::vector<std::string>& alternatives, double beam);

// AlternativesScorer on a decoder of its own.
class PocketsphinxScorer : public AlternativesScorer {
 public:
  PocketsphinxScorer(Decoder decoder, double beam, bool dither)
      : decoder_(std::move(decoder)), beam_(beam), dither_(dither) {}

  absl::StatusOr<AlternativesScore> Score(const AudioBuffer& audio,
                                          const std::vector<std::string>& alternatives) override;

 private:
  Decoder decoder_;
  double beam_;  // PocketsphinxOptions::alternatives_beam
  bool dither_;   // PocketsphinxOptions::dither
};

}  // namespace lingcast::pocketsphinx
