// The last stage of `lingcast render`:
//
//   (speech stage) --AudioBuffer--> EncodeStage <--frame-- (render stage)
//
// Takes audio and video in pts order and writes every output (MP4, HLS, RTMP,
// SRT). A file appears only when everything succeeded (OutputSet's outputs
// are atomic); a stage that goes away before its end leaves none.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/work_time.h"
#include "graph/stage.h"
#include "media/audio_buffer.h"
#include "media/text_segment.h"
#include "media/video_frame.h"
#include "output/output_set.h"

namespace lingcast {

class EncodeStage : public Stage {
 public:
  // `pace_clock`: when set (--realtime), frame i is written no earlier than
  // i / fps after the first, as a live source would deliver it. `cues_at_end`:
  // when set, called once the speech has ended and before the outputs finish,
  // to hand the subtitle cues to the outputs (SRT sidecars, HLS WebVTT).
  EncodeStage(std::unique_ptr<OutputSet> outputs, int fps, Clock* pace_clock = nullptr,
              std::function<std::vector<SubtitleCue>()> cues_at_end = nullptr);
  In<AudioBuffer> audio{this, "audio"};
  In<std::shared_ptr<VideoFrame>> video{this, "video"};
  absl::StatusOr<Flow> Process() override;
  // Set once Finish() succeeded: every output is complete.
  bool finished() const { return finished_; }
  // Thread-safe (OutputSet::stats): read by the progress loop while encoding.
  OutputSetStats stats() const { return outputs_->stats(); }
  int64_t frames_encoded() const { return frames_encoded_.load(); }  // thread-safe
  double encode_seconds() const { return encode_time_.seconds(); }   // computing, not waiting

 private:
  std::unique_ptr<OutputSet> outputs_;
  const int fps_;
  Clock* const pace_clock_;
  const std::function<std::vector<SubtitleCue>()> cues_at_end_;
  std::optional<MediaTime> pace_start_;
  bool audio_ended_ = false;
  bool video_ended_ = false;
  MediaTime audio_end_;  // end of the last audio packet taken
  MediaTime video_end_;  // end of the last video frame taken
  bool finished_ = false;
  std::atomic<int64_t> frames_encoded_{0};
  WorkTime encode_time_;
};

}  // namespace lingcast
