#include "live_show.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "app/studio.h"
#include "audio/resampler.h"
#include "audio/test_audio.h"
#include "core/status.h"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

const std::vector<std::pair<std::string, std::string>> kLines = {
    {"Welcome to the live room everyone", "欢迎大家来到直播间"},
    {"This dress comes in red and in black", "这条裙子有红色和黑色"},
    {"The price today is only ninety nine dollars", "今天只要九十九美元"},
    {"Click the link below to buy it now", "点击下方链接立即购买"},
    {"We only have two hundred left in stock", "库存只剩两百件了"},
    {"Do not forget to follow our channel", "别忘了关注我们的频道"},
    {"Thank you all for watching the show tonight", "感谢大家今晚收看节目"},
};
const std::vector<std::string> kAdLibs = {"Wow so many of you are here tonight", "Let me read some of your comments"};

// The eleven-line show: a cast iron pan, its price, its care.
const std::vector<std::pair<std::string, std::string>> kElevenLines = {
    {"Tonight I want to show you our new cast iron pan", "今晚我想给大家展示我们的新款铸铁锅"},
    {"It heats evenly and keeps the heat for a long time", "它受热均匀，保温时间很长"},
    {"The usual price is eighty nine dollars", "平时的价格是八十九美元"},
    {"Today it is only fifty nine dollars", "今天只要五十九美元"},
    {"The first fifty orders get free shipping", "前五十个订单包邮"},
    {"It works on gas and on induction stoves", "燃气灶和电磁炉都能用"},
    {"Wash it by hand and dry it right away", "请手洗并立即擦干"},
    {"A thin layer of oil keeps it from rusting", "薄薄涂一层油可以防锈"},
    {"Each pan comes with a wooden handle cover", "每口锅都配一个木质把手套"},
    {"Click the yellow cart below to order", "点击下方黄色购物车下单"},
    {"Thank you for watching and see you tomorrow", "感谢收看，我们明天见"},
};
const std::vector<std::string> kElevenAdLibs = {"Oh I see a lot of people joining right now hi everybody",
                                                "Let me check the stock for you one moment"};

}  // namespace

const std::vector<std::pair<std::string, std::string>>& Lines(const ShowSpec& spec) {
  return spec.eleven ? kElevenLines : kLines;
}

// The show once. Seven: every line, an ad-lib after the second and the fifth.
// Eleven: line 8 skipped, 10 said before 9, an ad-lib after the third and the sixth.
std::vector<std::string> Show(const ShowSpec& spec) {
  std::vector<std::string> said;
  if (spec.eleven) {
    for (const int i : {0, 1, 2, -1, 3, 4, 5, -2, 6, 9, 8, 10}) {
      said.push_back(i >= 0 ? kElevenLines[i].first : kElevenAdLibs[-i - 1]);
    }
    return said;
  }
  for (size_t i = 0; i < kLines.size(); ++i) {
    said.push_back(kLines[i].first);
    if (i == 1) said.push_back(kAdLibs[0]);
    if (i == 4) said.push_back(kAdLibs[1]);
  }
  return said;
}

// The host's voice: espeak-ng en-gb, or the installed English neural voice.
static absl::StatusOr<std::unique_ptr<TtsEngine>> HostVoice(const ShowSpec& spec) {
  if (spec.neural_host) {
    LC_ASSIGN_OR_RETURN(const StudioVoiceChoice choice, ChooseStudioVoice("auto", "", ""));
    if (!choice.english_dir.empty()) {
      std::printf("host voice: %s\n", choice.english_dir.c_str());
      return MakeStudioVoice(choice, "", "", NeuralDeviceFlags{}, nullptr);
    }
    std::printf("host voice: no neural English voice installed (%s); espeak-ng en-gb\n", choice.reason.c_str());
  }
  EspeakOptions espeak;
  espeak.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  LC_ASSIGN_OR_RETURN(std::unique_ptr<EspeakEngine> engine, EspeakEngine::Create(espeak));
  return std::unique_ptr<TtsEngine>(std::move(engine));
}

absl::Status WriteHost(const std::string& path, int repeats, const ShowSpec& spec) {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsEngine> engine, HostVoice(spec));
  const bool espeak_host = engine->name() == "espeak-ng";
  std::vector<int16_t> once(8000, 0);
  for (const std::string& text : Show(spec)) {
    SynthesisRequest request;
    request.text = text + ".";
    request.language = Language::kEn;
    if (espeak_host) request.voice = "en-gb";
    LC_ASSIGN_OR_RETURN(SynthesisResult speech, engine->Synthesize(request));
    LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(speech.audio.sample_rate, 16000));
    std::vector<float> converted;
    LC_RETURN_IF_ERROR(resampler.Push(speech.audio.samples, converted));
    LC_RETURN_IF_ERROR(resampler.Flush(converted));
    for (float s : converted) once.push_back(static_cast<int16_t>(std::clamp(s, -1.0f, 1.0f) * 32767));
    once.resize(once.size() + 16000 * 6 / 5, 0);  // 1.2 s between lines
  }
  std::vector<int16_t> all;
  for (int i = 0; i < repeats; ++i) all.insert(all.end(), once.begin(), once.end());
  // A canonical 16-bit mono WAV.
  const std::string wav = lingcast::testing::RawWavBytes(
      1, 16000, 1, 16, std::string_view(reinterpret_cast<const char*>(all.data()), all.size() * sizeof(int16_t)));
  std::ofstream out(path, std::ios::binary);
  out.write(wav.data(), static_cast<std::streamsize>(wav.size()));
  return out ? absl::OkStatus() : absl::InternalError("cannot write " + path);
}

double Seconds(const std::string& wav) {
  return static_cast<double>(std::filesystem::file_size(wav) - 44) / 32000.0;
}

absl::Status WriteScript(const std::string& path, const ShowSpec& spec) {
  std::ofstream out(path);
  for (const auto& [en, zh] : Lines(spec)) out << "en: " << en << " | zh: " << zh << "\n";
  return out ? absl::OkStatus() : absl::InternalError("cannot write " + path);
}

absl::StatusOr<std::filesystem::path> WriteShowDir(const std::string& name, const ShowSpec& spec) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("lingcast_" + name + "_XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return absl::InternalError("cannot make a folder like " + pattern);
  const std::filesystem::path dir = pattern;
  LC_RETURN_IF_ERROR(WriteHost((dir / "host.wav").string(), 1, spec));
  LC_RETURN_IF_ERROR(WriteScript((dir / "show.script").string(), spec));
  return dir;
}

}  // namespace lingcast
