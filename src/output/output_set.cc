#include "output/output_set.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "output/hls_output.h"
#include "output/mp4_output.h"

extern "C" {
#include <libswscale/swscale.h>
}

namespace lingcast {
namespace {

struct SwsDeleter {
  void operator()(SwsContext* context) const { sws_freeContext(context); }
};

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct OutputSet::Recording {
  std::unique_ptr<VideoEncoder> encoder;
  VideoEncoderOptions options;
  MediaTime origin;  // the pts of its frame index 0
  int64_t last_index = -1;
  std::unique_ptr<SwsContext, SwsDeleter> scaler;  // from scaler_width x scaler_height to its size
  int scaler_width = 0, scaler_height = 0;
  bool scaler_from_yuv = false;  // scales yuv420p planes (a GPU-drawn frame) rather than RGBA
  VideoFrame scaled;
  std::vector<uint8_t> scaled_planes;  // the yuv420p planes `scaled` carries when scaling from yuv420p
};

const char* OutputStateName(OutputState state) {
  switch (state) {
    case OutputState::kConnecting: return "connecting";
    case OutputState::kConnected: return "connected";
    case OutputState::kReconnecting: return "reconnecting";
    case OutputState::kFailed: return "failed";
    case OutputState::kFinished: return "finished";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<OutputSet>> OutputSet::Open(const std::vector<OutputSpec>& specs,
                                                           const VideoEncoderOptions& video,
                                                           const AudioEncoderOptions& audio,
                                                           const OutputSetOptions& options, Clock& clock) {
  if (specs.empty()) return absl::InvalidArgumentError("no outputs: give at least one --out");
  std::set<std::string> targets;
  for (const OutputSpec& spec : specs) {
    if (!targets.insert(spec.target).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--out ", spec.DisplayName(), " is given twice; each output must be different"));
    }
  }
  if (options.start_offset < MediaTime::Zero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--start-offset ", options.start_offset.ToString(), " is negative"));
  }
  if (options.mp4_segment_length < MediaTime::Zero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("MP4 segment length ", options.mp4_segment_length.ToString(), " is negative"));
  }
  if (std::any_of(specs.begin(), specs.end(), [](const OutputSpec& s) { return s.kind == OutputSpec::kHls; })) {
    // Before any encoder or file: one bad length fails the set, not just its HLS output.
    LC_RETURN_IF_ERROR(CheckHlsSegmentSeconds(options.hls_segment_seconds));
  }
  LC_RETURN_IF_ERROR(ValidateVideoOptions(video));
  LC_RETURN_IF_ERROR(ValidateAudioOptions(audio));
  const bool adaptive = options.adaptive_bitrate.enabled && video.bitrate > 0 &&
                        std::any_of(specs.begin(), specs.end(), [](const OutputSpec& s) { return s.is_network(); });
  if (adaptive) LC_RETURN_IF_ERROR(ValidateAdaptiveBitrate(options.adaptive_bitrate));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<VideoEncoder> video_encoder, VideoEncoder::Create(video));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<AudioEncoder> audio_encoder, AudioEncoder::Create(audio));
  std::unique_ptr<OutputSet> set(
      new OutputSet(video, audio, options, std::move(video_encoder), std::move(audio_encoder)));
  std::lock_guard<std::mutex> lock(set->mu_);
  if (!set->scratch_) return absl::ResourceExhaustedError("out of memory allocating a packet");
  set->stats_.video_bitrate = video.bitrate;
  set->stats_.min_video_bitrate = video.bitrate;
  if (adaptive) set->bitrate_controller_ = std::make_unique<BitrateController>(video.bitrate, options.adaptive_bitrate);

  const AVCodecContext& video_codec = set->video_encoder_->codec_context();
  const AVCodecContext& audio_codec = set->audio_encoder_->codec_context();
  // AAC's first packet starts before 0 by the encoder's priming (1024 samples).
  // FLV and MPEG-TS cannot carry negative times, and a live muxer writing
  // packets as they come cannot shift them afterwards as a file muxer does,
  // so live timelines start at least that late (as the ffmpeg CLI's do).
  const MediaTime priming = MediaTime::Micros(
      av_rescale_rnd(audio_codec.initial_padding, 1'000'000, audio_codec.sample_rate, AV_ROUND_UP));
  for (const OutputSpec& spec : specs) {
    switch (spec.kind) {
      case OutputSpec::kMp4:
        set->sinks_.push_back(OpenMp4Output(spec, video_codec, audio_codec, options.mp4_segment_length));
        break;
      case OutputSpec::kHls: {
        HlsOptions hls;
        hls.segment_seconds = options.hls_segment_seconds;
        hls.window_segments = options.hls_window_segments >= 0 ? options.hls_window_segments
                                                                : (options.live ? 6 : 0);
        hls.start_offset = std::max(options.start_offset, priming);
        set->sinks_.push_back(OpenHlsOutput(spec, video_codec, audio_codec, hls));
        break;
      }
      case OutputSpec::kRtmp:
      case OutputSpec::kSrt: {
        LiveOutputParams params;
        params.spec = spec;
        params.video = &video_codec;
        params.audio = &audio_codec;
        params.network = options.network;
        params.start_offset = std::max(options.start_offset, priming);
        params.clock = &clock;
        OutputSet* raw_set = set.get();
        params.request_keyframe = [raw_set] { raw_set->keyframe_requested_ = true; };
        params.on_packet_written = options.on_packet_written;
        set->sinks_.push_back(OpenLiveOutput(params));
        break;
      }
    }
  }
  LC_RETURN_IF_ERROR(set->AllFailedError());
  return set;
}

OutputSet::OutputSet(const VideoEncoderOptions& video, const AudioEncoderOptions& audio,
                     const OutputSetOptions& options, std::unique_ptr<VideoEncoder> video_encoder,
                     std::unique_ptr<AudioEncoder> audio_encoder)
    : video_options_(video),
      audio_options_(audio),
      options_(options),
      video_encoder_(std::move(video_encoder)),
      audio_encoder_(std::move(audio_encoder)),
      scratch_(av_packet_alloc()) {}

OutputSet::~OutputSet() {
  // Stop the sender threads first: they may still ask for a keyframe.
  std::lock_guard<std::mutex> lock(mu_);
  sinks_.clear();
}

absl::Status OutputSet::AllFailedError() const {
  for (const auto& sink : sinks_) {
    if (!sink->failed()) return absl::OkStatus();
  }
  std::string message = sinks_.size() == 1 ? "the output failed: " : "every output failed: ";
  for (size_t i = 0; i < sinks_.size(); ++i) {
    const OutputSinkStats stats = sinks_[i]->stats();
    absl::StrAppend(&message, i ? "; " : "", stats.error);
  }
  // The first failure's code: a path or a permission the user can fix stays a user error.
  const absl::StatusCode code = sinks_.empty() ? absl::StatusCode::kInternal : sinks_[0]->stats().error_code;
  return absl::Status(code == absl::StatusCode::kOk ? absl::StatusCode::kUnavailable : code, message);
}

absl::Status OutputSet::Distribute(int stream_index, AVPacket& packet, AVRational time_base, MediaTime origin,
                                   Route route) {
  int err = av_packet_ref(scratch_.get(), &packet);
  if (err < 0) return AvError(err, "referencing a packet");
  PacketPtr owned(av_packet_clone(scratch_.get()));
  av_packet_unref(scratch_.get());
  if (!owned) return absl::ResourceExhaustedError("out of memory copying a packet");
  av_packet_rescale_ts(owned.get(), time_base, kPacketTimeBase);
  owned->pts += origin.micros();
  owned->dts += origin.micros();
  owned->time_base = kPacketTimeBase;
  owned->stream_index = stream_index;
  if (stream_index == kVideoStreamIndex && route != Route::kRecordings && announce_extradata_ &&
      (owned->flags & AV_PKT_FLAG_KEY)) {
    // The switched encoder's SPS/PPS travel with its first keyframe (an FLV
    // muxer writes them as a new AVC sequence header).
    announce_extradata_ = false;
    const AVCodecContext& codec = video_encoder_->codec_context();
    uint8_t* side = av_packet_new_side_data(owned.get(), AV_PKT_DATA_NEW_EXTRADATA, codec.extradata_size);
    if (side == nullptr) return absl::ResourceExhaustedError("out of memory attaching the new SPS/PPS");
    std::copy_n(codec.extradata, codec.extradata_size, side);
  }
  if (stream_index == kVideoStreamIndex) {
    ++stats_.video_packets;
  } else {
    ++stats_.audio_packets;
  }
  for (auto& sink : sinks_) {
    if (route == Route::kFollowing && !sink->follows_video_switch()) continue;
    if (route == Route::kRecordings && sink->follows_video_switch()) continue;
    sink->Write(*owned);
  }
  return AllFailedError();
}

namespace {

// The yuv420p planes of a width x height picture packed one after another in `planes`.
std::array<uint8_t*, 3> PackedPlanes(std::vector<uint8_t>& planes, int width, int height) {
  uint8_t* y = planes.data();
  uint8_t* u = y + static_cast<size_t>(width) * height;
  return {y, u, u + static_cast<size_t>(width / 2) * (height / 2)};
}

}  // namespace

OutputSet::Route OutputSet::VideoRoute() const { return recording_ ? Route::kFollowing : Route::kAll; }

absl::Status OutputSet::WriteRecording(const VideoFrame& frame, MediaTime pts) {
  Recording& recording = *recording_;
  const AVRational time_base = recording.encoder->time_base();
  // Its own frame grid: a faster picture skips frames, a slower one leaves gaps (MP4 times each frame).
  const int64_t index = av_rescale_q_rnd((pts - recording.origin).micros(), kPacketTimeBase, time_base,
                                         static_cast<AVRounding>(AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX));
  if (index <= recording.last_index) return absl::OkStatus();
  const VideoFrame* picture = &frame;
  if (frame.width != recording.options.width || frame.height != recording.options.height) {
    // A frame the CUDA renderer drew carries only its yuv420p planes (its RGBA
    // was never brought down), so it is scaled as yuv420p.
    const Yuv420Picture* planes = frame.yuv420.get();
    const bool from_yuv = planes != nullptr;
    const int width = recording.options.width, height = recording.options.height;
    if (!recording.scaler || recording.scaler_width != frame.width || recording.scaler_height != frame.height ||
        recording.scaler_from_yuv != from_yuv) {
      const AVPixelFormat format = from_yuv ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_RGBA;
      recording.scaler.reset(sws_getContext(frame.width, frame.height, format, width, height, format, SWS_BILINEAR,
                                            nullptr, nullptr, nullptr));
      if (!recording.scaler) return absl::ResourceExhaustedError("cannot scale frames for the MP4 recording");
      recording.scaler_width = frame.width;
      recording.scaler_height = frame.height;
      recording.scaler_from_yuv = from_yuv;
      recording.scaled = VideoFrame{};
      if (from_yuv) {
        recording.scaled.width = width;
        recording.scaled.height = height;
        recording.scaled_planes.assign(static_cast<size_t>(width) * height * 3 / 2, 0);
        const std::array<uint8_t*, 3> plane = PackedPlanes(recording.scaled_planes, width, height);
        auto scaled = std::make_shared<Yuv420Picture>();
        scaled->width = width;
        scaled->height = height;
        scaled->y = plane[0];
        scaled->y_stride = width;
        scaled->u = plane[1];
        scaled->u_stride = width / 2;
        scaled->v = plane[2];
        scaled->v_stride = width / 2;
        recording.scaled.yuv420 = std::move(scaled);
      } else {
        recording.scaled.Allocate(width, height);
      }
    }
    if (from_yuv) {
      const uint8_t* source[3] = {planes->y, planes->u, planes->v};
      const int source_stride[3] = {planes->y_stride, planes->u_stride, planes->v_stride};
      // Into the planes recording.scaled.yuv420 points at.
      const std::array<uint8_t*, 3> out = PackedPlanes(recording.scaled_planes, width, height);
      const int out_stride[3] = {width, width / 2, width / 2};
      sws_scale(recording.scaler.get(), source, source_stride, 0, frame.height, out.data(), out_stride);
    } else {
      const uint8_t* source[1] = {frame.rgba.data()};
      const int source_stride[1] = {frame.stride};
      uint8_t* target[1] = {recording.scaled.rgba.data()};
      const int target_stride[1] = {recording.scaled.stride};
      sws_scale(recording.scaler.get(), source, source_stride, 0, frame.height, target, target_stride);
    }
    picture = &recording.scaled;
  }
  recording.last_index = index;
  return recording.encoder->Encode(*picture, index, [this, &recording](AVPacket& p) {
    return Distribute(kVideoStreamIndex, p, recording.encoder->time_base(), recording.origin, Route::kRecordings);
  });
}

VideoEncoderOptions OutputSet::video_options() const {
  std::lock_guard<std::mutex> lock(mu_);
  return video_options_;
}

absl::Status OutputSet::SwitchVideo(const VideoEncoderOptions& video, MediaTime at) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return absl::InternalError("OutputSet::SwitchVideo after Finish");
  LC_RETURN_IF_ERROR(ValidateVideoOptions(video));
  if (at <= last_video_pts_) {
    return absl::InternalError(absl::StrCat("video switch at ", at.ToString(), " is not after the last frame (",
                                            last_video_pts_.ToString(), ")"));
  }
  // Opened before anything changes: an encoder that cannot open leaves the picture as it was.
  LC_ASSIGN_OR_RETURN(std::unique_ptr<VideoEncoder> next, VideoEncoder::Create(video));
  // The adaptive bitrate's rate goes on: a switch under congestion must not
  // send the stream back to the full rate the link could not carry.
  if (bitrate_controller_ && bitrate_controller_->bitrate() != video.bitrate) {
    LC_RETURN_IF_ERROR(next->SetBitrate(bitrate_controller_->bitrate()));
  }
  // B-frames put a new encoder's first decoding times before the old one's
  // last, which no muxer takes; a live encode (tune zerolatency) has none.
  if (video_encoder_->codec_context().has_b_frames > 0 || next->codec_context().has_b_frames > 0) {
    return absl::FailedPreconditionError(
        "the picture can only switch live in an encode without B-frames (x264 tune zerolatency, as live uses)");
  }
  bool recordings = false;
  for (const auto& sink : sinks_) recordings |= !sink->failed() && !sink->follows_video_switch();
  if (recordings && !recording_) {
    // The MP4 files keep the encoder they started with; it goes on without a break.
    recording_ = std::make_unique<Recording>();
    recording_->encoder = std::move(video_encoder_);
    recording_->options = video_options_;
    recording_->origin = video_origin_;
    recording_->last_index = recording_->encoder->frames_encoded() > 0
                                 ? av_rescale_q_rnd((last_video_pts_ - video_origin_).micros(), kPacketTimeBase,
                                                    recording_->encoder->time_base(),
                                                    static_cast<AVRounding>(AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX))
                                 : -1;
  } else {
    // The frames the old encoder still holds end its part of the stream.
    const Route route = VideoRoute();
    LC_RETURN_IF_ERROR(video_encoder_->Flush([this, route](AVPacket& p) {
      return Distribute(kVideoStreamIndex, p, video_encoder_->time_base(), video_origin_, route);
    }));
  }
  video_encoder_ = std::move(next);
  video_options_ = video;
  video_origin_ = at;
  announce_extradata_ = true;
  for (auto& sink : sinks_) {
    if (!sink->failed() && sink->follows_video_switch()) {
      sink->SwitchVideo(video_encoder_->codec_context(), audio_encoder_->codec_context());
    }
  }
  ++stats_.video_switches;
  return AllFailedError();
}

absl::Status OutputSet::WriteVideo(const VideoFrame& frame, int64_t frame_index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return absl::InternalError("OutputSet::WriteVideo after Finish");
  LC_RETURN_IF_ERROR(AllFailedError());
  LC_RETURN_IF_ERROR(AdaptBitrate(frame_index));
  if (keyframe_requested_.exchange(false)) {
    video_encoder_->RequestKeyframe();
    ++stats_.keyframes_forced;
  }
  const auto start = std::chrono::steady_clock::now();
  const Route route = VideoRoute();
  // After a switch with only MP4 files left alive, nothing takes the switched picture.
  bool wanted = route == Route::kAll;
  for (const auto& sink : sinks_) wanted |= !sink->failed() && sink->follows_video_switch();
  absl::Status status = absl::OkStatus();
  if (wanted) {
    status = video_encoder_->Encode(frame, frame_index, [this, route](AVPacket& p) {
      return Distribute(kVideoStreamIndex, p, video_encoder_->time_base(), video_origin_, route);
    });
  }
  const MediaTime pts = video_origin_ + MediaTime::Micros(av_rescale_q(frame_index, video_encoder_->time_base(),
                                                                       kPacketTimeBase));
  if (status.ok() && recording_) status = WriteRecording(frame, pts);
  stats_.video_encode_seconds += SecondsSince(start);
  if (status.ok()) {
    ++stats_.video_frames;
    last_video_pts_ = pts;
  }
  return status;
}

absl::Status OutputSet::AdaptBitrate(int64_t frame_index) {
  if (!bitrate_controller_) return absl::OkStatus();
  CongestionSample sample;
  for (const auto& sink : sinks_) {
    const OutputSinkStats s = sink->stats();
    if (s.kind != OutputSpec::kRtmp && s.kind != OutputSpec::kSrt) continue;
    sample.dropped_video += s.dropped_video_frames;
    // A reconnecting output's queue holds what waits for the server, not congestion.
    if (s.state == OutputState::kConnected) sample.queued = std::max(sample.queued, s.send_buffer);
  }
  const MediaTime now = MediaTime::FromFrameIndex(frame_index, video_options_.fps_num, video_options_.fps_den);
  const std::optional<BitrateStep> step = bitrate_controller_->Update(now, sample);
  if (!step) return absl::OkStatus();
  LC_RETURN_IF_ERROR(video_encoder_->SetBitrate(step->to));
  stats_.video_bitrate = step->to;
  stats_.min_video_bitrate = std::min(stats_.min_video_bitrate, step->to);
  stats_.bitrate_steps_down = bitrate_controller_->steps_down();
  stats_.bitrate_steps_up = bitrate_controller_->steps_up();
  if (options_.on_bitrate_step) options_.on_bitrate_step(*step);
  return absl::OkStatus();
}

absl::Status OutputSet::WriteAudio(const AudioBuffer& pcm) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return absl::InternalError("OutputSet::WriteAudio after Finish");
  LC_RETURN_IF_ERROR(AllFailedError());
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = audio_encoder_->Encode(pcm, [this](AVPacket& p) {
    return Distribute(kAudioStreamIndex, p, audio_encoder_->time_base());
  });
  stats_.audio_encode_seconds += SecondsSince(start);
  stats_.media_duration = MediaTime::FromSamples(audio_encoder_->input_samples(), audio_options_.input_sample_rate);
  return status;
}

absl::Status OutputSet::AddSubtitle(MediaTime start, MediaTime end, std::vector<std::string> lines) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string where = absl::StrCat("subtitle at ", start.ToString());
  if (lines.empty() || lines[0].empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": has no text"));
  if (start < MediaTime::Zero()) return absl::InvalidArgumentError(absl::StrCat(where, ": starts before 0"));
  if (end <= start) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ends at ", end.ToString(), ", not after its start"));
  }
  if (start < last_cue_start_) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": starts before the previous cue (", last_cue_start_.ToString(), ")"));
  }
  last_cue_start_ = start;
  SubtitleCue cue;
  cue.start = start;
  cue.end = end;
  cue.primary.text = std::move(lines[0]);
  if (lines.size() > 1) cue.secondary.text = std::move(lines[1]);
  for (auto& sink : sinks_) {
    if (sink->failed() || (!options_.srt_sidecars && sink->stats().kind == OutputSpec::kMp4)) continue;
    sink->AddSubtitle(cue);
  }
  return absl::OkStatus();
}

absl::Status OutputSet::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return absl::InternalError("OutputSet::Finish called twice");
  finished_ = true;
  if (stats_.video_frames == 0 || audio_encoder_->input_samples() == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "nothing to write (", stats_.video_frames, " video frames, ", audio_encoder_->input_samples(),
        " audio samples); every output needs both"));
  }
  auto start = std::chrono::steady_clock::now();
  const Route route = VideoRoute();
  absl::Status status = video_encoder_->Flush([this, route](AVPacket& p) {
    return Distribute(kVideoStreamIndex, p, video_encoder_->time_base(), video_origin_, route);
  });
  if (status.ok() && recording_) {
    Recording& recording = *recording_;
    status = recording.encoder->Flush([this, &recording](AVPacket& p) {
      return Distribute(kVideoStreamIndex, p, recording.encoder->time_base(), recording.origin, Route::kRecordings);
    });
  }
  stats_.video_encode_seconds += SecondsSince(start);
  start = std::chrono::steady_clock::now();
  if (status.ok()) {
    status = audio_encoder_->Flush([this](AVPacket& p) {
      return Distribute(kAudioStreamIndex, p, audio_encoder_->time_base());
    });
  }
  stats_.audio_encode_seconds += SecondsSince(start);
  absl::Status first_failure = status;
  for (auto& sink : sinks_) {
    absl::Status sink_status = sink->Finish();
    if (first_failure.ok() && !sink_status.ok()) first_failure = sink_status;
  }
  return first_failure;
}

OutputSetStats OutputSet::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  OutputSetStats stats = stats_;
  for (const auto& sink : sinks_) stats.outputs.push_back(sink->stats());
  return stats;
}

}  // namespace lingcast
