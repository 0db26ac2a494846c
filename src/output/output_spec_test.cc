#include "output/output_spec.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ParseOutputSpecTest, RecognisesEveryKind) {
  auto mp4 = ParseOutputSpec("out/talk.MP4");
  ASSERT_OK(mp4);
  EXPECT_EQ(mp4->kind, OutputSpec::kMp4);
  EXPECT_EQ(mp4->target, "out/talk.MP4");

  auto hls = ParseOutputSpec("hls:/tmp/live");
  ASSERT_OK(hls);
  EXPECT_EQ(hls->kind, OutputSpec::kHls);
  EXPECT_EQ(hls->target, "/tmp/live");

  auto rtmp = ParseOutputSpec("rtmp://127.0.0.1:1935/live/secretkey");
  ASSERT_OK(rtmp);
  EXPECT_EQ(rtmp->kind, OutputSpec::kRtmp);
  EXPECT_TRUE(rtmp->is_network());

  auto rtmps = ParseOutputSpec("RTMPS://a.example/app/k");
  ASSERT_OK(rtmps);
  EXPECT_EQ(rtmps->kind, OutputSpec::kRtmp);

  auto srt = ParseOutputSpec("srt://10.0.0.1:9000?passphrase=abcdefghij");
  ASSERT_OK(srt);
  EXPECT_EQ(srt->kind, OutputSpec::kSrt);
}

TEST(ParseOutputSpecTest, UnknownSchemeIsNamed) {
  auto udp = ParseOutputSpec("udp://1.2.3.4:5000");
  ASSERT_FALSE(udp.ok());
  EXPECT_EQ(udp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(udp.status().message(), HasSubstr("unknown output scheme \"udp://\""));

  auto dash = ParseOutputSpec("dash:out");
  ASSERT_FALSE(dash.ok());
  EXPECT_THAT(dash.status().message(), HasSubstr("\"dash:\""));
}

TEST(ParseOutputSpecTest, BadTargetsAreNamed) {
  EXPECT_THAT(ParseOutputSpec("talk.mkv").status().message(), HasSubstr("must end in .mp4"));
  EXPECT_THAT(ParseOutputSpec("hls:").status().message(), HasSubstr("needs a directory"));
  EXPECT_THAT(ParseOutputSpec("rtmp:///live/key").status().message(), HasSubstr("no host"));
  EXPECT_THAT(ParseOutputSpec("rtmp://host").status().message(), HasSubstr("application and a stream key"));
  EXPECT_THAT(ParseOutputSpec("").status().message(), HasSubstr("empty"));
}

TEST(OutputSpecTest, DisplayNameHidesSecrets) {
  EXPECT_EQ(ParseOutputSpec("rtmp://h/live/secretkey")->DisplayName(), "rtmp://h/live/***");
  EXPECT_THAT(ParseOutputSpec("srt://h:1?passphrase=abcdefghij")->DisplayName(), Not(HasSubstr("abcdefghij")));
  EXPECT_EQ(ParseOutputSpec("hls:dir")->DisplayName(), "hls:dir");
}

}  // namespace
}  // namespace lingcast
