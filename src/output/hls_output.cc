#include "output/hls_output.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status.h"
#include "output/av_muxer.h"
#include "output/hls_directory.h"

namespace lingcast {
namespace {

constexpr char kMaster[] = "index.m3u8";
constexpr char kVideoPlaylist[] = "video.m3u8";
constexpr char kSubtitlePlaylist[] = "subtitles.m3u8";
constexpr int64_t kMpegTsWrap = int64_t{1} << 33;

std::string OneLine(const std::string& text) {
  std::string line;
  for (char c : text) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  return line;
}

// A stream being continued names its files in its playlists; they are
// deleted as the window rolls, so each must be a plain name in the directory.
absl::Status CheckPlaylistNames(const HlsDirectory& dir, const std::string& name, const std::string& playlist) {
  for (absl::string_view line : absl::StrSplit(playlist, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty() || line.front() == '#') continue;
    if (!HlsDirectory::IsPlainName(std::string(line))) {
      return absl::FailedPreconditionError(absl::StrCat("cannot continue the stream in ", dir.DisplayPath(name),
                                                        ": it lists \"", line, "\", which is not a file of ",
                                                        dir.path()));
    }
  }
  return absl::OkStatus();
}

// One subtitle segment as listed in the playlist.
struct VttSegment {
  int64_t index = 0;
  double seconds = 0;
  bool discontinuity = false;  // an EXT-X-DISCONTINUITY before it
  std::string uri;
};

class HlsOutput final : public OutputSink {
 public:
  HlsOutput(const OutputSpec& spec, const HlsOptions& options) : options_(options) {
    stats_.name = spec.DisplayName();
    stats_.kind = spec.kind;
    dir_ = spec.target;
  }

  absl::Status Open(const AVCodecContext& video, const AVCodecContext& audio) {
    LC_RETURN_IF_ERROR(CheckHlsSegmentSeconds(options_.segment_seconds));
    segment_ = MediaTime::Seconds(options_.segment_seconds);
    LC_ASSIGN_OR_RETURN(directory_, HlsDirectory::Open(dir_));
    for (const char* name : {kMaster, kSubtitlePlaylist}) {
      LC_RETURN_IF_ERROR(directory_->RegularFileExists(name).status());  // a link there is refused now
    }
    LC_ASSIGN_OR_RETURN(const bool resume, directory_->RegularFileExists(kVideoPlaylist));
    if (resume) {
      LC_ASSIGN_OR_RETURN(const std::string old_playlist, directory_->Read(kVideoPlaylist));
      LC_RETURN_IF_ERROR(CheckPlaylistNames(*directory_, kVideoPlaylist, old_playlist));
      LC_RETURN_IF_ERROR(LoadSubtitleSegments());
    }

    LC_RETURN_IF_ERROR(OpenMuxer(video, audio, resume));
    stats_.state = OutputState::kConnected;
    return absl::OkStatus();
  }

  // A new picture (OutputSet::SwitchVideo): the segment in progress ends here,
  // and the muxer starts again with the new SPS/PPS, continuing the playlist
  // after an EXT-X-DISCONTINUITY (as a resumed stream does), so the next
  // segment starts with the switch's keyframe.
  void SwitchVideo(const AVCodecContext& video, const AVCodecContext& audio) override {
    if (failed() || !muxer_) return;
    // Not the end of the stream: no EXT-X-ENDLIST for a player to stop at.
    absl::Status status = muxer_->SetMuxerOption("hls_flags", absl::StrCat(muxer_flags_, "+omit_endlist"));
    if (status.ok()) status = muxer_->Finish();
    muxer_.reset();
    if (!directory_->refusal().ok()) status = directory_->refusal();
    if (status.ok()) status = OpenMuxer(video, audio, /*append=*/true, /*restarted=*/true);
    if (!status.ok()) Fail(status);
  }

  absl::Status OpenMuxer(const AVCodecContext& video, const AVCodecContext& audio, bool append,
                         bool restarted = false) {
    // The muxer gets /proc/self/fd paths and our io_open (hls_directory.h):
    // its files, temporary files, renames and deletions stay in the directory
    // opened above and follow no link.
    muxer_flags_ = absl::StrCat("independent_segments+temp_file", options_.window_segments > 0 ? "+delete_segments" : "");
    std::map<std::string, std::string> muxer_options = {
        {"hls_time", absl::StrFormat("%g", options_.segment_seconds)},
        {"hls_list_size", std::to_string(options_.window_segments)},
        {"hls_segment_filename", directory_->MuxerPath("video_%05d.ts")},
        {"hls_flags", absl::StrCat(muxer_flags_, append ? "+append_list" : "")},
    };
    if (options_.window_segments == 0) muxer_options["hls_playlist_type"] = "vod";
    // A muxer started again mid-stream (a video switch) restarts the MPEG-TS
    // continuity counters: its first packets say so (the discontinuity
    // indicator), so a demuxer does not take them for lost packets.
    if (restarted) muxer_options["hls_segment_options"] = "mpegts_flags=+initial_discontinuity";
    // append_list continues the old playlist's numbering and marks the discontinuity itself.
    AvConnection files;
    files.prepare = [directory = directory_.get()](AVFormatContext* context) { directory->Install(context); };
    absl::StatusOr<std::unique_ptr<AvMuxer>> muxer =
        AvMuxer::Open("hls", directory_->MuxerPath(kVideoPlaylist), {{&video}, {&audio}}, muxer_options,
                      absl::StrCat("hls:", dir_), files);
    LC_RETURN_IF_ERROR(directory_->refusal());
    if (!muxer.ok()) return muxer.status();
    muxer_ = *std::move(muxer);
    codecs_ = absl::StrCat(AvcCodecString(video), ",mp4a.40.2");
    width_ = video.width;
    height_ = video.height;
    bandwidth_ = std::max<int64_t>(video.bit_rate + audio.bit_rate, 500'000);
    return directory_->WriteAtomically(kMaster, MasterPlaylist());
  }

  void Write(const AVPacket& packet) override {
    if (failed() || !muxer_) return;
    const int64_t shift = options_.start_offset.micros();
    AVPacket* shifted = av_packet_clone(&packet);
    if (shifted == nullptr) return Fail(absl::ResourceExhaustedError("out of memory copying a packet"));
    PacketPtr owned(shifted);
    owned->pts += shift;
    owned->dts += shift;
    absl::Status status = muxer_->WritePacket(owned->stream_index, *owned, kPacketTimeBase);
    // A file the muxer was refused (a planted link) is the cause of whatever it reported.
    if (!directory_->refusal().ok()) return Fail(directory_->refusal());
    if (!status.ok()) return Fail(status);
    const MediaTime media = MediaTime::Micros(packet.dts);
    if (packet.stream_index == kVideoStreamIndex) {
      ++stats_.video_packets;
    } else {
      ++stats_.audio_packets;
      media_end_ = std::max(media_end_, media);
    }
    stats_.last_dts = MediaTime::Micros(owned->dts);
    // Sizing the directory lists every file: once a second of media is plenty.
    if (media >= last_sized_ + MediaTime::Seconds(1)) {
      last_sized_ = media;
      stats_.bytes = DirectoryBytes();
      if (media > MediaTime::Zero()) stats_.bitrate = static_cast<double>(stats_.bytes) * 8 / media.seconds();
    }
    // A rolling (live) playlist gets each subtitle segment once the media has
    // passed its end; a VOD one gets them all at Finish, when every cue is known
    // (a render learns its cues as the speech is made, ahead of or after the frames).
    while (options_.window_segments > 0 && media_end_ >= segment_ * (next_vtt_ + 1)) {
      status = WriteSubtitleSegment(next_vtt_, segment_, /*final=*/false);
      if (!status.ok()) return Fail(status);
      ++next_vtt_;
    }
  }

  void AddSubtitle(const SubtitleCue& cue) override { cues_.push_back(cue); }

  absl::Status Finish() override {
    if (failed()) return error_;
    absl::Status status = muxer_->Finish();
    muxer_.reset();
    // The muxer goes on without a playlist it could not open: the refusal is the error.
    if (!directory_->refusal().ok()) status = directory_->refusal();
    if (status.ok()) {
      // The last, partial subtitle segment, up to the end of the media.
      const MediaTime end = std::max(media_end_, MediaTime::Micros(1));
      while (status.ok() && segment_ * next_vtt_ < end) {
        const MediaTime length = std::min(segment_, end - segment_ * next_vtt_);
        status = WriteSubtitleSegment(next_vtt_, length, /*final=*/true);
        ++next_vtt_;
      }
    }
    if (status.ok()) status = directory_->WriteAtomically(kSubtitlePlaylist, SubtitlePlaylist(/*ended=*/true));
    if (!status.ok()) {
      Fail(status);
      return error_;
    }
    stats_.bytes = DirectoryBytes();
    if (media_end_ > MediaTime::Zero()) stats_.bitrate = static_cast<double>(stats_.bytes) * 8 / media_end_.seconds();
    stats_.state = OutputState::kFinished;
    return absl::OkStatus();
  }

  OutputSinkStats stats() const override { return stats_; }
  bool failed() const override { return stats_.state == OutputState::kFailed; }

  void Fail(const absl::Status& status) {
    if (failed()) return;
    error_ = absl::Status(status.code(), absl::StrCat("output hls:", dir_, ": ", status.message()));
    stats_.state = OutputState::kFailed;
    stats_.error = std::string(error_.message());
    stats_.error_code = error_.code();
    muxer_.reset();
  }

 private:
  int64_t DirectoryBytes() const { return directory_->RegularFileBytes(); }

  // A stream being continued: keep its subtitle segments; ours follow after a discontinuity.
  absl::Status LoadSubtitleSegments() {
    resumed_ = true;
    LC_ASSIGN_OR_RETURN(const bool exists, directory_->RegularFileExists(kSubtitlePlaylist));
    if (!exists) return absl::OkStatus();
    LC_ASSIGN_OR_RETURN(const std::string playlist, directory_->Read(kSubtitlePlaylist));
    LC_RETURN_IF_ERROR(CheckPlaylistNames(*directory_, kSubtitlePlaylist, playlist));
    bool discontinuity = false;
    double seconds = 0;
    const std::vector<std::string> lines = absl::StrSplit(playlist, '\n');
    for (const std::string& line : lines) {
      if (line == "#EXT-X-DISCONTINUITY") discontinuity = true;
      if (sscanf(line.c_str(), "#EXTINF:%lf", &seconds) == 1) continue;
      int64_t number = 0;
      if (sscanf(line.c_str(), "subs_%ld.vtt", &number) == 1) {
        vtt_segments_.push_back({number, seconds, discontinuity, line});
        discontinuity = false;
        first_vtt_number_ = number + 1;
      }
    }
    return absl::OkStatus();
  }

  std::string MasterPlaylist() const {
    return absl::StrCat(
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n",
        "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"Subtitles\",DEFAULT=YES,AUTOSELECT=YES,URI=\"",
        kSubtitlePlaylist, "\"\n", "#EXT-X-STREAM-INF:BANDWIDTH=", bandwidth_, ",CODECS=\"", codecs_,
        "\",RESOLUTION=", width_, "x", height_, ",SUBTITLES=\"subs\"\n", kVideoPlaylist, "\n");
  }

  std::string SubtitlePlaylist(bool ended) const {
    double target = options_.segment_seconds;
    for (const VttSegment& s : vtt_segments_) target = std::max(target, s.seconds);
    size_t first = 0;
    if (options_.window_segments > 0 && vtt_segments_.size() > static_cast<size_t>(options_.window_segments)) {
      first = vtt_segments_.size() - static_cast<size_t>(options_.window_segments);
    }
    std::string out = absl::StrCat("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:",
                                   static_cast<int64_t>(std::ceil(target)), "\n#EXT-X-MEDIA-SEQUENCE:",
                                   first < vtt_segments_.size() ? vtt_segments_[first].index : 0, "\n");
    if (options_.window_segments == 0) absl::StrAppend(&out, "#EXT-X-PLAYLIST-TYPE:VOD\n");
    for (size_t i = first; i < vtt_segments_.size(); ++i) {
      if (vtt_segments_[i].discontinuity) absl::StrAppend(&out, "#EXT-X-DISCONTINUITY\n");
      absl::StrAppend(&out, absl::StrFormat("#EXTINF:%.6f,\n", vtt_segments_[i].seconds), vtt_segments_[i].uri,
                      "\n");
    }
    if (ended) absl::StrAppend(&out, "#EXT-X-ENDLIST\n");
    return out;
  }

  // Segment n covers [n, n+1) segment lengths of media time. Its cue times are
  // on the media timeline; X-TIMESTAMP-MAP ties that timeline's 0 to the
  // MPEG-TS clock of the video (media time + start offset, at 90 kHz).
  absl::Status WriteSubtitleSegment(int64_t n, MediaTime length, bool final) {
    const MediaTime begin = segment_ * n;
    const MediaTime end = begin + length;
    const int64_t mpegts_zero = ((options_.start_offset.micros() * 9 / 100) % kMpegTsWrap + kMpegTsWrap) % kMpegTsWrap;
    std::string vtt = absl::StrCat("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:", mpegts_zero, ",LOCAL:00:00:00.000\n\n");
    for (const SubtitleCue& cue : cues_) {
      if (cue.end <= begin || cue.start >= end) continue;
      absl::StrAppend(&vtt, FormatVttTimestamp(cue.start), " --> ", FormatVttTimestamp(cue.end), "\n",
                      OneLine(cue.primary.text), "\n");
      if (!cue.secondary.text.empty()) absl::StrAppend(&vtt, OneLine(cue.secondary.text), "\n");
      absl::StrAppend(&vtt, "\n");
    }
    const int64_t number = first_vtt_number_ + n;
    const std::string uri = absl::StrFormat("subs_%05d.vtt", number);
    LC_RETURN_IF_ERROR(directory_->WriteAtomically(uri, vtt));
    vtt_segments_.push_back({number, length.seconds(), resumed_ && n == 0, uri});
    if (options_.window_segments > 0 && vtt_segments_.size() > static_cast<size_t>(options_.window_segments) + 1) {
      // Like the video muxer, keep one segment beyond the window for players still reading it.
      directory_->Remove(vtt_segments_[vtt_segments_.size() - options_.window_segments - 2].uri);
    }
    // Cues that ended before this segment are no longer needed.
    cues_.erase(std::remove_if(cues_.begin(), cues_.end(), [&](const SubtitleCue& c) { return c.end <= end; }),
                cues_.end());
    if (final) return absl::OkStatus();
    return directory_->WriteAtomically(kSubtitlePlaylist, SubtitlePlaylist(/*ended=*/false));
  }

  const HlsOptions options_;
  std::string dir_;
  MediaTime segment_;
  // Declared before muxer_, so it outlives the muxer that opens files through it.
  std::unique_ptr<HlsDirectory> directory_;
  std::unique_ptr<AvMuxer> muxer_;
  std::string muxer_flags_;  // its hls_flags, but append_list
  std::vector<SubtitleCue> cues_;
  std::vector<VttSegment> vtt_segments_;
  int64_t next_vtt_ = 0;
  int64_t first_vtt_number_ = 0;
  bool resumed_ = false;
  MediaTime media_end_;
  MediaTime last_sized_ = MediaTime::Micros(-1'000'000);
  std::string codecs_;
  int width_ = 0, height_ = 0;
  int64_t bandwidth_ = 0;
  OutputSinkStats stats_;
  absl::Status error_;
};

}  // namespace

std::string FormatVttTimestamp(MediaTime t) {
  const int64_t ms = std::max<int64_t>(0, t.millis());
  return absl::StrFormat("%02d:%02d:%02d.%03d", ms / 3'600'000, (ms / 60'000) % 60, (ms / 1000) % 60, ms % 1000);
}

std::string AvcCodecString(const AVCodecContext& video) {
  const uint8_t* data = video.extradata;
  for (int i = 0; data != nullptr && i + 6 < video.extradata_size; ++i) {
    const bool start_code = data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1;
    if (start_code && (data[i + 3] & 0x1f) == 7) {
      return absl::StrFormat("avc1.%02x%02x%02x", data[i + 4], data[i + 5], data[i + 6]);
    }
  }
  return "avc1.42e01e";
}

absl::Status CheckHlsSegmentSeconds(double seconds) {
  // Written so that NaN fails too (every comparison with it is false).
  if (seconds >= kMinHlsSegmentSeconds && seconds <= kMaxHlsSegmentSeconds) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("HLS segment length ", seconds, " s: give a number of seconds from ",
                                                 kMinHlsSegmentSeconds, " to ", kMaxHlsSegmentSeconds));
}

std::unique_ptr<OutputSink> OpenHlsOutput(const OutputSpec& spec, const AVCodecContext& video,
                                          const AVCodecContext& audio, const HlsOptions& options) {
  auto output = std::make_unique<HlsOutput>(spec, options);
  absl::Status status = output->Open(video, audio);
  if (!status.ok()) output->Fail(status);
  return output;
}

}  // namespace lingcast
