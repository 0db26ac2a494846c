// `lingcast live` as a user runs it: an English host following a script (with
// ad-libs between the lines), the avatar interpreting into Mandarin, 720p30 to
// RTMP on loopback (nginx with the RTMP module, when installed) plus HLS.
//
//   build/bench/live_bench [REALTIME_SHOWS] [SOAK_MINUTES] [SOAK_SIZE] [SHOW] [HOST]
//
// SHOW: "seven" (the default: 7 script lines, all said in order, 2 ad-libs) or
// "eleven" (11 lines; the host skips one, says two out of order, and ad-libs
// twice, as the voice issue's held-out-style show). HOST: "espeak" (the default:
// espeak-ng en-gb) or "neural" (the installed English neural voice, Piper, as a
// host a recognizer hears like a person; espeak-ng when none is installed).
//
// 1. Real time (the system clock; the host recording is played at real time):
//    compute latency p50/p95, EndOffset median, the median commit point, CPU
//    use, peak RSS, audio and video drops. The reference in the same run is the
//    recording's own duration: the run must keep pace with it (x real time).
// 2. A soak on the simulated clock: the show looped for SOAK_MINUTES (default
//    30) of host audio, as fast as the CPU allows; RSS at the start and end.
//    SOAK_SIZE (default 1280x720) at 30 fps: a smaller frame soaks the same
//    pipeline in less CPU time on a shared machine.
// Prints figures; never fails on them.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/live_job.h"
#include "app/studio.h"
#include "audio/resampler.h"
#include "core/status.h"
#include "output/rtmp_test_server.h"
#include "tts/espeak_engine.h"

extern "C" {
#include <libavutil/log.h>
}

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

// What the bench's host says and with which voice (the SHOW and HOST arguments).
struct ShowSpec {
  bool eleven = false;
  bool neural_host = false;
};

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
absl::StatusOr<std::unique_ptr<TtsEngine>> HostVoice(const ShowSpec& spec) {
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
  std::ofstream out(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  const uint32_t bytes = static_cast<uint32_t>(all.size() * 2);
  out.write("RIFF", 4);
  u32(36 + bytes);
  out.write("WAVEfmt ", 8);
  u32(16);
  u16(1);
  u16(1);
  u32(16000);
  u32(32000);
  u16(2);
  u16(16);
  out.write("data", 4);
  u32(bytes);
  out.write(reinterpret_cast<const char*>(all.data()), bytes);
  return out ? absl::OkStatus() : absl::InternalError("cannot write " + path);
}

double Seconds(const std::string& wav) {
  return static_cast<double>(std::filesystem::file_size(wav) - 44) / 32000.0;
}

void PrintRun(const char* title, const nlohmann::json& report, double host_seconds) {
  const nlohmann::json& s = report["summary"];
  int lines = 0, ad_libs = 0;
  for (const auto& u : report["utterances"]) (u["line"].is_null() ? ad_libs : lines) += 1;
  std::printf("%s\n", title);
  std::printf("  host audio            %.1f s, run %.1f s wall (%.2fx real time)\n", host_seconds,
              s["wall_seconds"].get<double>(), host_seconds / std::max(0.001, s["wall_seconds"].get<double>()));
  std::printf("  decisions             %d script lines, %d off script; spoken %lld, skipped %lld, subtitles only %lld\n",
              lines, ad_libs, static_cast<long long>(s["spoken"].get<int64_t>()),
              static_cast<long long>(s["skipped"].get<int64_t>()),
              static_cast<long long>(s["subtitles_only"].get<int64_t>()));
  std::printf("  compute latency       p50 %.0f ms  p95 %.0f ms  p99 %.0f ms\n", s["compute_latency_ms"]["p50"].get<double>(),
              s["compute_latency_ms"]["p95"].get<double>(), s["compute_latency_ms"]["p99"].get<double>());
  std::printf("  queue wait            p50 %.0f ms  p95 %.0f ms (for the line before: the lag policy's)\n",
              s["queue_wait_ms"]["p50"].get<double>(), s["queue_wait_ms"]["p95"].get<double>());
  std::printf("  EndOffset             p50 %.0f ms  p95 %.0f ms\n", s["end_offset_ms"]["p50"].get<double>(),
              s["end_offset_ms"]["p95"].get<double>());
  std::printf("  StartOffset           p50 %.0f ms\n", s["start_offset_ms"]["p50"].get<double>());
  std::printf("  commit point          median %.2f (fraction of the line heard)\n", s["commit_point"]["p50"].get<double>());
  std::printf("  CPU                   %.0f%% of one core (2 cores = 200%%)\n", s["cpu_percent"].get<double>());
  std::printf("  RSS                   start %.0f MB, end %.0f MB, peak %.0f MB\n", s["rss_start_mb"].get<double>(),
              s["rss_end_mb"].get<double>(), s["peak_rss_mb"].get<double>());
  std::printf("  drops                 audio %lld, video %lld\n", static_cast<long long>(s["audio_drops"].get<int64_t>()),
              static_cast<long long>(s["video_drops"].get<int64_t>()));
  for (const auto& o : s["outputs"]) {
    std::printf("  output %-28s %.0f kbit/s, %lld reconnects %s\n", o["name"].get<std::string>().c_str(),
                o["bitrate"].get<double>() / 1000, static_cast<long long>(o["reconnects"].get<int64_t>()),
                o["error"].get<std::string>().c_str());
  }
  std::printf("  %-44s %6s %6s %9s %9s %9s %5s\n", "utterance", "commit", "decided", "compute", "wait", "EndOffset",
              "rate");
  constexpr size_t kMostRowsShown = 40;  // a soak has hundreds: its summary says enough
  if (report["utterances"].size() > kMostRowsShown) {
    std::printf("  (%zu utterances: the table is left out)\n", report["utterances"].size());
  }
  for (const auto& u : report["utterances"]) {
    if (report["utterances"].size() > kMostRowsShown) break;
    auto ms = [](const nlohmann::json& v) { return v.is_null() ? -1.0 : v.get<double>(); };
    std::printf("  %-44.44s %6.2f %6.1fs %7.0fms %7.0fms %7.0fms %5.2f\n", u["source_text"].get<std::string>().c_str(),
                u["commit_point"].is_null() ? -1.0 : u["commit_point"].get<double>(), ms(u["decided_at_ms"]) / 1000,
                ms(u["compute_latency_ms"]), ms(u["queue_wait_ms"]), ms(u["end_offset_ms"]),
                u.contains("rate") && u["rate"].is_number() ? u["rate"].get<double>() : 0.0);
  }
  for (const auto& [boundary, stage] : report["stage_latency"].items()) {
    std::printf("  stage %-16s p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms\n", boundary.c_str(),
                stage["p50_ms"].get<double>(), stage["p95_ms"].get<double>(), stage["max_ms"].get<double>());
  }
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  const int realtime_shows = argc > 1 ? std::atoi(argv[1]) : 1;
  const double soak_minutes = argc > 2 ? std::atof(argv[2]) : 30;
  int soak_width = 1280, soak_height = 720;
  if (argc > 3 && std::sscanf(argv[3], "%dx%d", &soak_width, &soak_height) != 2) {
    std::fprintf(stderr, "SOAK_SIZE must be WIDTHxHEIGHT, not %s\n", argv[3]);
    return 2;
  }
  const std::string show = argc > 4 ? argv[4] : "seven", host_voice = argc > 5 ? argv[5] : "espeak";
  if ((show != "seven" && show != "eleven") || (host_voice != "espeak" && host_voice != "neural")) {
    std::fprintf(stderr, "SHOW is seven or eleven, HOST espeak or neural (not %s, %s)\n", show.c_str(), host_voice.c_str());
    return 2;
  }
  const ShowSpec spec{show == "eleven", host_voice == "neural"};
  setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
  // A directory of its own: two runs at once (a soak and a real-time run) must
  // not delete each other's outputs.
  std::string pattern = (std::filesystem::temp_directory_path() / "lingcast_live_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::filesystem::path dir = pattern;
  const std::string script = (dir / "show.script").string();
  {
    std::ofstream out(script);
    for (const auto& [en, zh] : Lines(spec)) out << "en: " << en << " | zh: " << zh << "\n";
  }
  Logger logger(LogLevel::kError);
  av_log_set_level(AV_LOG_ERROR);

  // The server first: nginx must not inherit the signal mask SignalWatcher sets,
  // or it would ignore the signal that stops it.
  std::optional<testing_util::RtmpTestServer> server;
  std::vector<std::string> outputs = {"hls:" + (dir / "hls").string()};
  if (testing_util::RtmpTestServer::Available()) {
    server.emplace();
    if (server->Start()) outputs.push_back(server->Url("live", "bench"));
  }
  if (outputs.size() == 1) std::printf("(nginx with the RTMP module is not installed: HLS only)\n");
  SignalWatcher signals;

  if (realtime_shows > 0) {
    const std::string host = (dir / "host.wav").string();
    if (absl::Status s = WriteHost(host, realtime_shows, spec); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    LiveOptions options;
    options.input = host;
    options.outputs = outputs;
    options.script_path = script;
    options.quiet = true;
    std::istringstream no_stdin;
    absl::StatusOr<nlohmann::json> report = RunLive(options, logger, signals, no_stdin, nullptr);
    if (!report.ok()) {
      std::fprintf(stderr, "realtime run: %s\n", report.status().ToString().c_str());
      return 1;
    }
    const std::string title = "live, real time, 720p30, English host (" + host_voice + ", " + show +
                              " lines) -> Mandarin avatar, RTMP + HLS";
    PrintRun(title.c_str(), *report, Seconds(host));
  }

  if (soak_minutes > 0) {
    const std::string host = (dir / "soak.wav").string();
    const double show_seconds = [&] {
      (void)WriteHost(host, 1, spec);
      return Seconds(host);
    }();
    const int repeats = std::max(1, static_cast<int>(soak_minutes * 60 / show_seconds + 0.999));
    if (absl::Status s = WriteHost(host, repeats, spec); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    LiveOptions options;
    options.input = host;
    options.outputs = {"hls:" + (dir / "soak_hls").string()};
    if (outputs.size() > 1) options.outputs.push_back(server->Url("live", "soak"));
    options.script_path = script;
    options.clock = LiveClock::kSimulated;
    options.width = soak_width;
    options.height = soak_height;
    options.quiet = true;
    std::istringstream no_stdin;
    absl::StatusOr<nlohmann::json> report = RunLive(options, logger, signals, no_stdin, nullptr);
    if (!report.ok()) {
      std::fprintf(stderr, "soak run: %s\n", report.status().ToString().c_str());
      return 1;
    }
    const std::string title = "soak, simulated clock, " + std::to_string(soak_width) + "x" + std::to_string(soak_height) +
                              " at 30 fps, the show looped";
    PrintRun(title.c_str(), *report, Seconds(host));
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
