// One pocketsphinx recognizing stream (AsrSession): a decoder taken from the pool
// for as long as the session lives, utterances streamed through it with partials,
// the channel checks that decode an utterance again with its own cepstral mean
// (PocketsphinxOptions::early_channel_check, redecode_channel_shift), word times
// and confidences, and the acoustic check of its last utterance. Internal to
// src/asr; PocketsphinxModel::NewSession makes them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "asr/pocketsphinx_decoder.h"
#include "asr/pocketsphinx_engine.h"
#include "asr/pocketsphinx_pool.h"
#include "core/media_time.h"

namespace lingcast::pocketsphinx {

class PocketsphinxSession : public AsrSession {
 public:
  // Call Start() before use. The decoder goes back to `pool` when the session ends.
  PocketsphinxSession(std::shared_ptr<PocketsphinxModel::DecoderPool> pool, PooledDecoder decoder);
  ~PocketsphinxSession() override;

  // A new stream on the decoder, reset to what a fresh one starts from.
  absl::Status Start();

  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override;
  std::optional<AsrHypothesis> Partial() override;
  absl::StatusOr<AsrHypothesis> Finish() override;
  absl::StatusOr<AlternativesScore> ScoreAlternatives(const std::vector<std::string>& alternatives) override;
  MediaTime position() const override {
    return utterance_open_ ? utterance_start_ + MediaTime::FromSamples(utterance_samples_, kAsrSampleRate) : end_;
  }

 private:
  absl::Status RedecodeIfTheChannelMoved();
  absl::Status RestartIfTheChannelMoved();

  std::shared_ptr<PocketsphinxModel::DecoderPool> pool_;
  PooledDecoder pooled_;
  ps_decoder_t* decoder_;  // pooled_.ps
  bool utterance_open_ = false;
  MediaTime utterance_start_;
  int64_t utterance_samples_ = 0;
  MediaTime end_;  // position when no utterance is open
  std::vector<int16> pcm_;
  const float redecode_channel_shift_;
  const int64_t early_check_samples_;  // 0: no early check
  bool channel_checked_early_ = true;  // for the open utterance
  std::vector<int16> utterance_pcm_;     // the open utterance, for RedecodeIfTheChannelMoved()
  std::vector<int16> last_utterance_pcm_;  // the last finished one, for ScoreAlternatives()
  bool utterance_too_long_to_redecode_ = false;
  std::vector<mfcc_t> decoded_with_cmn_;  // the cepstral mean it is being normalized with
  Dither dither_;  // every sample the session decodes (and keeps to decode again) has it
};

}  // namespace lingcast::pocketsphinx
