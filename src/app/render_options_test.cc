#include "app/render_options.h"
#include "core/status_matchers.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(ParseSizeTest, AcceptsCommonSizes) {
  int w = 0, h = 0;
  ASSERT_OK(ParseSize("1280x720", &w, &h));
  EXPECT_EQ(w, 1280);
  EXPECT_EQ(h, 720);
  ASSERT_OK(ParseSize("3840x2160", &w, &h));
  ASSERT_OK(ParseSize("640X360", &w, &h));
}

TEST(ParseSizeTest, RejectsAbsurdAndOddSizesWithAClearLine) {
  int w = 7, h = 7;
  for (const char* bad : {"0x0", "100000x100000", "1281x720", "1280x721", "abc", "1280", "x720", "12.5x10", "-2x4"}) {
    const absl::Status s = ParseSize(bad, &w, &h);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find(std::string("--size ") + bad), absl::string_view::npos) << s.message();
  }
  EXPECT_EQ(w, 7);  // untouched on error
  EXPECT_NE(ParseSize("1281x720", &w, &h).message().find("even"), absl::string_view::npos);
}

TEST(RenderOptionsTest, ValidatesFpsRateAndCrf) {
  RenderOptions o;
  o.output_path = "out.mp4";
  EXPECT_OK(ValidateRenderOptions(o));
  o.fps = 0;
  EXPECT_NE(ValidateRenderOptions(o).message().find("--fps 0"), absl::string_view::npos);
  o.fps = 1000;
  EXPECT_EQ(ValidateRenderOptions(o).code(), absl::StatusCode::kInvalidArgument);
  o.fps = 60;
  o.rate = 10;
  EXPECT_NE(ValidateRenderOptions(o).message().find("--rate"), absl::string_view::npos);
  o.rate = 1;
  o.crf = 99;
  EXPECT_NE(ValidateRenderOptions(o).message().find("--crf"), absl::string_view::npos);
}

TEST(RenderOptionsTest, ValidatesTheRenderer) {
  RenderOptions o;
  o.output_path = "out.mp4";
  EXPECT_EQ(o.renderer, "auto");
  for (const char* renderer : {"auto", "cpu", "cuda"}) {
    o.renderer = renderer;
    EXPECT_OK(ValidateRenderOptions(o)) << renderer;  // whether cuda can run is the job's question
  }
  o.renderer = "metal";
  const absl::Status status = ValidateRenderOptions(o);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "--renderer metal: must be auto, cpu or cuda");
}

TEST(RenderOptionsTest, ParsesModes) {
  EXPECT_EQ(*ParseSpeakMode("both"), SpeakMode::kBoth);
  EXPECT_EQ(*ParseSubtitleMode("srt"), SubtitleMode::kSrt);
  EXPECT_FALSE(ParseSpeakMode("fr").ok());
  EXPECT_FALSE(ParseSubtitleMode("soft").ok());
}

TEST(RenderOptionsTest, ValidatesCompositorFlags) {
  RenderOptions o;
  o.output_path = "out.mp4";
  o.background_fit = "zoom";
  EXPECT_NE(ValidateRenderOptions(o).message().find("--background-fit zoom"), absl::string_view::npos);
  o.background_fit = "contain";
  o.subtitle_style = "neon";
  EXPECT_NE(ValidateRenderOptions(o).message().find("--subtitle-style neon"), absl::string_view::npos);
  o.subtitle_style = "shadow";
  o.title = "|Host";
  EXPECT_NE(ValidateRenderOptions(o).message().find("--title"), absl::string_view::npos);
  o.title = "Li Na|Host";
  EXPECT_OK(ValidateRenderOptions(o));
}

}  // namespace
}  // namespace lingcast
