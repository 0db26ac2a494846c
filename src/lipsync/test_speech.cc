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
      "Pick your favourite flavour: mango, lemon or blueberry.",
      "Our shoes are made of soft brown leather.",
      "Who wants a coupon? Comment now and I will pick three of you.",
      "This phone case fits the new model perfectly.",
      "Hold the bottle upside down and shake it for a moment.",
      "Remember to follow us so you never miss a deal.",
      "The wool is warm, light and very smooth.",
      "Only forty boxes are left, so hurry up.",
  };
  static const std::vector<std::string> zh = {
      "大家好，欢迎来到直播间。",
      "今天我们有特别优惠。",
      "喜欢的朋友点击下方链接购买。",
      "这件夹克只要九十九元，包邮。",
      "我们马上开始抽奖，不要走开。",
      "谢谢大家的支持，明天见。",
      "这双鞋是真皮的，穿起来很舒服。",
      "芒果味和柠檬味都卖得很好。",
      "想要优惠券的朋友在评论区扣一。",
      "这个手机壳非常薄，手感很好。",
      "买一送一，活动只到今晚十二点。",
      "我们的羊毛衫又轻又暖和。",
      "库存只剩四十件了，抓紧时间。",
      "欢迎新朋友，喜欢主播的点点关注。",
  };
  return language == Language::kZh ? zh : en;
}

const std::vector<std::string>& HeldOutSentences(Language language) {
  static const std::vector<std::string> en = {
      "Maybe you remember the blue bag we sold last month.",
      "Please be patient, the boxes are packed by hand.",
      "Our team picks every apple from the farm by the river.",
      "Look at the pocket; it opens with a small metal button.",
      "If you order two, the second one is half price.",
      "We ship to most countries, and returns are free for thirty days.",
      "Check the size chart before you buy, please.",
      "Thank you, Mary, for the lovely message about the boots.",
  };
  static const std::vector<std::string> zh = {
      "这款保温杯可以保温十二个小时。",
      "买两件的话，第二件半价。",
      "请大家耐心等待，马上发货。",
      "主播身上穿的是中号，大家可以参考。",
      "这个包包有三种颜色，黑色最受欢迎。",
      "新来的朋友记得点个关注。",
      "我们的苹果都是从果园直接发出的。",
      "有问题可以在评论区留言，我会一一回答。",
  };
  return language == Language::kZh ? zh : en;
}

std::vector<std::string> AllSentences(Language language) {
  std::vector<std::string> all = SampleSentences(language);
  const std::vector<std::string>& held_out = HeldOutSentences(language);
  all.insert(all.end(), held_out.begin(), held_out.end());
  return all;
}

}  // namespace lingcast
