#include "core/logger.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The neural plug-in's logger: records at its level and above go to the
// forward function (across the C ABI to the host's logger), the rest nowhere.
TEST(LoggerTest, AForwardingLoggerHandsOnItsRecordsWithTheirFields) {
  std::vector<std::string> forwarded;
  Logger logger(LogLevel::kInfo, [&](LogLevel level, std::string_view component, std::string_view message,
                                     absl::Span<const Logger::Field> fields) {
    std::string record = Logger::Format(level, component, message, fields);
    forwarded.push_back(record.substr(record.find(" level=") + 1));
  });
  logger.Debug("whisper", "partial decoded", {{"decode_ms", "12.5"}});
  logger.Info("whisper", "partial decoded", {{"decode_ms", "12.5"}, {"window_ms", "500"}});
  const std::vector<Logger::Field> fields = {{"model", "a b"}};
  logger.LogFields(LogLevel::kWarning, "asr", "loaded", fields);
  EXPECT_EQ(forwarded, (std::vector<std::string>{
                           "level=info component=whisper msg=\"partial decoded\" decode_ms=12.5 window_ms=500",
                           "level=warn component=asr msg=loaded model=\"a b\""}));
  EXPECT_EQ(logger.level(), LogLevel::kInfo);
}

TEST(LoggerTest, ParsesLevels) {
  EXPECT_EQ(*ParseLogLevel("INFO"), LogLevel::kInfo);
  EXPECT_FALSE(ParseLogLevel("loud").ok());
}

}  // namespace
}  // namespace lingcast
