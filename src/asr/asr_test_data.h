// The real English recordings of ../shared/data/speech with their reference
// transcripts (../shared/data/README.md), and the script used to measure script
// mode: the references hidden among a dozen distractor lines. Shared by the asr,
// mt and app tests and bench/asr_bench.cc (which define LINGCAST_SOURCE_DIR).
#pragma once

#include <string>

namespace lingcast {

struct SpeechRecording {
  const char* file;
  const char* transcript;
};

inline constexpr SpeechRecording kJfk = {
    "en-jfk.wav",
    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."};
inline constexpr SpeechRecording kLibri = {"en-librispeech-6930-75918-0000.flac",
                                           "CONCORD RETURNED TO ITS PLACE AMIDST THE TENTS"};

inline std::string SpeechPath(const std::string& file) {
  return std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/" + file;
}

inline std::string NoDataMessage(const std::string& path) {
  return "test recording " + path + " is absent (../shared/data is not part of a clone); skipping";
}

// Twelve distractor lines (live-commerce talk, two of them Chinese), with both
// reference sentences in between.
inline std::string ScriptWithReferences() {
  return std::string(
             "en: Hello everyone, and welcome to the live stream. | zh: 大家好，欢迎来到直播间。\n"
             "Today we have a special offer on winter jackets.\n"
             "This jacket is only 99 dollars, and shipping is free.\n"
             "zh: 喜欢的朋友点击下方链接购买。 | en: Tap the link below to buy.\n"
             "Ask me anything about the sizes in the comments.\n") +
         kJfk.transcript +
         "\n"
         "The fabric is soft, warm and easy to wash.\n"
         "We have three colors: black, navy and forest green.\n"
         "zh: 现在下单还送一副手套。\n"
         "Only fifty pieces are left, so do not wait too long.\n" +
         kLibri.transcript +
         "\n"
         "Thank you for watching, and see you tomorrow night.\n"
         "Remember to follow the channel for more deals.\n";
}

}  // namespace lingcast
