#include "asr/pocketsphinx_session.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "asr/pocketsphinx_scorer.h"
#include "core/status.h"

namespace lingcast::pocketsphinx {
namespace {

constexpr int kFramesPerSecond = 100;  // pocketsphinx's default -frate

}  // namespace

PocketsphinxSession::PocketsphinxSession(std::shared_ptr<PocketsphinxModel::DecoderPool> pool, PooledDecoder decoder)
    : pool_(std::move(pool)),
      pooled_(std::move(decoder)),
      decoder_(pooled_.ps.get()),
      redecode_channel_shift_(pool_->redecode_channel_shift()),
      early_check_samples_(pool_->early_channel_check().micros() * kAsrSampleRate / 1'000'000),
      dither_(pool_->dither()) {}

PocketsphinxSession::~PocketsphinxSession() {
  if (utterance_open_) ps_end_utt(decoder_);
  pool_->Give(std::move(pooled_));
}

absl::Status PocketsphinxSession::Start() {
  // A new stream: frame numbers (word times) count from here, and the channel
  // estimates start from the model's.
  if (ps_start_stream(decoder_) < 0) return absl::InternalError("pocketsphinx could not start a stream");
  // Exactly the state ps_init leaves (cmn_live_set would also give the initial
  // mean the weight of 500 frames, which adapts far slower than a fresh decoder).
  dither_ = Dither(pool_->dither());
  cmn_t* cmn = ps_get_feat(decoder_)->cmn_struct;
  std::copy(pooled_.initial_cmn.begin(), pooled_.initial_cmn.end(), cmn->cmn_mean);
  std::fill(cmn->sum, cmn->sum + cmn->veclen, mfcc_t{0});
  cmn->nframe = 0;
  return absl::OkStatus();
}

absl::Status PocketsphinxSession::AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) {
  LC_RETURN_IF_ERROR(CheckAsrAudio(pcm16k));
  const MediaTime position = this->position();
  // Timestamps computed from sample counts round to whole microseconds.
  constexpr MediaTime kRounding = MediaTime::Millis(1);
  if (pts + kRounding < position) {
    return absl::InvalidArgumentError(absl::StrCat("audio at ", pts.ToString(), " goes back before ",
                                                   position.ToString(), " (the session timeline only moves forward)"));
  }
  if (utterance_open_ && pts > position + kRounding) {
    return absl::InvalidArgumentError(absl::StrCat("audio at ", pts.ToString(), " leaves a gap after ",
                                                   position.ToString(),
                                                   " inside an utterance (call Finish() at the end of speech first)"));
  }
  if (pcm16k.empty()) return absl::OkStatus();
  if (!utterance_open_) {
    if (ps_start_utt(decoder_) < 0) return absl::InternalError("pocketsphinx could not start an utterance");
    utterance_open_ = true;
    utterance_start_ = std::max(pts, position);
    utterance_samples_ = 0;
    utterance_pcm_.clear();
    utterance_too_long_to_redecode_ = false;
    channel_checked_early_ = early_check_samples_ <= 0;
    const cmn_t* cmn = ps_get_feat(decoder_)->cmn_struct;
    decoded_with_cmn_.assign(cmn->cmn_mean, cmn->cmn_mean + cmn->veclen);
  }
  pcm_.resize(pcm16k.samples.size());
  for (size_t i = 0; i < pcm_.size(); ++i) pcm_[i] = dither_(pcm16k.samples[i]);
  // Kept for a re-decode at the end, up to a minute (2 MB); a longer utterance
  // keeps its streamed result.
  if (utterance_pcm_.size() + pcm_.size() <= kMaxRedecodeSamples) {
    utterance_pcm_.insert(utterance_pcm_.end(), pcm_.begin(), pcm_.end());
  } else {
    utterance_too_long_to_redecode_ = true;
    utterance_pcm_ = {};
  }
  if (ps_process_raw(decoder_, pcm_.data(), pcm_.size(), FALSE, FALSE) < 0) {
    return absl::InternalError("pocketsphinx failed to process audio");
  }
  utterance_samples_ += static_cast<int64_t>(pcm_.size());
  if (!channel_checked_early_ && utterance_samples_ >= early_check_samples_) {
    channel_checked_early_ = true;
    LC_RETURN_IF_ERROR(RestartIfTheChannelMoved());
  }
  return absl::OkStatus();
}

std::optional<AsrHypothesis> PocketsphinxSession::Partial() {
  if (!utterance_open_) return std::nullopt;
  const char* hyp = ps_get_hyp(decoder_, nullptr);
  if (hyp == nullptr || *hyp == '\0') return std::nullopt;
  AsrHypothesis partial;
  partial.final = false;
  partial.text = hyp;
  partial.start = utterance_start_;
  partial.end = position();
  partial.language = Language::kEn;
  return partial;
}

absl::StatusOr<AsrHypothesis> PocketsphinxSession::Finish() {
  AsrHypothesis result;
  result.final = true;
  result.language = Language::kEn;
  if (!utterance_open_) {
    result.start = result.end = position();
    last_utterance_pcm_.clear();
    return result;
  }
  result.start = utterance_start_;
  result.end = position();
  utterance_open_ = false;
  end_ = result.end;
  ps_decoder_t* ps = decoder_;
  if (ps_end_utt(ps) < 0) return absl::InternalError("pocketsphinx failed to finish the utterance");
  LC_RETURN_IF_ERROR(RedecodeIfTheChannelMoved());
  logmath_t* lmath = ps_get_logmath(ps);
  std::vector<std::string> texts;
  // Segment frames count from a stream-wide base that pocketsphinx 5prealpha
  // takes from its front end's frame counter; after a stream's first utterance
  // that base is 10-12 frames behind the frames decoded, so counting them
  // ourselves put JFK's words 100-130 ms early. The path's first segment (<s>)
  // starts at the utterance's first frame: its start is the base, for a
  // re-decode too.
  std::optional<int> first_frame;
  for (ps_seg_t* seg = ps_seg_iter(ps); seg != nullptr; seg = ps_seg_next(seg)) {
    int start_frame = 0, end_frame = 0;
    ps_seg_frames(seg, &start_frame, &end_frame);
    if (!first_frame) first_frame = start_frame;
    start_frame -= *first_frame;
    end_frame -= *first_frame;
    const char* word = ps_seg_word(seg);
    if (IsFiller(word)) continue;
    int32 acoustic = 0, language = 0, backoff = 0;
    const int32 log_posterior = ps_seg_prob(seg, &acoustic, &language, &backoff);
    AsrWord out;
    out.text = BaseWord(word);
    out.start = std::min(result.end, utterance_start_ + MediaTime::Millis(start_frame * 1000 / kFramesPerSecond));
    out.end = std::min(result.end, utterance_start_ + MediaTime::Millis((end_frame + 1) * 1000 / kFramesPerSecond));
    out.confidence = std::clamp(logmath_exp(lmath, log_posterior), 0.0, 1.0);
    texts.push_back(out.text);
    result.words.push_back(std::move(out));
  }
  result.text = absl::StrJoin(texts, " ");
  last_utterance_pcm_ = std::move(utterance_pcm_);
  utterance_pcm_.clear();
  return result;
}

// A second look at the last utterance when its words were uncertain: the
// audio decoded as one block with its own cepstral mean, once constrained to a
// grammar of the alternatives and once with a free loop of phones. Both
// alignments see the same features, so the difference of their acoustic
// scores per frame is a likelihood ratio: how much the best alternative costs
// over whatever the acoustic model would have preferred.
absl::StatusOr<AlternativesScore> PocketsphinxSession::ScoreAlternatives(
    const std::vector<std::string>& alternatives) {
  if (utterance_open_) return absl::FailedPreconditionError("an utterance is open: score alternatives after Finish()");
  if (last_utterance_pcm_.empty()) {
    return absl::FailedPreconditionError("no finished utterance (of at most a minute) to score alternatives against");
  }
  if (!pooled_.scorer) {
    LC_ASSIGN_OR_RETURN(pooled_.scorer, pool_->BuildScorer());
  }
  return ScoreOnDecoder(pooled_.scorer.get(), last_utterance_pcm_, alternatives, pool_->alternatives_beam());
}

// Streaming, pocketsphinx normalizes each utterance with the cepstral mean of
// the utterances before it (the model's initial estimate for a session's first),
// and updates that estimate at the utterance's end. When the estimate moved a
// lot, the utterance was decoded on the wrong channel: its first words are
// mostly lost (JFK's "and so my fellow americans" comes out "and are are"). Then
// the final comes from decoding the utterance again as one block, normalized
// with its own mean. This happens mostly for a session's first utterance (a
// shift of 40-60 there, 3-16 after it, in our recordings), so it costs one
// extra decode per session, not per utterance.
absl::Status PocketsphinxSession::RedecodeIfTheChannelMoved() {
  ps_decoder_t* ps = decoder_;
  cmn_t* cmn = ps_get_feat(ps)->cmn_struct;
  double shift = 0;
  for (int i = 0; i < cmn->veclen; ++i) {
    const double d = cmn->cmn_mean[i] - decoded_with_cmn_[i];
    shift += d * d;
  }
  if (std::sqrt(shift) <= redecode_channel_shift_ || utterance_pcm_.empty() || utterance_too_long_to_redecode_) {
    return absl::OkStatus();
  }
  // Block decoding computes the utterance's own mean into cmn_mean; the running
  // estimate for the utterances that follow is kept as streaming left it.
  const std::vector<mfcc_t> running(cmn->cmn_mean, cmn->cmn_mean + cmn->veclen);
  const bool ok = ps_start_utt(ps) >= 0 &&
                  ps_process_raw(ps, utterance_pcm_.data(), utterance_pcm_.size(), FALSE, TRUE) >= 0 &&
                  ps_end_utt(ps) >= 0;
  std::copy(running.begin(), running.end(), cmn->cmn_mean);
  if (!ok) return absl::InternalError("pocketsphinx failed to decode the utterance again");
  return absl::OkStatus();
}

// PocketsphinxOptions::early_channel_check: the utterance so far normalized
// with its own mean when the estimate it is streamed with is far from it.
absl::Status PocketsphinxSession::RestartIfTheChannelMoved() {
  ps_decoder_t* ps = decoder_;
  cmn_t* cmn = ps_get_feat(ps)->cmn_struct;
  if (cmn->nframe <= 0 || utterance_pcm_.empty() || utterance_too_long_to_redecode_) return absl::OkStatus();
  // cmn_live sums the frames before normalizing them: sum / nframe is the
  // mean of the frames seen since the stream's start (or the last window shift).
  std::vector<mfcc_t> own(static_cast<size_t>(cmn->veclen));
  double shift = 0;
  for (int i = 0; i < cmn->veclen; ++i) {
    own[static_cast<size_t>(i)] = cmn->sum[i] / static_cast<mfcc_t>(cmn->nframe);
    const double d = own[static_cast<size_t>(i)] - decoded_with_cmn_[static_cast<size_t>(i)];
    shift += d * d;
  }
  if (std::sqrt(shift) <= redecode_channel_shift_) return absl::OkStatus();
  // The frames are counted into the running estimate once: the sums are put
  // back after the restart's own end and after the audio is fed again.
  const std::vector<mfcc_t> sum(cmn->sum, cmn->sum + cmn->veclen);
  const int32 nframe = cmn->nframe;
  auto restore_sums = [&] {
    std::copy(sum.begin(), sum.end(), cmn->sum);
    cmn->nframe = nframe;
  };
  if (ps_end_utt(ps) < 0) return absl::InternalError("pocketsphinx failed to end the utterance to restart it");
  restore_sums();
  std::copy(own.begin(), own.end(), cmn->cmn_mean);
  decoded_with_cmn_ = own;
  if (ps_start_utt(ps) < 0 || ps_process_raw(ps, utterance_pcm_.data(), utterance_pcm_.size(), FALSE, FALSE) < 0) {
    return absl::InternalError("pocketsphinx failed to restart the utterance");
  }
  restore_sums();
  return absl::OkStatus();
}

}  // namespace lingcast::pocketsphinx
