#include "audio/audio_decoder.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "audio/test_audio.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::lingcast::testing::EncodeFile;
using ::lingcast::testing::Interleave;
using ::lingcast::testing::ReadFile;
using ::lingcast::testing::Rms;
using ::lingcast::testing::Sine;
using ::lingcast::testing::TempDir;
using ::lingcast::testing::ToneFrequency;
using ::lingcast::testing::WavBytes;
using ::lingcast::testing::WavEncoding;
using ::lingcast::testing::WriteFile;
using ::testing::HasSubstr;

constexpr double kToneHz = 440.0;
constexpr double kAmplitude = 0.5;
constexpr double kSineRms = kAmplitude / std::numbers::sqrt2;

// The middle of a decoded tone, away from any filter edge effects.
std::span<const float> Middle(const AudioBuffer& audio) {
  const size_t skip = audio.samples.size() / 10;
  return std::span<const float>(audio.samples).subspan(skip, audio.samples.size() - 2 * skip);
}

struct WavCase {
  const char* name;
  WavEncoding encoding;
  int rate;
  int channels;
  const char* codec;
};

class WavDecodeTest : public ::testing::TestWithParam<WavCase> {};

TEST_P(WavDecodeTest, DecodesToSixteenKilohertzMonoWithTheToneIntact) {
  const WavCase& c = GetParam();
  TempDir dir;
  const std::string path = dir.File(std::string(c.name) + ".wav");
  const int64_t frames = c.rate * 3 / 2;  // 1.5 s
  std::vector<std::vector<float>> channels(static_cast<size_t>(c.channels),
                                           Sine(kToneHz, kAmplitude, c.rate, frames));
  WriteFile(path, WavBytes(c.encoding, c.rate, c.channels, Interleave(channels)));

  auto reader = AudioFileReader::Open(path);
  ASSERT_OK(reader);
  EXPECT_EQ(reader->info().container, "wav");
  EXPECT_EQ(reader->info().codec, c.codec);
  EXPECT_EQ(reader->info().sample_rate, c.rate);
  EXPECT_EQ(reader->info().channels, c.channels);
  ASSERT_TRUE(reader->info().duration.has_value());
  EXPECT_NEAR(reader->info().duration->seconds(), 1.5, 0.001);

  DecodeReport report;
  auto audio = DecodeAudioFile(path, 16000, &report);
  ASSERT_OK(audio);
  EXPECT_EQ(audio->sample_rate, 16000);
  EXPECT_EQ(audio->channels, 1);
  EXPECT_NEAR(static_cast<double>(audio->frames()), 24000.0, 2.0);
  EXPECT_NEAR(ToneFrequency(Middle(*audio), 16000), kToneHz, kToneHz * 0.002);
  EXPECT_NEAR(Rms(Middle(*audio)), kSineRms, c.encoding == WavEncoding::kU8 ? 0.01 : 0.002);
  EXPECT_EQ(report.corrupt_packets, 0);
  EXPECT_FALSE(report.truncated);
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, WavDecodeTest,
    ::testing::Values(WavCase{"u8_8k", WavEncoding::kU8, 8000, 1, "pcm_u8"},
                      WavCase{"s16_16k", WavEncoding::kS16, 16000, 1, "pcm_s16le"},
                      WavCase{"s24_44k", WavEncoding::kS24, 44100, 1, "pcm_s24le"},
                      WavCase{"s32_22k", WavEncoding::kS32, 22050, 1, "pcm_s32le"},
                      WavCase{"f32_32k", WavEncoding::kF32, 32000, 1, "pcm_f32le"},
                      WavCase{"s16_48k_stereo", WavEncoding::kS16, 48000, 2, "pcm_s16le"},
                      WavCase{"f32_48k_stereo", WavEncoding::kF32, 48000, 2, "pcm_f32le"},
                      WavCase{"s24_96k_6ch", WavEncoding::kS24, 96000, 6, "pcm_s24le"}),
    [](const ::testing::TestParamInfo<WavCase>& info) { return std::string(info.param.name); });

TEST(AudioDecoderTest, SixteenBitMonoAtTheTargetRateIsBitExact) {
  TempDir dir;
  const std::string path = dir.File("exact.wav");
  std::vector<float> samples = Sine(1000.0, 0.25, 16000, 1600);
  for (float& s : samples) s = std::round(s * 32768.0f) / 32768.0f;  // representable in s16
  WriteFile(path, WavBytes(WavEncoding::kS16, 16000, 1, samples));
  auto audio = DecodeAudioFile(path);
  ASSERT_OK(audio);
  EXPECT_EQ(audio->samples, samples);
}

TEST(AudioDecoderTest, StereoIsTheAverageOfTheChannels) {
  TempDir dir;
  const int rate = 48000;
  const std::vector<float> left = Sine(kToneHz, 0.6, rate, rate);
  const std::vector<float> silent(left.size(), 0.0f);
  std::vector<float> inverted = left;
  for (float& s : inverted) s = -s;

  const std::string one_sided = dir.File("left_only.wav");
  WriteFile(one_sided, WavBytes(WavEncoding::kF32, rate, 2, Interleave({left, silent})));
  auto half = DecodeAudioFile(one_sided);
  ASSERT_OK(half);
  EXPECT_NEAR(Rms(Middle(*half)), 0.3 / std::numbers::sqrt2, 0.002);

  const std::string opposed = dir.File("opposed.wav");
  WriteFile(opposed, WavBytes(WavEncoding::kF32, rate, 2, Interleave({left, inverted})));
  auto cancelled = DecodeAudioFile(opposed);
  ASSERT_OK(cancelled);
  EXPECT_LT(Rms(cancelled->samples), 1e-6);
}

TEST(AudioDecoderTest, OtherOutputRates) {
  TempDir dir;
  const std::string path = dir.File("tone.wav");
  WriteFile(path, WavBytes(WavEncoding::kS16, 44100, 1, Sine(kToneHz, kAmplitude, 44100, 44100)));
  for (int rate : {8000, 24000, 48000}) {
    auto audio = DecodeAudioFile(path, rate);
    ASSERT_OK(audio);
    EXPECT_EQ(audio->sample_rate, rate);
    EXPECT_NEAR(static_cast<double>(audio->frames()), rate, 2.0) << rate;
    EXPECT_NEAR(ToneFrequency(Middle(*audio), rate), kToneHz, kToneHz * 0.002) << rate;
  }
  auto bad = DecodeAudioFile(path, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("output sample rate 0"));
}

TEST(AudioDecoderTest, StreamingReaderGivesTheSameAudioInBoundedChunks) {
  TempDir dir;
  const std::string path = dir.File("stream.wav");
  WriteFile(path, WavBytes(WavEncoding::kS24, 48000, 2,
                           Interleave({Sine(300.0, 0.4, 48000, 100000), Sine(500.0, 0.2, 48000, 100000)})));
  auto whole = DecodeAudioFile(path);
  ASSERT_OK(whole);

  auto reader = AudioFileReader::Open(path);
  ASSERT_OK(reader);
  std::vector<float> joined;
  AudioBuffer chunk;
  int chunks = 0;
  while (true) {
    EXPECT_EQ(reader->position(), MediaTime::FromSamples(static_cast<int64_t>(joined.size()), 16000));
    auto more = reader->Read(chunk, MediaTime::Millis(37));
    ASSERT_OK(more);
    if (!*more) break;
    ++chunks;
    EXPECT_EQ(chunk.sample_rate, 16000);
    EXPECT_EQ(chunk.channels, 1);
    EXPECT_GE(chunk.frames(), 1);
    EXPECT_LE(chunk.frames(), 592);  // 37 ms at 16 kHz
    joined.insert(joined.end(), chunk.samples.begin(), chunk.samples.end());
  }
  EXPECT_TRUE(chunk.empty());
  EXPECT_GT(chunks, 50);
  EXPECT_EQ(joined, whole->samples);
  auto again = reader->Read(chunk);  // reading past the end stays at the end
  ASSERT_OK(again);
  EXPECT_FALSE(*again);
}

struct EncodedCase {
  const char* name;
  const char* encoder;
  const char* extension;
  int rate;
  int channels;
  double length_tolerance_s;  // lossy codecs pad or trim a frame at the edges
};

class EncodedDecodeTest : public ::testing::TestWithParam<EncodedCase> {};

TEST_P(EncodedDecodeTest, DecodesTheTone) {
  const EncodedCase& c = GetParam();
  TempDir dir;
  const std::string path = dir.File(std::string("tone.") + c.extension);
  const int64_t frames = c.rate * 2;
  std::vector<std::vector<float>> channels(static_cast<size_t>(c.channels),
                                           Sine(kToneHz, kAmplitude, c.rate, frames));
  absl::Status encoded = EncodeFile(path, c.encoder, c.rate, c.channels, Interleave(channels));
  if (absl::IsUnavailable(encoded)) GTEST_SKIP() << encoded.message();
  ASSERT_OK(encoded);

  auto reader = AudioFileReader::Open(path);
  ASSERT_OK(reader);
  EXPECT_EQ(reader->info().sample_rate, c.rate);
  EXPECT_EQ(reader->info().channels, c.channels);
  DecodeReport report;
  auto audio = DecodeAudioFile(path, 16000, &report);
  ASSERT_OK(audio);
  EXPECT_NEAR(audio->duration().seconds(), 2.0, c.length_tolerance_s);
  EXPECT_NEAR(ToneFrequency(Middle(*audio), 16000), kToneHz, kToneHz * 0.005);
  EXPECT_NEAR(Rms(Middle(*audio)), kSineRms, 0.03);
  EXPECT_EQ(report.corrupt_packets, 0);
  EXPECT_FALSE(report.truncated);
}

INSTANTIATE_TEST_SUITE_P(
    Codecs, EncodedDecodeTest,
    ::testing::Values(EncodedCase{"flac", "flac", "flac", 44100, 2, 0.001},
                      EncodedCase{"mp3", "libmp3lame", "mp3", 44100, 2, 0.06},
                      EncodedCase{"vorbis", "libvorbis", "ogg", 48000, 1, 0.06},
                      EncodedCase{"opus", "libopus", "opus", 48000, 2, 0.06}),
    [](const ::testing::TestParamInfo<EncodedCase>& info) { return std::string(info.param.name); });

TEST(AudioDecoderTest, AudioTrackOfAVideoFile) {
  TempDir dir;
  const std::string path = dir.File("clip.mp4");
  absl::Status encoded = EncodeFile(path, "aac", 48000, 2,
                                    Interleave({Sine(kToneHz, kAmplitude, 48000, 96000),
                                                Sine(kToneHz, kAmplitude, 48000, 96000)}),
                                    /*with_video=*/true);
  if (absl::IsUnavailable(encoded)) GTEST_SKIP() << encoded.message();
  ASSERT_OK(encoded);
  auto reader = AudioFileReader::Open(path);
  ASSERT_OK(reader);
  EXPECT_EQ(reader->info().codec, "aac");
  auto audio = DecodeAudioFile(path);
  ASSERT_OK(audio);
  EXPECT_NEAR(audio->duration().seconds(), 2.0, 0.07);
  EXPECT_NEAR(ToneFrequency(Middle(*audio), 16000), kToneHz, kToneHz * 0.005);
}

TEST(AudioDecoderTest, VideoWithoutAudioIsAClearError) {
  TempDir dir;
  const std::string path = dir.File("silent_film.mp4");
  absl::Status encoded = EncodeFile(path, "", 0, 0, {}, /*with_video=*/true);
  if (absl::IsUnavailable(encoded)) GTEST_SKIP() << encoded.message();
  ASSERT_OK(encoded);
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(audio.status().message(), HasSubstr(path));
  EXPECT_THAT(audio.status().message(), HasSubstr("no audio stream"));
  EXPECT_THAT(audio.status().message(), HasSubstr("video"));
}

TEST(AudioDecoderTest, MissingFileIsNotFoundNamingThePath) {
  TempDir dir;
  const std::string path = dir.File("nope.wav");
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(audio.status().message(), path + ": no such file");
}

TEST(AudioDecoderTest, UnreadableFileIsPermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not stop reading";
  TempDir dir;
  const std::string path = dir.File("locked.wav");
  WriteFile(path, WavBytes(WavEncoding::kS16, 16000, 1, Sine(kToneHz, kAmplitude, 16000, 1600)));
  std::filesystem::permissions(path, std::filesystem::perms::none);
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(audio.status().message(), path + ": permission denied");
}

TEST(AudioDecoderTest, DirectoryIsInvalidArgument) {
  TempDir dir;
  const std::string path = dir.File("folder.wav");
  std::filesystem::create_directory(path);
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(audio.status().message(), path + ": is a directory, not an audio file");
}

TEST(AudioDecoderTest, EmptyFileIsInvalidArgument) {
  TempDir dir;
  const std::string path = dir.File("empty.wav");
  WriteFile(path, "");
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(audio.status().message(), path + ": empty file (0 bytes), no audio");
}

TEST(AudioDecoderTest, TextFileIsInvalidArgument) {
  TempDir dir;
  const std::string path = dir.File("notes.wav");
  std::string text;
  for (int i = 0; i < 200; ++i) text += "This is a script line, not audio. 这不是音频。\n";
  WriteFile(path, text);
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(audio.status().message(), HasSubstr(path));
}

TEST(AudioDecoderTest, GarbageHeaderIsInvalidArgument) {
  TempDir dir;
  const std::string path = dir.File("garbage.wav");
  std::string bytes = WavBytes(WavEncoding::kS16, 16000, 1, Sine(kToneHz, kAmplitude, 16000, 16000));
  for (size_t i = 0; i < 44; ++i) bytes[i] = static_cast<char>((i * 37 + 11) & 0xff);  // header gone
  WriteFile(path, bytes);
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(audio.status().message(), HasSubstr(path));
}

TEST(AudioDecoderTest, RiffHeaderWithoutAFormatChunkIsInvalidArgument) {
  TempDir dir;
  const std::string path = dir.File("broken_riff.wav");
  std::string bytes = "RIFF";
  bytes += std::string("\x24\x10\x00\x00WAVEjunk\x04\x00\x00\x00", 16);
  bytes += std::string(4000, '\x01');
  WriteFile(path, bytes);
  auto audio = DecodeAudioFile(path);
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(audio.status().message(), HasSubstr(path));
}

TEST(AudioDecoderTest, TruncatedWavGivesTheAudioBeforeTheCut) {
  TempDir dir;
  const std::string path = dir.File("cut.wav");
  const std::string full = WavBytes(WavEncoding::kS16, 16000, 1, Sine(kToneHz, kAmplitude, 16000, 32000));
  const size_t keep_samples = 12345;
  WriteFile(path, full.substr(0, 44 + keep_samples * 2 + 1));  // cut mid-sample, too
  DecodeReport report;
  auto audio = DecodeAudioFile(path, 16000, &report);
  ASSERT_OK(audio);
  EXPECT_TRUE(report.truncated);
  EXPECT_NEAR(static_cast<double>(audio->frames()), keep_samples, 2.0);
  EXPECT_NEAR(ToneFrequency(Middle(*audio), 16000), kToneHz, kToneHz * 0.002);
}

TEST(AudioDecoderTest, TruncatedFlacGivesTheAudioBeforeTheCut) {
  TempDir dir;
  const std::string full_path = dir.File("full.flac");
  absl::Status encoded = EncodeFile(full_path, "flac", 16000, 1, Sine(kToneHz, kAmplitude, 16000, 48000));
  if (absl::IsUnavailable(encoded)) GTEST_SKIP() << encoded.message();
  ASSERT_OK(encoded);
  const std::string bytes = ReadFile(full_path);
  const std::string cut_path = dir.File("cut.flac");
  WriteFile(cut_path, bytes.substr(0, bytes.size() / 2));

  DecodeReport report;
  auto audio = DecodeAudioFile(cut_path, 16000, &report);
  ASSERT_OK(audio);
  EXPECT_TRUE(report.truncated);
  // Half the bytes (8 KiB of them FLAC's padding block) hold about a third of the audio.
  EXPECT_GT(audio->duration().seconds(), 0.5);
  EXPECT_LT(audio->duration().seconds(), 2.0);
  EXPECT_NEAR(ToneFrequency(Middle(*audio), 16000), kToneHz, kToneHz * 0.002);
}

TEST(AudioDecoderTest, CorruptFlacFramesAreSkippedAndCounted) {
  TempDir dir;
  const std::string path = dir.File("damaged.flac");
  absl::Status encoded = EncodeFile(path, "flac", 16000, 1, Sine(kToneHz, kAmplitude, 16000, 64000));
  if (absl::IsUnavailable(encoded)) GTEST_SKIP() << encoded.message();
  ASSERT_OK(encoded);
  std::string bytes = ReadFile(path);
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 200; ++i) bytes[i] = static_cast<char>(i * 91);
  WriteFile(path, bytes);

  DecodeReport report;
  auto audio = DecodeAudioFile(path, 16000, &report);
  ASSERT_OK(audio);
  EXPECT_GT(report.corrupt_packets, 0);
  EXPECT_GT(audio->duration().seconds(), 3.0);  // most of the 4 s survives
  EXPECT_LE(audio->duration().seconds(), 4.0);
}

TEST(AudioDecoderTest, AllCorruptDataIsInvalidArgument) {
  TempDir dir;
  const std::string path = dir.File("noise.flac");
  absl::Status encoded = EncodeFile(path, "flac", 16000, 1, Sine(kToneHz, kAmplitude, 16000, 32000));
  if (absl::IsUnavailable(encoded)) GTEST_SKIP() << encoded.message();
  ASSERT_OK(encoded);
  std::string bytes = ReadFile(path);
  // Keep the stream header (so the file opens as FLAC) and ruin every frame.
  for (size_t i = 8400; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131) ^ 0x5a);
  WriteFile(path, bytes);
  DecodeReport report;
  auto audio = DecodeAudioFile(path, 16000, &report);
  if (audio.ok()) {
    // Some frames may survive by chance; then only the damage report says so.
    EXPECT_GT(report.corrupt_packets + (report.truncated ? 1 : 0), 0);
  } else {
    EXPECT_EQ(audio.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(audio.status().message(), HasSubstr(path));
  }
}

TEST(AudioDecoderTest, RealRecordingsDecode) {
  const std::string jfk = testing::SpeechFile("en-jfk.wav");
  if (jfk.empty()) GTEST_SKIP() << "../shared/data/speech is absent (a clone without shared data)";
  auto audio = DecodeAudioFile(jfk);
  ASSERT_OK(audio);
  EXPECT_NEAR(audio->duration().seconds(), 11.0, 0.01);
  const std::string flac = testing::SpeechFile("en-librispeech-6930-75918-0000.flac");
  ASSERT_FALSE(flac.empty());
  auto reader = AudioFileReader::Open(flac);
  ASSERT_OK(reader);
  EXPECT_EQ(reader->info().codec, "flac");
  auto decoded = DecodeAudioFile(flac);
  ASSERT_OK(decoded);
  EXPECT_NEAR(decoded->duration().seconds(), reader->info().duration->seconds(), 0.01);
  EXPECT_GT(Rms(decoded->samples), 0.01);
}

}  // namespace
}  // namespace lingcast

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lingcast {
namespace {

// A TCP port on loopback that completes connections (the kernel's backlog) but
// never says a word: a stream server that hangs.
class SilentServer {
 public:
  SilentServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(fd_, 4), 0);
    socklen_t length = sizeof(address);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~SilentServer() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(AudioUrlTest, AServerThatNeverAnswersTimesOutWithTheUrlInTheError) {
  SilentServer server;
  const std::string url = "rtmp://127.0.0.1:" + std::to_string(server.port()) + "/live/host";
  absl::StatusOr<AudioFileReader> reader = AudioFileReader::OpenUrl(url, 16000, MediaTime::Millis(300));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kDeadlineExceeded) << reader.status();
  EXPECT_NE(reader.status().message().find(url), std::string::npos) << reader.status();
  EXPECT_NE(reader.status().message().find("no answer within 0.3 s"), std::string::npos) << reader.status();
}

TEST(AudioUrlTest, ARefusedConnectionIsUnavailable) {
  int port = 0;
  {
    SilentServer closed;  // a port that was free a moment ago, now closed again
    port = closed.port();
  }
  const std::string url = "rtmp://127.0.0.1:" + std::to_string(port) + "/live/host";
  absl::StatusOr<AudioFileReader> reader = AudioFileReader::OpenUrl(url, 16000, MediaTime::Seconds(5));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kUnavailable) << reader.status();
  EXPECT_NE(reader.status().message().find("cannot connect"), std::string::npos) << reader.status();
}

TEST(AudioUrlTest, OnlyUrlsAreUrls) {
  EXPECT_TRUE(AudioFileReader::IsUrl("rtmp://host/app/key"));
  EXPECT_TRUE(AudioFileReader::IsUrl("srt://127.0.0.1:9000?mode=caller"));
  EXPECT_FALSE(AudioFileReader::IsUrl("host.wav"));
  EXPECT_FALSE(AudioFileReader::IsUrl("://nothing"));
  EXPECT_FALSE(AudioFileReader::IsUrl("/tmp/a b://c"));
  EXPECT_EQ(AudioFileReader::OpenUrl("host.wav").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(AudioUrlTest, AUrlIsReadLikeTheFileItNames) {
  testing::TempDir dir;
  const std::string path = dir.File("url_source.wav");
  const std::vector<float> tone = testing::Sine(440, 0.5, 16000, 16000);
  testing::WriteFile(path, testing::WavBytes(testing::WavEncoding::kS16, 16000, 1, tone));
  absl::StatusOr<AudioBuffer> direct = DecodeAudioFile(path, 16000);
  ASSERT_OK(direct);
  absl::StatusOr<AudioFileReader> reader = AudioFileReader::OpenUrl("file://" + path, 16000, MediaTime::Seconds(5));
  ASSERT_OK(reader);
  std::vector<float> all;
  AudioBuffer chunk;
  while (true) {
    absl::StatusOr<bool> more = reader->Read(chunk);
    ASSERT_OK(more);
    if (!*more) break;
    all.insert(all.end(), chunk.samples.begin(), chunk.samples.end());
  }
  EXPECT_EQ(all, direct->samples);
}

}  // namespace
}  // namespace lingcast
