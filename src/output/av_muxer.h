// AvMuxer: one libavformat output (an MP4 file today; HLS, FLV/RTMP and SRT
// push reuse it) fed with packets from VideoEncoder / AudioEncoder.
//
// The muxer does not own the encoders: streams are described by the encoders'
// codec contexts at Open, and each packet is referenced, not moved, so several
// muxers can take the same encoded packets. Packets are interleaved by DTS
// (av_interleaved_write_frame).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "audio/av_util.h"

namespace lingcast {

// What a muxer that outlives a connection needs to reopen: a live output
// reconnects on its own thread, so it keeps copies instead of reading the
// encoders while they run.
struct AvConnection {
  // Checked by libavformat while it blocks in connect/send: returning
  // non-zero aborts the call (AVERROR_EXIT).
  AVIOInterruptCB interrupt{nullptr, nullptr};
  // Protocol options for avio_open2 ("rw_timeout", "timeout", ...).
  std::map<std::string, std::string> io_options;
  // Set to the libav error code when Open fails in avio_open2 or the header
  // (lets a caller tell a refused connection from a rejected stream key).
  int* open_error = nullptr;
  // Called with the format context before anything is opened or written (an
  // HLS output routes the muxer's own file opens through its directory here).
  std::function<void(AVFormatContext*)> prepare;
};

class AvMuxer {
 public:
  struct StreamSource {
    const AVCodecContext* encoder;  // an opened encoder; only read during Open
  };


  // Opens `url` with libavformat's `format_name` muxer ("mp4", "flv", ...),
  // adds one stream per source in order (stream index = position), and writes
  // the header. `options` are muxer options such as {"movflags", "+faststart"}.
  // `display_name` is what error messages call the output (the user's path, not
  // a temp file's).
  static absl::StatusOr<std::unique_ptr<AvMuxer>> Open(const std::string& format_name,
                                                       const std::string& url,
                                                       const std::vector<StreamSource>& streams,
                                                       const std::map<std::string, std::string>& options,
                                                       const std::string& display_name,
                                                       const AvConnection& connection = {});
  // The same, with streams described by codec parameters (copied at Open).
  static absl::StatusOr<std::unique_ptr<AvMuxer>> Open(const std::string& format_name,
                                                       const std::string& url,
                                                       const std::vector<const AVCodecParameters*>& streams,
                                                       const std::vector<AVRational>& time_bases,
                                                       const std::map<std::string, std::string>& options,
                                                       const std::string& display_name,
                                                       const AvConnection& connection = {});
  ~AvMuxer();
  AvMuxer(const AvMuxer&) = delete;
  AvMuxer& operator=(const AvMuxer&) = delete;

  // Writes a reference to `packet`, whose timestamps are in `time_base`, to
  // stream `stream_index`. The caller keeps its packet.
  absl::Status WritePacket(int stream_index, const AVPacket& packet, AVRational time_base);
  // Writes the buffered packets and the trailer (the faststart rewrite for MP4),
  // then closes the output. Without Finish, the destructor just closes it.
  // `before_close`, when set, runs once everything is written and flushed, with
  // the connection still open (SRT's close hold).
  absl::Status Finish(const std::function<void()>& before_close = nullptr);

  // Sets a private option of the muxer after its header (e.g. the HLS muxer's
  // "hls_flags" before Finish), for muxers that read it as they go.
  absl::Status SetMuxerOption(const std::string& name, const std::string& value);
  // The stream's SPS/PPS from now on (a video switch), for muxers that put the
  // stream's extradata in band before keyframes themselves (MPEG-TS).
  absl::Status ReplaceExtradata(int stream_index, const uint8_t* data, int size);

  // Bytes written to the output so far (after Finish: its final size).
  int64_t bytes_written() const { return bytes_written_; }
  // The libav error code of the last failed WritePacket/Finish (0 if none).
  int last_error() const { return last_error_; }

 private:
  AvMuxer(AVFormatContext* context, std::string display_name);
  static absl::StatusOr<std::unique_ptr<AvMuxer>> OpenStreams(
      const std::string& format_name, const std::string& url, const std::vector<const AVCodecParameters*>& streams,
      const std::vector<AVRational>& time_bases, const std::vector<AVRational>& frame_rates,
      const std::map<std::string, std::string>& options, const std::string& display_name,
      const AvConnection& connection);
  void CloseOutput();

  AVFormatContext* context_;  // owned; freed by the destructor with its AVIOContext
  PacketPtr scratch_;
  std::string display_name_;
  int64_t bytes_written_ = 0;
  int last_error_ = 0;
  bool finished_ = false;
};

}  // namespace lingcast
