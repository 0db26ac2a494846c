// VideoEncoder: RGBA frames -> H.264 packets (libx264 through libavcodec).
//
// The encoder knows nothing of files or networks: it hands each packet to a
// sink, so one encode can feed an MP4 file, an HLS directory and an RTMP push
// at once. Packet timestamps are in time_base() = 1/fps, taken from the frame
// index, so a frame's pts is exactly index / fps.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/video_frame.h"
#include "audio/av_util.h"
#include "output/encoder_options.h"
#include "output/packet_sink.h"
#include "output/rgba_to_yuv.h"

namespace lingcast {

class VideoEncoder {
 public:
  // `global_header`: SPS/PPS go in the codec extradata rather than in-band,
  // as MP4 and FLV require (MPEG-TS muxers put them back in-band themselves).
  static absl::StatusOr<std::unique_ptr<VideoEncoder>> Create(const VideoEncoderOptions& options,
                                                              bool global_header = true);

  // Converts `frame` (RGBA8 premultiplied; alpha is ignored, so non-opaque
  // pixels come out as if composited over black) to yuv420p BT.709 limited
  // range and encodes it with pts = frame_index. Indices must increase. A frame
  // that carries its yuv420p picture (frame.yuv420, made on the GPU) is not
  // converted: its planes are copied.
  absl::Status Encode(const VideoFrame& frame, int64_t frame_index, PacketSink sink);
  // Makes the next encoded frame a keyframe (IDR), for a live output that
  // reconnected and must start its new connection decodable.
  void RequestKeyframe() { keyframe_requested_ = true; }
  // Retargets a bitrate-mode encode (options.bitrate > 0) from the next frame
  // on: average and VBV max rate `bits_per_second`, buffer 2 s worth, as at
  // open. libavcodec's x264 wrapper sees the change and reconfigures x264
  // between frames, with no new keyframe. FailedPrecondition for a CRF encode,
  // InvalidArgument below 1 kbit/s (x264 counts in kbit/s).
  absl::Status SetBitrate(int64_t bits_per_second);
  int64_t bitrate() const { return codec_->bit_rate; }
  // Drains the frames x264 still holds (lookahead, B-frames). Call once, last.
  absl::Status Flush(PacketSink sink);

  const AVCodecContext& codec_context() const { return *codec_; }
  AVRational time_base() const { return codec_->time_base; }
  int64_t frames_encoded() const { return frames_encoded_; }
  // Wall time spent in the RGBA -> YUV conversion (part of the caller's encode time).
  double convert_seconds() const { return convert_seconds_; }

 private:
  VideoEncoder(const VideoEncoderOptions& options, CodecContextPtr codec, FramePtr yuv, PacketPtr packet);
  absl::Status Drain(PacketSink sink);

  const VideoEncoderOptions options_;
  CodecContextPtr codec_;
  FramePtr yuv_;
  PacketPtr packet_;
  int64_t last_frame_index_ = -1;
  int64_t frames_encoded_ = 0;
  double convert_seconds_ = 0;
  // The RGBA -> YUV conversion in bands (ConversionThreadsFor: one band up to
  // 1080p); its threads live as long as the encoder, sized for its frames.
  RowBandConverter converter_;
  bool flushed_ = false;
  bool keyframe_requested_ = false;
};

}  // namespace lingcast
