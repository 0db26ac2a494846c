#include "output/mp4_writer.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "audio/av_util.h"
#include "output/test_util.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_util::MakeFrame;
using testing_util::MakeTone;
using testing_util::ScratchDir;

constexpr int kWidth = 160;
constexpr int kHeight = 90;
constexpr int kTtsRate = 22050;  // espeak-ng's rate: exercises the resampler

VideoEncoderOptions SmallVideo() {
  VideoEncoderOptions video;
  video.width = kWidth;
  video.height = kHeight;
  video.fps_num = 30;
  video.preset = "ultrafast";
  video.threads = 1;
  return video;
}

AudioEncoderOptions SpeechAudio() {
  AudioEncoderOptions audio;
  audio.input_sample_rate = kTtsRate;
  return audio;
}

// What a player would see: the file read back with libavformat + libavcodec.
struct ReadBack {
  std::string video_codec, audio_codec;
  int width = 0, height = 0;
  int video_packets = 0, video_frames_decoded = 0;
  AVColorRange color_range = AVCOL_RANGE_UNSPECIFIED;
  AVColorPrimaries color_primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic color_trc = AVCOL_TRC_UNSPECIFIED;
  AVColorSpace colorspace = AVCOL_SPC_UNSPECIFIED;
  AVColorRange decoded_range = AVCOL_RANGE_UNSPECIFIED;
  AVColorSpace decoded_space = AVCOL_SPC_UNSPECIFIED;
  int first_y = -1, first_u = -1, first_v = -1;  // top-left pixel of the first frame
  int sample_rate = 0, channels = 0;
  std::vector<int64_t> audio_packet_pts;  // in 1/sample_rate
  int64_t first_decoded_audio_pts = INT64_MIN;
  int64_t audio_samples_decoded = 0;
  double left_energy = 0;  // sum of squares, for the RMS level
  double rms_left() const { return audio_samples_decoded ? std::sqrt(left_energy / audio_samples_decoded) : 0; }
  float max_channel_difference = 0;
  double video_duration_s = 0;
  double video_start_s = -1, audio_start_s = -1;  // the streams' start_time
  double container_duration_s = 0;
};

struct InputDeleter {
  void operator()(AVFormatContext* ctx) const { avformat_close_input(&ctx); }
};

CodecContextPtr OpenDecoder(const AVStream& stream) {
  const AVCodec* codec = avcodec_find_decoder(stream.codecpar->codec_id);
  CodecContextPtr ctx(avcodec_alloc_context3(codec));
  EXPECT_GE(avcodec_parameters_to_context(ctx.get(), stream.codecpar), 0);
  ctx->pkt_timebase = stream.time_base;
  EXPECT_GE(avcodec_open2(ctx.get(), codec, nullptr), 0);
  return ctx;
}

ReadBack ReadMp4(const std::string& path) {
  ReadBack r;
  AVFormatContext* raw = nullptr;
  if (avformat_open_input(&raw, path.c_str(), nullptr, nullptr) < 0) {
    ADD_FAILURE() << "cannot open " << path;
    return r;
  }
  std::unique_ptr<AVFormatContext, InputDeleter> input(raw);
  EXPECT_GE(avformat_find_stream_info(input.get(), nullptr), 0);
  r.container_duration_s = static_cast<double>(input->duration) / AV_TIME_BASE;
  EXPECT_EQ(input->nb_streams, 2u);
  int video_index = -1, audio_index = -1;
  CodecContextPtr video_decoder, audio_decoder;
  for (unsigned i = 0; i < input->nb_streams; ++i) {
    const AVStream& stream = *input->streams[i];
    const AVCodecParameters& par = *stream.codecpar;
    if (par.codec_type == AVMEDIA_TYPE_VIDEO) {
      video_index = static_cast<int>(i);
      r.video_codec = avcodec_get_name(par.codec_id);
      r.width = par.width;
      r.height = par.height;
      r.color_range = par.color_range;
      r.color_primaries = par.color_primaries;
      r.color_trc = par.color_trc;
      r.colorspace = par.color_space;
      r.video_duration_s = static_cast<double>(stream.duration) * av_q2d(stream.time_base);
      r.video_start_s = static_cast<double>(stream.start_time) * av_q2d(stream.time_base);
      video_decoder = OpenDecoder(stream);
    } else if (par.codec_type == AVMEDIA_TYPE_AUDIO) {
      audio_index = static_cast<int>(i);
      r.audio_codec = avcodec_get_name(par.codec_id);
      r.sample_rate = par.sample_rate;
      r.channels = par.ch_layout.nb_channels;
      r.audio_start_s = static_cast<double>(stream.start_time) * av_q2d(stream.time_base);
      audio_decoder = OpenDecoder(stream);
    }
  }
  if (video_index < 0 || audio_index < 0) {
    ADD_FAILURE() << "missing a stream";
    return r;
  }
  const AVRational audio_tb = input->streams[audio_index]->time_base;
  PacketPtr packet(av_packet_alloc());
  FramePtr frame(av_frame_alloc());
  auto receive_all = [&](AVCodecContext* decoder, bool is_video) {
    while (avcodec_receive_frame(decoder, frame.get()) >= 0) {
      if (is_video) {
        if (r.video_frames_decoded == 0) {
          r.decoded_range = frame->color_range;
          r.decoded_space = frame->colorspace;
          r.first_y = frame->data[0][0];
          r.first_u = frame->data[1][0];
          r.first_v = frame->data[2][0];
        }
        ++r.video_frames_decoded;
      } else {
        if (r.first_decoded_audio_pts == INT64_MIN) {
          r.first_decoded_audio_pts = av_rescale_q(frame->best_effort_timestamp, audio_tb,
                                                   AVRational{1, frame->sample_rate});
        }
        r.audio_samples_decoded += frame->nb_samples;
        const auto* left = reinterpret_cast<const float*>(frame->extended_data[0]);
        const auto* right = reinterpret_cast<const float*>(frame->extended_data[frame->ch_layout.nb_channels - 1]);
        for (int i = 0; i < frame->nb_samples; ++i) {
          r.left_energy += static_cast<double>(left[i]) * left[i];
          r.max_channel_difference = std::max(r.max_channel_difference, std::abs(left[i] - right[i]));
        }
      }
      av_frame_unref(frame.get());
    }
  };
  while (av_read_frame(input.get(), packet.get()) >= 0) {
    if (packet->stream_index == video_index) {
      ++r.video_packets;
      EXPECT_GE(avcodec_send_packet(video_decoder.get(), packet.get()), 0);
      receive_all(video_decoder.get(), true);
    } else if (packet->stream_index == audio_index) {
      r.audio_packet_pts.push_back(av_rescale_q(packet->pts, audio_tb, AVRational{1, r.sample_rate}));
      EXPECT_GE(avcodec_send_packet(audio_decoder.get(), packet.get()), 0);
      receive_all(audio_decoder.get(), false);
    }
    av_packet_unref(packet.get());
  }
  avcodec_send_packet(video_decoder.get(), nullptr);
  receive_all(video_decoder.get(), true);
  avcodec_send_packet(audio_decoder.get(), nullptr);
  receive_all(audio_decoder.get(), false);
  return r;
}

// Writes `seconds` of tone and the frames that cover it, as the render job does.
absl::Status WriteClip(Mp4Writer& writer, double seconds, const VideoEncoderOptions& video) {
  AudioBuffer tone = MakeTone(seconds, kTtsRate);
  // Audio arrives in uneven pieces, like TTS utterances.
  const size_t pieces[] = {1000, 5000, 333};
  size_t offset = 0;
  for (int i = 0; offset < tone.samples.size(); ++i) {
    AudioBuffer piece;
    piece.sample_rate = kTtsRate;
    const size_t n = std::min(pieces[i % 3], tone.samples.size() - offset);
    piece.samples.assign(tone.samples.begin() + static_cast<std::ptrdiff_t>(offset),
                         tone.samples.begin() + static_cast<std::ptrdiff_t>(offset + n));
    offset += n;
    absl::Status status = writer.WriteAudio(piece);
    if (!status.ok()) return status;
  }
  const auto frames = static_cast<int64_t>(std::llround(seconds * video.fps_num / video.fps_den));
  for (int64_t i = 0; i < frames; ++i) {
    absl::Status status = writer.WriteVideo(MakeFrame(video.width, video.height, i), i);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The four-character types of the top-level MP4 boxes, in file order.
std::vector<std::string> TopLevelBoxes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::string> boxes;
  size_t pos = 0;
  while (pos + 8 <= bytes.size()) {
    uint64_t size = (uint64_t{bytes[pos]} << 24) | (uint64_t{bytes[pos + 1]} << 16) |
                    (uint64_t{bytes[pos + 2]} << 8) | uint64_t{bytes[pos + 3]};
    boxes.emplace_back(reinterpret_cast<const char*>(&bytes[pos + 4]), 4);
    if (size == 1 && pos + 16 <= bytes.size()) {
      size = 0;
      for (int i = 0; i < 8; ++i) size = (size << 8) | bytes[pos + 8 + i];
    }
    if (size < 8) break;
    pos += size;
  }
  return boxes;
}

class Mp4WriterTest : public ::testing::Test {
 protected:
  // Keeps x264's banner out of the test log.
  ScopedLibavLogLevel quiet_{AV_LOG_ERROR};
  ScratchDir dir_;
};

TEST_F(Mp4WriterTest, WritesH264AndAacThatReadBack) {
  const std::string path = dir_.File("clip.mp4");
  auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK(WriteClip(**writer, 1.0, SmallVideo()));
  ASSERT_OK((*writer)->Finish());

  const ReadBack r = ReadMp4(path);
  EXPECT_EQ(r.video_codec, "h264");
  EXPECT_EQ(r.audio_codec, "aac");
  EXPECT_EQ(r.width, kWidth);
  EXPECT_EQ(r.height, kHeight);
  EXPECT_EQ(r.video_packets, 30);
  EXPECT_EQ(r.video_frames_decoded, 30);
  EXPECT_NEAR(r.video_duration_s, 1.0, 1e-6);
  EXPECT_EQ(r.sample_rate, 48000);
  EXPECT_EQ(r.channels, 1);
  EXPECT_NEAR(r.rms_left(), 0.5 / std::sqrt(2.0), 0.02);  // the tone's level survives resampling and AAC
  // 1 s of speech in, 1 s of audio out (AAC's priming is trimmed by the edit list).
  EXPECT_NEAR(static_cast<double>(r.audio_samples_decoded) / 48000, 1.0, 1024.0 / 48000);
  EXPECT_NEAR(r.container_duration_s, 1.0, 0.03);
  // Both streams start at 0; the first audio sample a player presents is at 0
  // (the first packet sits at -1024, AAC's priming, which the edit list skips).
  EXPECT_EQ(r.video_start_s, 0);
  EXPECT_EQ(r.audio_start_s, 0);
  EXPECT_EQ(r.first_decoded_audio_pts, 0);
  ASSERT_FALSE(r.audio_packet_pts.empty());
  for (size_t i = 1; i < r.audio_packet_pts.size(); ++i) {
    EXPECT_GT(r.audio_packet_pts[i], r.audio_packet_pts[i - 1]) << "audio packet " << i;
  }
}

TEST_F(Mp4WriterTest, DuplicatesMonoSpeechToBothChannelsAtFullLevel) {
  const std::string path = dir_.File("level.mp4");
  AudioEncoderOptions stereo = SpeechAudio();
  stereo.output_channels = 2;
  auto writer = Mp4Writer::Open(path, SmallVideo(), stereo);
  ASSERT_OK(writer);
  ASSERT_OK(WriteClip(**writer, 1.0, SmallVideo()));
  ASSERT_OK((*writer)->Finish());

  const ReadBack r = ReadMp4(path);
  EXPECT_EQ(r.channels, 2);
  // The tone's level (RMS 0.354), not the -3 dB (0.25) of a default upmix.
  EXPECT_NEAR(r.rms_left(), 0.5 / std::sqrt(2.0), 0.02);
  EXPECT_LT(r.max_channel_difference, 0.01);  // AAC mid/side coding is not bit-exact
}

TEST_F(Mp4WriterTest, PutsTheIndexBeforeTheMediaData) {
  const std::string path = dir_.File("faststart.mp4");
  auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK(WriteClip(**writer, 0.5, SmallVideo()));
  ASSERT_OK((*writer)->Finish());

  const std::vector<std::string> boxes = TopLevelBoxes(path);
  const auto moov = std::find(boxes.begin(), boxes.end(), "moov");
  const auto mdat = std::find(boxes.begin(), boxes.end(), "mdat");
  ASSERT_NE(moov, boxes.end());
  ASSERT_NE(mdat, boxes.end());
  EXPECT_LT(moov, mdat) << "moov must come before mdat for progressive playback";
}

TEST_F(Mp4WriterTest, ConvertsWithBt709LimitedRangeAndTagsIt) {
  const std::string path = dir_.File("red.mp4");
  VideoEncoderOptions video = SmallVideo();
  video.crf = 10;  // keep the flat colour close to exact
  auto writer = Mp4Writer::Open(path, video, SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK((*writer)->WriteAudio(MakeTone(0.2, kTtsRate)));
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK((*writer)->WriteVideo(MakeFrame(kWidth, kHeight, 0, 255, 0, 0), i));
  }
  ASSERT_OK((*writer)->Finish());

  const ReadBack r = ReadMp4(path);
  EXPECT_EQ(r.color_range, AVCOL_RANGE_MPEG);
  EXPECT_EQ(r.color_primaries, AVCOL_PRI_BT709);
  EXPECT_EQ(r.color_trc, AVCOL_TRC_BT709);
  EXPECT_EQ(r.colorspace, AVCOL_SPC_BT709);
  EXPECT_EQ(r.decoded_range, AVCOL_RANGE_MPEG);
  EXPECT_EQ(r.decoded_space, AVCOL_SPC_BT709);
  // Pure red in BT.709 limited range is Y=63 Cb=102 Cr=240 (BT.601 would give Y=81 Cb=90).
  EXPECT_NEAR(r.first_y, 63, 2);
  EXPECT_NEAR(r.first_u, 102, 2);
  EXPECT_NEAR(r.first_v, 240, 2);
}

TEST_F(Mp4WriterTest, CountsWhatItWrote) {
  const std::string path = dir_.File("stats.mp4");
  auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK(WriteClip(**writer, 1.0, SmallVideo()));
  ASSERT_OK((*writer)->Finish());

  const OutputStats& stats = (*writer)->stats();
  EXPECT_EQ(stats.video_frames, 30);
  EXPECT_EQ(stats.video_packets, 30);
  EXPECT_EQ(stats.audio_input_samples, kTtsRate);
  EXPECT_NEAR(static_cast<double>(stats.audio_output_samples), 48000, 2);
  EXPECT_GT(stats.audio_packets, 40);
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(stats.bytes_written, info.st_size);
  EXPECT_EQ(stats.video_duration(), MediaTime::Seconds(1));
  EXPECT_NEAR(stats.audio_duration().seconds(), 1.0, 1e-4);
  EXPECT_GT(stats.video_encode_seconds, 0);
  EXPECT_GT(stats.audio_encode_seconds, 0);
  EXPECT_GE(stats.video_encode_seconds, stats.video_convert_seconds);
}

TEST_F(Mp4WriterTest, DestroyedWithoutFinishLeavesNoFile) {
  const std::string path = dir_.File("abandoned.mp4");
  {
    auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
    ASSERT_OK(writer);
    ASSERT_OK(WriteClip(**writer, 0.5, SmallVideo()));
    EXPECT_THAT(dir_.Entries(), ::testing::SizeIs(1)) << "the temporary file exists while writing";
  }
  EXPECT_THAT(dir_.Entries(), IsEmpty());
}

TEST_F(Mp4WriterTest, ReplacesAnExistingFileOnlyWhenFinished) {
  const std::string path = dir_.File("existing.mp4");
  std::ofstream(path) << "old contents";
  auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK(WriteClip(**writer, 0.5, SmallVideo()));
  std::string before;
  std::getline(std::ifstream(path), before);
  EXPECT_EQ(before, "old contents");
  ASSERT_OK((*writer)->Finish());
  EXPECT_EQ(ReadMp4(path).video_codec, "h264");
  EXPECT_THAT(dir_.Entries(), ::testing::ElementsAre("existing.mp4"));
}

TEST_F(Mp4WriterTest, AWrongSizedFrameFailsAndLeavesNoFile) {
  const std::string path = dir_.File("wrong.mp4");
  {
    auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
    ASSERT_OK(writer);
    ASSERT_OK((*writer)->WriteAudio(MakeTone(0.2, kTtsRate)));
    const absl::Status status = (*writer)->WriteVideo(MakeFrame(320, 180, 0), 0);
    EXPECT_THAT(std::string(status.message()), HasSubstr("320x180"));
    // The writer stays failed: Finish reports the first error and writes nothing.
    EXPECT_EQ((*writer)->Finish(), status);
  }
  EXPECT_THAT(dir_.Entries(), IsEmpty());
}

TEST_F(Mp4WriterTest, FrameIndicesMustIncrease) {
  auto writer = Mp4Writer::Open(dir_.File("order.mp4"), SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK((*writer)->WriteVideo(MakeFrame(kWidth, kHeight, 0), 5));
  const absl::Status status = (*writer)->WriteVideo(MakeFrame(kWidth, kHeight, 0), 5);
  EXPECT_THAT(std::string(status.message()), HasSubstr("indices must increase"));
}

TEST_F(Mp4WriterTest, AudioAtTheWrongRateIsRefused) {
  auto writer = Mp4Writer::Open(dir_.File("rate.mp4"), SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  const absl::Status status = (*writer)->WriteAudio(MakeTone(0.1, 16000));
  EXPECT_THAT(std::string(status.message()), HasSubstr("16000 Hz"));
}

TEST_F(Mp4WriterTest, FinishWithoutAudioIsAnError) {
  const std::string path = dir_.File("silent.mp4");
  auto writer = Mp4Writer::Open(path, SmallVideo(), SpeechAudio());
  ASSERT_OK(writer);
  ASSERT_OK((*writer)->WriteVideo(MakeFrame(kWidth, kHeight, 0), 0));
  const absl::Status status = (*writer)->Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("0 audio samples"));
  writer->reset();
  EXPECT_THAT(dir_.Entries(), IsEmpty());
}

TEST_F(Mp4WriterTest, RejectsBadOptionsBeforeCreatingAnything) {
  const std::string path = dir_.File("bad.mp4");
  VideoEncoderOptions odd = SmallVideo();
  odd.width = 101;
  odd.height = 100;
  auto writer = Mp4Writer::Open(path, odd, SpeechAudio());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.status().message(), "--size 101x100: width and height must be even for H.264 4:2:0");

  VideoEncoderOptions fast = SmallVideo();
  fast.fps_num = 1000;
  writer = Mp4Writer::Open(path, fast, SpeechAudio());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(writer.status().message()), HasSubstr("--fps 1000"));

  AudioEncoderOptions no_rate;
  writer = Mp4Writer::Open(path, SmallVideo(), no_rate);
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dir_.Entries(), IsEmpty());
}

TEST_F(Mp4WriterTest, RejectsUnwritablePathsBeforeCreatingAnything) {
  const std::string regular_file = dir_.File("not_a_dir");
  std::ofstream(regular_file) << "x";
  const struct {
    std::string path;
    absl::StatusCode code;
  } cases[] = {
      {dir_.File("missing/out.mp4"), absl::StatusCode::kFailedPrecondition},
      {regular_file + "/out.mp4", absl::StatusCode::kFailedPrecondition},
      {dir_.path(), absl::StatusCode::kInvalidArgument},
  };
  for (const auto& c : cases) {
    auto writer = Mp4Writer::Open(c.path, SmallVideo(), SpeechAudio());
    EXPECT_EQ(writer.status().code(), c.code) << c.path << ": " << writer.status();
    EXPECT_THAT(std::string(writer.status().message()), HasSubstr(c.path));
  }
  EXPECT_THAT(dir_.Entries(), ::testing::ElementsAre("not_a_dir"));
}

}  // namespace
}  // namespace lingcast
