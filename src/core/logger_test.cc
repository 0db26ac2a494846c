#include "core/logger.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(LoggerTest, FormatsLogfmtAndQuotes) {
  const std::string line = Logger::Format(LogLevel::kWarning, "tts", "voice missing",
                                          {{"voice", "cmn"}, {"path", "a b"}});
  EXPECT_NE(line.find("level=warn component=tts msg=\"voice missing\" voice=cmn path=\"a b\""),
            std::string::npos)
      << line;
}

TEST(LoggerTest, QuietByDefault) {
  Logger logger;
  EXPECT_FALSE(logger.Enabled(LogLevel::kInfo));
  EXPECT_TRUE(logger.Enabled(LogLevel::kWarning));
  Logger off(LogLevel::kOff);
  EXPECT_FALSE(off.Enabled(LogLevel::kError));
}

TEST(LoggerTest, ParsesLevels) {
  EXPECT_EQ(*ParseLogLevel("INFO"), LogLevel::kInfo);
  EXPECT_FALSE(ParseLogLevel("loud").ok());
}

}  // namespace
}  // namespace lingcast
