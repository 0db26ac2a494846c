#include "app/progress.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(ProgressBarTest, FormatsFractionSpeedAndEta) {
  const std::string line = ProgressBar::Format(150, 300, true, 5.0, 1.0, "frames");
  EXPECT_NE(line.find(" 50%"), std::string::npos) << line;
  EXPECT_NE(line.find("150/300 frames"), std::string::npos) << line;
  EXPECT_NE(line.find("5.0x realtime"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 0:01"), std::string::npos) << line;
}

TEST(ProgressBarTest, MarksAGrowingTotal) {
  const std::string line = ProgressBar::Format(10, 20, false, 0.3, 0.1, "frames");
  EXPECT_NE(line.find("10/~20"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA --:--"), std::string::npos) << line;
}

TEST(ProgressBarTest, DisabledBarWritesNothing) {
  char buffer[256] = {};
  std::FILE* f = fmemopen(buffer, sizeof(buffer), "w");
  {
    ProgressBar bar(false, f);
    bar.Update(1, 2, true, 1, 1);
  }
  std::fclose(f);
  EXPECT_STREQ(buffer, "");
}

}  // namespace
}  // namespace lingcast
