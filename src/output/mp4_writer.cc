#include "output/mp4_writer.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {
namespace {

constexpr int kVideoStream = 0;
constexpr int kAudioStream = 1;

// Accumulates the wall time of a scope into a counter.
class ScopedTimer {
 public:
  explicit ScopedTimer(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Mp4Writer>> Mp4Writer::Open(const std::string& path,
                                                           const VideoEncoderOptions& video,
                                                           const AudioEncoderOptions& audio) {
  LC_RETURN_IF_ERROR(ValidateVideoOptions(video));
  LC_RETURN_IF_ERROR(ValidateAudioOptions(audio));
  LC_RETURN_IF_ERROR(CheckOutputPath(path));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<VideoEncoder> video_encoder, VideoEncoder::Create(video));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<AudioEncoder> audio_encoder, AudioEncoder::Create(audio));
  LC_ASSIGN_OR_RETURN(TempFile temp, TempFile::Create(path));
  // The temp name does not end in .mp4, so name the muxer explicitly.
  LC_ASSIGN_OR_RETURN(std::unique_ptr<AvMuxer> muxer,
                      AvMuxer::Open("mp4", temp.open_path(),
                                    {{&video_encoder->codec_context()}, {&audio_encoder->codec_context()}},
                                    {{"movflags", "+faststart"}}, path));
  std::unique_ptr<Mp4Writer> writer(new Mp4Writer(path, audio, std::move(video_encoder), std::move(audio_encoder),
                                                  std::move(temp), std::move(muxer)));
  writer->stats_.fps_num = video.fps_num;
  writer->stats_.fps_den = video.fps_den;
  return writer;
}

Mp4Writer::Mp4Writer(std::string path, const AudioEncoderOptions& audio,
                     std::unique_ptr<VideoEncoder> video_encoder, std::unique_ptr<AudioEncoder> audio_encoder,
                     TempFile temp, std::unique_ptr<AvMuxer> muxer)
    : path_(std::move(path)),
      audio_options_(audio),
      video_encoder_(std::move(video_encoder)),
      audio_encoder_(std::move(audio_encoder)),
      temp_(std::move(temp)),
      muxer_(std::move(muxer)) {
  stats_.audio_output_rate = audio.output_sample_rate;
}

Mp4Writer::~Mp4Writer() {
  // Close the file before deleting it; the member order would do it the other way round.
  muxer_.reset();
  temp_.Discard();
}

absl::Status Mp4Writer::CheckUsable() const {
  if (!error_.ok()) return error_;
  if (finished_) return absl::InternalError(absl::StrCat("output ", path_, ": written to after Finish()"));
  return absl::OkStatus();
}

absl::Status Mp4Writer::Fail(absl::Status status) {
  if (!status.ok() && error_.ok()) error_ = status;
  return status;
}

absl::Status Mp4Writer::MuxVideo(AVPacket& packet) {
  ScopedTimer timer(stats_.mux_seconds);
  ++stats_.video_packets;
  return muxer_->WritePacket(kVideoStream, packet, video_encoder_->time_base());
}

absl::Status Mp4Writer::MuxAudio(AVPacket& packet) {
  ScopedTimer timer(stats_.mux_seconds);
  ++stats_.audio_packets;
  return muxer_->WritePacket(kAudioStream, packet, audio_encoder_->time_base());
}

absl::Status Mp4Writer::WriteVideo(const VideoFrame& frame, int64_t frame_index) {
  LC_RETURN_IF_ERROR(CheckUsable());
  const double mux_before = stats_.mux_seconds;
  double elapsed = 0;
  absl::Status status;
  {
    ScopedTimer timer(elapsed);
    status = video_encoder_->Encode(frame, frame_index, [this](AVPacket& p) { return MuxVideo(p); });
  }
  stats_.video_encode_seconds += elapsed - (stats_.mux_seconds - mux_before);
  stats_.video_convert_seconds = video_encoder_->convert_seconds();
  stats_.video_frames = video_encoder_->frames_encoded();
  stats_.bytes_written = muxer_->bytes_written();
  return Fail(status);
}

absl::Status Mp4Writer::WriteAudio(const AudioBuffer& pcm) {
  LC_RETURN_IF_ERROR(CheckUsable());
  const double mux_before = stats_.mux_seconds;
  double elapsed = 0;
  absl::Status status;
  {
    ScopedTimer timer(elapsed);
    status = audio_encoder_->Encode(pcm, [this](AVPacket& p) { return MuxAudio(p); });
  }
  stats_.audio_encode_seconds += elapsed - (stats_.mux_seconds - mux_before);
  stats_.audio_input_samples = audio_encoder_->input_samples();
  stats_.audio_output_samples = audio_encoder_->output_samples();
  stats_.bytes_written = muxer_->bytes_written();
  return Fail(status);
}

absl::Status Mp4Writer::Finish() {
  LC_RETURN_IF_ERROR(CheckUsable());
  if (stats_.video_frames == 0 || audio_encoder_->input_samples() == 0) {
    return Fail(absl::FailedPreconditionError(absl::StrCat(
        "output ", path_, ": nothing to write (", stats_.video_frames, " video frames, ",
        audio_encoder_->input_samples(), " audio samples); an MP4 needs both")));
  }
  double mux_before = stats_.mux_seconds;
  double elapsed = 0;
  {
    ScopedTimer timer(elapsed);
    LC_RETURN_IF_ERROR(Fail(video_encoder_->Flush([this](AVPacket& p) { return MuxVideo(p); })));
  }
  stats_.video_encode_seconds += elapsed - (stats_.mux_seconds - mux_before);

  mux_before = stats_.mux_seconds;
  elapsed = 0;
  {
    ScopedTimer timer(elapsed);
    LC_RETURN_IF_ERROR(Fail(audio_encoder_->Flush([this](AVPacket& p) { return MuxAudio(p); })));
  }
  stats_.audio_encode_seconds += elapsed - (stats_.mux_seconds - mux_before);
  stats_.audio_output_samples = audio_encoder_->output_samples();

  {
    ScopedTimer timer(stats_.mux_seconds);
    LC_RETURN_IF_ERROR(Fail(muxer_->Finish()));
    stats_.bytes_written = muxer_->bytes_written();
    muxer_.reset();
    LC_RETURN_IF_ERROR(Fail(temp_.Commit()));
  }
  finished_ = true;
  return absl::OkStatus();
}

}  // namespace lingcast
