#include "output/mp4_output.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/atomic_file.h"
#include "core/status.h"
#include "output/av_muxer.h"
#include "output/srt_writer.h"

namespace lingcast {
namespace {

class Mp4Output final : public OutputSink {
 public:
  explicit Mp4Output(const OutputSpec& spec) { stats_.name = spec.DisplayName(); stats_.kind = spec.kind; }
  ~Mp4Output() override {
    // Close the file before deleting it; the member order would do it the other way round.
    muxer_.reset();
    if (temp_) temp_->Discard();
  }

  absl::Status Open(const std::string& path, const AVCodecContext& video, const AVCodecContext& audio) {
    path_ = path;
    LC_RETURN_IF_ERROR(CheckOutputPath(path));
    LC_ASSIGN_OR_RETURN(TempFile temp, TempFile::Create(path));
    temp_.emplace(std::move(temp));
    // The temp name does not end in .mp4, so name the muxer explicitly.
    LC_ASSIGN_OR_RETURN(muxer_, AvMuxer::Open("mp4", temp_->path(), {{&video}, {&audio}},
                                              {{"movflags", "+faststart"}}, path));
    stats_.state = OutputState::kConnected;
    return absl::OkStatus();
  }

  void Write(const AVPacket& packet) override {
    if (failed() || muxer_ == nullptr) return;
    absl::Status status = muxer_->WritePacket(packet.stream_index, packet, kPacketTimeBase);
    if (!status.ok()) return Fail(status);
    if (packet.stream_index == kVideoStreamIndex) {
      ++stats_.video_packets;
      last_video_ = MediaTime::Micros(packet.dts);
    } else {
      ++stats_.audio_packets;
      last_audio_ = MediaTime::Micros(packet.dts);
    }
    if (first_dts_ < MediaTime::Zero()) first_dts_ = MediaTime::Micros(packet.dts);
    stats_.last_dts = std::max(last_video_, last_audio_);
    stats_.av_offset = last_audio_ - last_video_;
    stats_.bytes = muxer_->bytes_written();
    const double seconds = (stats_.last_dts - first_dts_).seconds();
    if (seconds > 0) stats_.bitrate = static_cast<double>(stats_.bytes) * 8 / seconds;
  }

  void AddSubtitle(const SubtitleCue& cue) override { cues_.push_back(cue); }

  absl::Status Finish() override {
    if (failed()) return error_;
    if (muxer_ == nullptr) return absl::InternalError(absl::StrCat("output ", path_, ": finished twice"));
    absl::Status status = muxer_->Finish();
    if (!status.ok()) {
      Fail(status);
      return error_;
    }
    stats_.bytes = muxer_->bytes_written();
    muxer_.reset();
    if (!cues_.empty()) {
      status = WriteSrtFile(SrtSidecarPath(path_), cues_);
      if (!status.ok()) {
        Fail(status);
        return error_;
      }
    }
    status = temp_->Commit();
    if (!status.ok()) {
      Fail(status);
      return error_;
    }
    stats_.state = OutputState::kFinished;
    return absl::OkStatus();
  }

  OutputSinkStats stats() const override { return stats_; }
  bool failed() const override { return stats_.state == OutputState::kFailed; }
  // One MP4 track has one size: the file keeps the picture it was opened with.
  bool follows_video_switch() const override { return false; }

  void Fail(const absl::Status& status) {
    if (failed()) return;
    error_ = status;
    stats_.state = OutputState::kFailed;
    stats_.error = std::string(status.message());
    stats_.error_code = status.code();
    muxer_.reset();
    if (temp_) temp_->Discard();
  }

 private:
  std::string path_;
  std::optional<TempFile> temp_;
  std::unique_ptr<AvMuxer> muxer_;
  std::vector<SubtitleCue> cues_;
  OutputSinkStats stats_;
  absl::Status error_;
  MediaTime first_dts_ = MediaTime::Micros(-1);
  MediaTime last_video_, last_audio_;
};

}  // namespace

std::string SrtSidecarPath(const std::string& mp4_path) {
  const size_t dot = mp4_path.find_last_of('.');
  const size_t slash = mp4_path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return mp4_path + ".srt";
  return mp4_path.substr(0, dot) + ".srt";
}

std::unique_ptr<OutputSink> OpenMp4Output(const OutputSpec& spec, const AVCodecContext& video,
                                          const AVCodecContext& audio) {
  auto output = std::make_unique<Mp4Output>(spec);
  absl::Status status = output->Open(spec.target, video, audio);
  if (!status.ok()) output->Fail(status);
  return output;
}

}  // namespace lingcast
