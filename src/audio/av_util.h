// Small RAII wrappers for libav* handles, and libav errors as absl::Status.
//
// Every libav object lingcast owns (decoders in src/audio, encoders and muxers in
// src/output) lives in one of these unique_ptrs, so an early return on error can
// never leak a codec or leave a file open.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/frame.h>
#include <libswresample/swresample.h>
}

namespace lingcast {

// A demuxer opened with avformat_open_input (closing also frees it).
struct InputFormatContextDeleter {
  void operator()(AVFormatContext* ctx) const { avformat_close_input(&ctx); }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* ctx) const { avcodec_free_context(&ctx); }
};
struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct SwrContextDeleter {
  void operator()(SwrContext* ctx) const { swr_free(&ctx); }
};
struct AudioFifoDeleter {
  void operator()(AVAudioFifo* fifo) const { av_audio_fifo_free(fifo); }
};
struct DictionaryDeleter {
  void operator()(AVDictionary* dict) const { av_dict_free(&dict); }
};

using InputFormatContextPtr = std::unique_ptr<AVFormatContext, InputFormatContextDeleter>;
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using SwrContextPtr = std::unique_ptr<SwrContext, SwrContextDeleter>;
using AudioFifoPtr = std::unique_ptr<AVAudioFifo, AudioFifoDeleter>;

// The text libav gives for an AVERROR code ("Invalid argument", "End of file").
std::string AvErrorText(int averror);

// An absl::Status for a failed libav call: `what` says what we were doing.
// ENOENT/EACCES/EROFS/ENOSPC become user-facing codes (the user can fix them);
// anything else is an internal error.
absl::Status AvError(int averror, const std::string& what);

// libav's log level is process-global state inside the C library. The app
// creates one of these for the life of a job to keep libx264's banner and
// statistics off a terminal that shows a progress bar; the previous level is
// restored on destruction. Create at most one at a time.
class ScopedLibavLogLevel {
 public:
  explicit ScopedLibavLogLevel(int level);  // AV_LOG_ERROR, AV_LOG_WARNING, ...
  ~ScopedLibavLogLevel();
  ScopedLibavLogLevel(const ScopedLibavLogLevel&) = delete;
  ScopedLibavLogLevel& operator=(const ScopedLibavLogLevel&) = delete;

 private:
  int previous_level_;
};

}  // namespace lingcast
