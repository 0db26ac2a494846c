#include "output/mp4_output.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/atomic_file.h"
#include "core/status.h"
#include "output/av_muxer.h"
#include "output/srt_writer.h"

namespace lingcast {
namespace {

struct CodecParametersDeleter {
  void operator()(AVCodecParameters* parameters) const { avcodec_parameters_free(&parameters); }
};
using CodecParametersPtr = std::unique_ptr<AVCodecParameters, CodecParametersDeleter>;

// One file being written: its temp file, muxer and place on the timeline.
struct Segment {
  ~Segment() {
    // Close the file before deleting it; the member order would do it the other way round.
    muxer.reset();
    if (temp) temp->Discard();
  }
  std::string path;
  std::optional<TempFile> temp;
  std::unique_ptr<AvMuxer> muxer;
  MediaTime origin;                   // subtracted from its packets' times: the file starts at 0
  MediaTime end = MediaTime::Max();   // the cut that closed it (exclusive)
  int64_t video_packets = 0;
};

class Mp4Output final : public OutputSink {
 public:
  Mp4Output(const OutputSpec& spec, MediaTime segment_length)
      : segment_length_(segment_length), shifted_(av_packet_alloc()) {
    stats_.name = spec.DisplayName();
    stats_.kind = spec.kind;
  }
  ~Mp4Output() override {
    closing_.reset();
    current_.reset();
  }

  absl::Status Open(const std::string& path, const AVCodecContext& video, const AVCodecContext& audio) {
    path_ = path;
    if (!shifted_) return absl::ResourceExhaustedError("out of memory allocating a packet");
    LC_RETURN_IF_ERROR(CheckOutputPath(path));
    // Copies: a rotated file opens long after the encoders were described.
    for (const AVCodecContext* context : {&video, &audio}) {
      parameters_.emplace_back(avcodec_parameters_alloc());
      if (!parameters_.back()) return absl::ResourceExhaustedError("out of memory copying codec parameters");
      const int err = avcodec_parameters_from_context(parameters_.back().get(), context);
      if (err < 0) return AvError(err, absl::StrCat("output ", path, ": copying codec parameters"));
      time_bases_.push_back(context->time_base);
    }
    next_boundary_ = rotating() ? segment_length_ : MediaTime::Max();
    LC_ASSIGN_OR_RETURN(current_, OpenSegment(MediaTime::Zero()));
    stats_.state = OutputState::kConnected;
    return absl::OkStatus();
  }

  void Write(const AVPacket& packet) override {
    if (failed() || current_ == nullptr) return;
    if (absl::Status status = Route(packet); !status.ok()) return Fail(status);
    if (first_dts_ < MediaTime::Zero()) first_dts_ = MediaTime::Micros(packet.dts);
    UpdateStats();
  }

  void AddSubtitle(const SubtitleCue& cue) override { cues_.push_back(cue); }

  absl::Status Finish() override {
    if (failed()) return error_;
    if (current_ == nullptr) return absl::InternalError(absl::StrCat("output ", path_, ": finished twice"));
    absl::Status status = absl::OkStatus();
    if (closing_ != nullptr) status = FinishSegment(std::move(closing_));
    while (status.ok() && !held_audio_.empty()) {
      status = WriteAudio(*held_audio_.front());
      held_audio_.pop_front();
    }
    if (status.ok()) status = FinishSegment(std::move(current_));
    if (!status.ok()) {
      Fail(status);
      return error_;
    }
    stats_.bytes = committed_bytes_;
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
    // The files already committed stay; the ones being written go.
    closing_.reset();
    current_.reset();
    held_audio_.clear();
    last_audio_packet_.reset();
    closing_warmup_.reset();
  }

 private:
  bool rotating() const { return segment_length_ > MediaTime::Zero(); }

  absl::StatusOr<std::unique_ptr<Segment>> OpenSegment(MediaTime origin) {
    auto segment = std::make_unique<Segment>();
    segment->path = rotating() ? Mp4SegmentPath(path_, next_index_++) : path_;
    segment->origin = origin;
    LC_ASSIGN_OR_RETURN(TempFile temp, TempFile::Create(segment->path));
    segment->temp.emplace(std::move(temp));
    // The temp name does not end in .mp4, so name the muxer explicitly.
    LC_ASSIGN_OR_RETURN(segment->muxer,
                        AvMuxer::Open("mp4", segment->temp->open_path(), {parameters_[0].get(), parameters_[1].get()},
                                      time_bases_, {{"movflags", "+faststart"}}, segment->path));
    return segment;
  }

  static MediaTime Start(const AVPacket& packet) { return MediaTime::Micros(packet.pts); }
  static MediaTime End(const AVPacket& packet) { return MediaTime::Micros(packet.pts + packet.duration); }

  absl::Status Route(const AVPacket& packet) {
    if (packet.stream_index == kVideoStreamIndex) {
      const MediaTime pts = Start(packet);
      if ((packet.flags & AV_PKT_FLAG_KEY) && pts >= next_boundary_ && current_->video_packets > 0) {
        LC_RETURN_IF_ERROR(Cut(pts));
      }
      LC_RETURN_IF_ERROR(WriteTo(*current_, packet));
      ++current_->video_packets;
      ++stats_.video_packets;
      last_video_ = MediaTime::Micros(packet.dts);
      // Held audio that ends by this frame stays in this file: a cut, if one
      // comes, is at a later keyframe.
      while (!held_audio_.empty() && End(*held_audio_.front()) <= pts) {
        LC_RETURN_IF_ERROR(WriteAudio(*held_audio_.front()));
        held_audio_.pop_front();
      }
      return absl::OkStatus();
    }
    ++stats_.audio_packets;
    last_audio_ = MediaTime::Micros(packet.dts);
    if (closing_ != nullptr) {
      // Audio behind the video: the file before the cut still takes what starts before it.
      const MediaTime cut = closing_->end;
      if (End(packet) <= cut) {
        LC_RETURN_IF_ERROR(WriteTo(*closing_, packet));
        return Remember(packet, closing_warmup_);
      }
      if (Start(packet) < cut) LC_RETURN_IF_ERROR(WriteTo(*closing_, packet, cut));
      // The new file's audio starts with the packet before the cut (see Cut).
      if (closing_warmup_) LC_RETURN_IF_ERROR(WriteAudio(*closing_warmup_));
      closing_warmup_.reset();
      LC_RETURN_IF_ERROR(FinishSegment(std::move(closing_)));
    }
    if (End(packet) > next_boundary_) {
      // Audio ahead of the video past the boundary: which file it goes to
      // depends on where the next keyframe falls.
      PacketPtr copy(av_packet_clone(&packet));
      if (!copy) return absl::ResourceExhaustedError("out of memory holding an audio packet");
      held_audio_.push_back(std::move(copy));
      return absl::OkStatus();
    }
    return WriteAudio(packet);
  }

  // Audio into the current file; kept as the next file's first packet should a cut come next.
  absl::Status WriteAudio(const AVPacket& packet) {
    LC_RETURN_IF_ERROR(WriteTo(*current_, packet));
    return Remember(packet, last_audio_packet_);
  }

  absl::Status Remember(const AVPacket& packet, PacketPtr& slot) {
    if (!rotating()) return absl::OkStatus();
    slot.reset(av_packet_clone(&packet));
    if (!slot) return absl::ResourceExhaustedError("out of memory keeping an audio packet");
    return absl::OkStatus();
  }

  // The keyframe at `at` starts a new file. An AAC frame rarely ends at the
  // cut: the one across it ends the old file, its duration cut to end at `at`,
  // and also begins the new one, after the frame before it (which a decoder
  // needs to decode it whole); both lie before 0 there, so the new file's edit
  // list skips them up to the cut, as it skips AAC's priming at the start of a
  // show. Each file thus plays its audio exactly over its own time range. The
  // old file closes once its audio has reached `at`.
  absl::Status Cut(MediaTime at) {
    if (closing_ != nullptr) LC_RETURN_IF_ERROR(FinishSegment(std::move(closing_)));
    LC_ASSIGN_OR_RETURN(std::unique_ptr<Segment> next, OpenSegment(at));
    std::unique_ptr<Segment> previous = std::move(current_);
    previous->end = at;
    current_ = std::move(next);
    while (next_boundary_ <= at) next_boundary_ += segment_length_;
    PacketPtr warmup = std::move(last_audio_packet_);
    bool audio_past_cut = false;
    for (PacketPtr& held : held_audio_) {
      if (Start(*held) < at) LC_RETURN_IF_ERROR(WriteTo(*previous, *held, at));
      if (End(*held) <= at) {
        warmup = std::move(held);
        continue;
      }
      if (warmup) LC_RETURN_IF_ERROR(WriteAudio(*warmup));
      warmup.reset();
      LC_RETURN_IF_ERROR(WriteAudio(*held));
      audio_past_cut = true;
    }
    held_audio_.clear();
    if (audio_past_cut) return FinishSegment(std::move(previous));
    closing_ = std::move(previous);
    closing_warmup_ = std::move(warmup);
    return absl::OkStatus();
  }

  // `packet` into `segment` on its timeline, its duration cut to end by `clip_end`.
  absl::Status WriteTo(Segment& segment, const AVPacket& packet, MediaTime clip_end = MediaTime::Max()) {
    if (segment.origin == MediaTime::Zero() && End(packet) <= clip_end) {
      return segment.muxer->WritePacket(packet.stream_index, packet, kPacketTimeBase);
    }
    const int err = av_packet_ref(shifted_.get(), &packet);
    if (err < 0) return AvError(err, "referencing a packet");
    if (End(packet) > clip_end) shifted_->duration = (clip_end - Start(packet)).micros();
    shifted_->pts -= segment.origin.micros();
    shifted_->dts -= segment.origin.micros();
    absl::Status status = segment.muxer->WritePacket(packet.stream_index, *shifted_, kPacketTimeBase);
    av_packet_unref(shifted_.get());
    return status;
  }

  // Writes the trailer and the sidecar of its cues, then renames it into place.
  absl::Status FinishSegment(std::unique_ptr<Segment> segment) {
    LC_RETURN_IF_ERROR(segment->muxer->Finish());
    committed_bytes_ += segment->muxer->bytes_written();
    segment->muxer.reset();
    std::vector<SubtitleCue> cues;
    for (const SubtitleCue& cue : cues_) {
      if (cue.end <= segment->origin || cue.start >= segment->end) continue;
      cues.push_back(CueInSegment(cue, *segment));
    }
    if (!cues.empty()) LC_RETURN_IF_ERROR(WriteSrtFile(SrtSidecarPath(segment->path), cues));
    LC_RETURN_IF_ERROR(segment->temp->Commit());
    // Cues that ended in this file are done; one crossing the cut goes on in the next.
    const MediaTime end = segment->end;
    cues_.erase(std::remove_if(cues_.begin(), cues_.end(), [end](const SubtitleCue& c) { return c.end <= end; }),
                cues_.end());
    return absl::OkStatus();
  }

  // `cue` clipped to the segment, on the segment's own timeline.
  static SubtitleCue CueInSegment(const SubtitleCue& cue, const Segment& segment) {
    auto clip = [&segment](MediaTime t) { return std::clamp(t, segment.origin, segment.end) - segment.origin; };
    SubtitleCue clipped = cue;
    clipped.start = clip(cue.start);
    clipped.end = clip(cue.end);
    clipped.words.clear();
    for (const CueWord& word : cue.words) {
      if (word.end <= segment.origin || word.start >= segment.end) continue;
      CueWord shifted = word;
      shifted.start = clip(word.start);
      shifted.end = clip(word.end);
      clipped.words.push_back(shifted);
    }
    return clipped;
  }

  void UpdateStats() {
    stats_.last_dts = std::max(last_video_, last_audio_);
    stats_.av_offset = last_audio_ - last_video_;
    stats_.bytes = committed_bytes_ + (current_ ? current_->muxer->bytes_written() : 0) +
                   (closing_ ? closing_->muxer->bytes_written() : 0);
    const double seconds = (stats_.last_dts - first_dts_).seconds();
    if (seconds > 0) stats_.bitrate = static_cast<double>(stats_.bytes) * 8 / seconds;
  }

  const MediaTime segment_length_;
  std::string path_;
  std::vector<CodecParametersPtr> parameters_;  // video, audio
  std::vector<AVRational> time_bases_;
  std::unique_ptr<Segment> current_;
  // The file before the last cut while audio from before the cut may still come.
  std::unique_ptr<Segment> closing_;
  // Audio ending after the next boundary, before the keyframe that settles its file.
  std::deque<PacketPtr> held_audio_;
  // The last audio packet of the current file and of the closing one (rotation only).
  PacketPtr last_audio_packet_;
  PacketPtr closing_warmup_;
  PacketPtr shifted_;
  MediaTime next_boundary_;
  int next_index_ = 1;
  int64_t committed_bytes_ = 0;
  std::vector<SubtitleCue> cues_;  // not yet in a finished file's sidecar (rotation), or all of them
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

std::string Mp4SegmentPath(const std::string& mp4_path, int index) {
  const size_t dot = mp4_path.find_last_of('.');
  const size_t slash = mp4_path.find_last_of('/');
  const std::string number = absl::StrFormat("-%04d", index);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return mp4_path + number;
  return absl::StrCat(mp4_path.substr(0, dot), number, mp4_path.substr(dot));
}

std::unique_ptr<OutputSink> OpenMp4Output(const OutputSpec& spec, const AVCodecContext& video,
                                          const AVCodecContext& audio, MediaTime segment_length) {
  auto output = std::make_unique<Mp4Output>(spec, segment_length);
  absl::Status status = output->Open(spec.target, video, audio);
  if (!status.ok()) output->Fail(status);
  return output;
}

}  // namespace lingcast
