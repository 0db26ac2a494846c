// Script following end to end: espeak-ng speaks a show (script lines, in script
// order with one skipped and one repeated, and ad-libs between them); `RunFollow`
// (VAD -> pocketsphinx in script mode -> ScriptFollower) decides each utterance.
// Prints line accuracy on the scripted lines, how many ad-libs were called off
// script, the median commit point, and the processing time per hypothesis.
//
//   build/bench/follow_bench
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/follow_command.h"
#include "audio/resampler.h"
#include "core/status.h"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

const std::vector<std::pair<std::string, std::string>> kLines = {
    {"Welcome to the live room everyone", "欢迎大家来到直播间"},
    {"Today we have a very special face cream for you", "今天给大家带来一款特别的面霜"},
    {"It keeps your skin soft for the whole day", "它能让你的皮肤一整天都保持柔软"},
    {"This dress comes in red and in black", "这条裙子有红色和黑色"},
    {"The price today is only ninety nine yuan", "今天只要九十九元"},
    {"Buy one and get the second one for half price", "第二件半价"},
    {"Click the link below to buy it now", "点击下方链接立即购买"},
    {"We only have two hundred left in stock", "库存只剩两百件了"},
    {"Shipping is free to every city", "全国包邮"},
    {"Do not forget to follow our channel", "别忘了关注我们的频道"},
};
const std::vector<std::string> kAdLibs = {
    "Wow so many of you are here tonight",
    "My cat just jumped on the table, sorry about that",
    "The weather outside is terrible, I almost missed my bus",
    "Let me read some of your comments",
};

struct Utterance {
  std::string text;
  int line_number = 0;  // 0: an ad-lib
  double start_s = 0, end_s = 0;  // where it is in the audio
};

absl::StatusOr<AudioBuffer> Speak(std::vector<Utterance>& show) {
  EspeakOptions espeak;
  espeak.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  LC_ASSIGN_OR_RETURN(std::unique_ptr<EspeakEngine> engine, EspeakEngine::Create(espeak));
  AudioBuffer all{16000, 1, std::vector<float>(8000, 0.0f)};
  for (Utterance& u : show) {
    SynthesisRequest request;
    request.text = u.text;
    request.language = Language::kEn;
    request.voice = "en-gb";  // pocketsphinx's en-us model hears it better than espeak's en-us voice
    LC_ASSIGN_OR_RETURN(SynthesisResult speech, engine->Synthesize(request));
    LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(speech.audio.sample_rate, 16000));
    std::vector<float> converted;
    LC_RETURN_IF_ERROR(resampler.Push(speech.audio.samples, converted));
    LC_RETURN_IF_ERROR(resampler.Flush(converted));
    u.start_s = static_cast<double>(all.samples.size()) / 16000.0;
    all.samples.insert(all.samples.end(), converted.begin(), converted.end());
    u.end_s = static_cast<double>(all.samples.size()) / 16000.0;
    all.samples.resize(all.samples.size() + 16000, 0.0f);  // a second's pause: the endpoint
  }
  return all;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

int Run() {
  const std::string script = (std::filesystem::temp_directory_path() / "lingcast_follow_bench.script").string();
  {
    std::ofstream out(script);
    for (const auto& [en, zh] : kLines) out << "en: " << en << " | zh: " << zh << "\n";
  }
  // The show: lines in order, line 6 skipped, line 3 said twice, an ad-lib every few lines.
  std::vector<Utterance> show;
  size_t adlib = 0;
  for (int i = 0; i < static_cast<int>(kLines.size()); ++i) {
    if (i == 5) continue;
    show.push_back({kLines[static_cast<size_t>(i)].first, i + 1});
    if (i == 2) show.push_back({kLines[2].first, 3});
    if (i % 3 == 1 && adlib < kAdLibs.size()) show.push_back({kAdLibs[adlib++], 0});
  }
  while (adlib < kAdLibs.size()) show.push_back({kAdLibs[adlib++], 0});

  absl::StatusOr<AudioBuffer> audio = Speak(show);
  if (!audio.ok()) {
    std::fprintf(stderr, "follow_bench: %s\n", std::string(audio.status().message()).c_str());
    return 1;
  }
  size_t position = 0;
  AudioSource read = [&](AudioBuffer& chunk) -> absl::StatusOr<bool> {
    if (position >= audio->samples.size()) return false;
    const size_t take = std::min<size_t>(1600, audio->samples.size() - position);
    chunk = AudioBuffer{16000, 1,
                        std::vector<float>(audio->samples.begin() + static_cast<std::ptrdiff_t>(position),
                                           audio->samples.begin() + static_cast<std::ptrdiff_t>(position + take))};
    position += take;
    return true;
  };
  FollowCommandOptions options;
  options.script_path = script;
  Logger logger(LogLevel::kError);
  std::vector<FollowRecord> records;
  absl::StatusOr<FollowSummary> summary =
      RunFollow(options, read, [&](const FollowRecord& r) { records.push_back(r); }, logger);
  std::filesystem::remove(script);
  if (!summary.ok()) {
    std::fprintf(stderr, "follow_bench: %s\n", std::string(summary.status().message()).c_str());
    return 1;
  }

  // Each record belongs to the utterance its speech overlaps most.
  int scripted = 0, scripted_right = 0, adlibs = 0, adlibs_off = 0;
  std::vector<double> commit_points;
  std::printf("%-52s  %-6s %s\n", "said", "truth", "decided [heard]");
  for (const Utterance& u : show) {
    std::vector<const FollowRecord*> mine;
    for (const FollowRecord& record : records) {
      const double a = std::max(u.start_s, record.utterance_start.seconds());
      const double b = std::min(u.end_s, record.utterance_end.seconds());
      if (b - a > 0.5 * (u.end_s - u.start_s) || (b > a && b - a > 0.5 * (record.utterance_end - record.utterance_start).seconds())) {
        mine.push_back(&record);
      }
    }
    std::string decided;
    for (const FollowRecord* record : mine) {
      decided += (decided.empty() ? "" : ", ") +
                 (record->decision.off_script ? std::string("off script")
                                              : "line " + std::to_string(record->decision.line_number)) +
                 " [" + record->source_text + "]";
    }
    std::printf("%-52s  %-6s %s\n", u.text.substr(0, 52).c_str(),
                u.line_number ? std::to_string(u.line_number).c_str() : "ad-lib",
                decided.empty() ? "(nothing)" : decided.c_str());
    if (u.line_number) {
      ++scripted;
      for (const FollowRecord* record : mine) {
        if (!record->decision.off_script && record->decision.line_number == u.line_number) {
          ++scripted_right;
          if (record->decision.commit_point) commit_points.push_back(*record->decision.commit_point);
          break;
        }
      }
    } else {
      ++adlibs;
      const bool all_off = !mine.empty() && std::all_of(mine.begin(), mine.end(), [](const FollowRecord* record) {
        return record->decision.off_script;
      });
      if (all_off) ++adlibs_off;
    }
  }
  std::printf("\nutterances said %zu, decisions %zu\n", show.size(), records.size());
  std::printf("scripted lines followed right: %d of %d (%.0f%%)\n", scripted_right, scripted,
              100.0 * scripted_right / std::max(1, scripted));
  std::printf("ad-libs called off script:     %d of %d (%.0f%%)\n", adlibs_off, adlibs,
              100.0 * adlibs_off / std::max(1, adlibs));
  std::printf("commit point (fraction of the line heard), median of the right ones: %.2f\n",
              Percentile(commit_points, 0.5));
  std::printf("processing per hypothesis: p50 %.1f ms, p95 %.1f ms (%zu hypotheses)\n",
              Percentile(summary->hypothesis_ms, 0.5), Percentile(summary->hypothesis_ms, 0.95),
              summary->hypothesis_ms.size());
  return 0;
}

}  // namespace
}  // namespace lingcast

int main() { return lingcast::Run(); }
