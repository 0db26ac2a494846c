#include "lipsync/test_speech.h"

#include "audio/resampler.h"
#include "core/status.h"
#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {

absl::StatusOr<SpokenSample> SpeakForLipSync(EspeakEngine& engine, const std::string& text, Language language) {
  SynthesisRequest request;
  request.text = text;
  request.language = language;
  LC_ASSIGN_OR_RETURN(SynthesisResult result, engine.Synthesize(request));
  SpokenSample sample;
  sample.phonemes = result.track;
  sample.reference = PhonemesToVisemes(result.track);
  sample.audio.sample_rate = 16000;
  LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(result.audio.sample_rate, 16000));
  LC_RETURN_IF_ERROR(resampler.Push(result.audio.samples, sample.audio.samples));
  LC_RETURN_IF_ERROR(resampler.Flush(sample.audio.samples));
  return sample;
}

const std::vector<std::string>& SampleSentences(Language language) {
  static const std::vector<std::string> en = {
      "Hello everyone, welcome to the live stream.",
      "Today we have a special offer on this warm winter jacket.",
      "Tap the blue button below to buy it before midnight.",
      "Would you like to see the other colours? Let me show you.",
      "Good morning! Thank you all for joining our show.",
      "The price is only ninety nine dollars, with free shipping.",
  };
  static const std::vector<std::string> zh = {
      "大家好，欢迎来到直播间。",
      "今天我们有特别优惠。",
      "喜欢的朋友点击下方链接购买。",
      "这件夹克只要九十九元，包邮。",
      "我们马上开始抽奖，不要走开。",
      "谢谢大家的支持，明天见。",
  };
  return language == Language::kZh ? zh : en;
}

}  // namespace lingcast
