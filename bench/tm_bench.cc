// Translation memory at show scale: load 100,000 pairs from a TSV file and look
// lines up (exact, fuzzy, miss), against a brute-force scan of every entry in the
// same run (the reference: what a memory without an index would cost).
//
//   build/bench/tm_bench [--entries N] [--queries N]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <time.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mt/match_text.h"
#include "mt/translation_memory.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

// Lookups are timed in this thread's CPU time: on a shared machine the wall
// time of a sub-millisecond call is mostly how long the thread waited for a core.
struct Clock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<Clock, duration>;
  static time_point now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(duration(static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec));
  }
};

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string PerturbOnce(const std::string& line, std::mt19937& rng);

// Live-commerce-like Chinese lines: random picks from phrase pools, so lines share
// words the way a real show's lines do.
std::string MakeLine(std::mt19937& rng) {
  static const std::vector<std::string> openers = {"家人们", "宝宝们", "姐妹们", "朋友们", "大家看", "今天", "现在", "最后"};
  static const std::vector<std::string> items = {"这款面霜", "这条裙子", "这个口红", "这双运动鞋", "这台手机", "这套茶具",
                                                 "这件外套", "这款耳机", "这个背包", "这瓶香水", "这盒月饼", "这款零食"};
  static const std::vector<std::string> claims = {"真的很好用", "质量特别好", "颜色很正", "非常显瘦", "性价比超高",
                                                  "回购率很高", "库存不多了", "只剩最后一批", "是我们的爆款", "特别适合送礼"};
  static const std::vector<std::string> deals = {"今天只要九十九元", "买一送一", "满三百减五十", "打八折", "包邮到家",
                                                 "前一百名送赠品", "下单立减二十", "限时秒杀", "两件八五折", "第二件半价"};
  std::uniform_int_distribution<int> number(1, 9999);
  auto pick = [&](const std::vector<std::string>& pool) {
    return pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
  };
  return pick(openers) + "，" + pick(items) + pick(claims) + "，" + pick(deals) + "，编号" + std::to_string(number(rng));
}

// `count` characters replaced (misheard 字).
std::string Perturb(const std::string& line, std::mt19937& rng, int count = 1) {
  std::string out = line;
  for (int i = 0; i < count; ++i) out = PerturbOnce(out, rng);
  return out;
}

std::string PerturbOnce(const std::string& line, std::mt19937& rng) {
  std::vector<CodePoint> chars = DecodeUtf8(line);
  std::vector<size_t> han;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (IsHan(chars[i].value)) han.push_back(i);
  }
  const size_t at = han[std::uniform_int_distribution<size_t>(0, han.size() - 1)(rng)];
  std::string out = line.substr(0, static_cast<size_t>(chars[at].offset));
  out += "嗯";
  out += line.substr(static_cast<size_t>(chars[at].offset + chars[at].length));
  return out;
}

struct Percentiles {
  double p50, p99, max;
};

Percentiles Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * static_cast<double>(ms.size())))]; };
  return {at(0.5), at(0.99), ms.back()};
}

int Run(int entries, int queries) {
  std::mt19937 rng(42);
  std::vector<std::string> sources;
  sources.reserve(static_cast<size_t>(entries));
  const std::string path = (std::filesystem::temp_directory_path() / "lingcast_tm_bench.tsv").string();
  {
    std::ofstream out(path);
    for (int i = 0; i < entries; ++i) {
      sources.push_back(MakeLine(rng));
      out << sources.back() << "\tEnglish line " << i << "\n";
    }
  }
  TranslationMemory tm;
  TmLoadReport report;
  const auto load_start = std::chrono::steady_clock::now();
  const std::clock_t load_cpu_start = std::clock();
  absl::Status loaded = tm.LoadFile(path, Language::kZh, Language::kEn, report);
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
  // CPU time too: on a shared machine the wall time includes waiting for a core.
  const double load_cpu_ms = 1000.0 * static_cast<double>(std::clock() - load_cpu_start) / CLOCKS_PER_SEC;
  std::filesystem::remove(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "tm_bench: %s\n", std::string(loaded.message()).c_str());
    return 1;
  }
  std::printf("translation memory: %d lines in the file, %zu entries (%d duplicate sources dropped)\n", entries,
              tm.size(), report.duplicates + report.conflicts);
  std::printf("load (read + index):      %8.1f ms wall, %.1f ms CPU\n", load_ms, load_cpu_ms);

  std::vector<double> exact_ms, fuzzy_ms, far_ms, miss_ms;
  int fuzzy_found = 0, far_found = 0;
  for (int q = 0; q < queries; ++q) {
    const std::string& line = sources[std::uniform_int_distribution<size_t>(0, sources.size() - 1)(rng)];
    auto t0 = Clock::now();
    bool hit = tm.Lookup(line, Language::kZh, Language::kEn).has_value();
    exact_ms.push_back(Ms(Clock::now() - t0));
    const std::string misheard = Perturb(line, rng);
    t0 = Clock::now();
    hit = tm.Lookup(misheard, Language::kZh, Language::kEn).has_value();
    fuzzy_ms.push_back(Ms(Clock::now() - t0));
    fuzzy_found += hit ? 1 : 0;
    const std::string far = Perturb(line, rng, 4);
    t0 = Clock::now();
    hit = tm.Lookup(far, Language::kZh, Language::kEn).has_value();
    far_ms.push_back(Ms(Clock::now() - t0));
    far_found += hit ? 1 : 0;
    t0 = Clock::now();
    (void)tm.Lookup("完全不相关的一句话，和商品没有关系，我们聊聊天气吧", Language::kZh, Language::kEn);
    miss_ms.push_back(Ms(Clock::now() - t0));
  }
  for (const auto& [name, samples] : {std::pair{"exact", &exact_ms}, std::pair{"fuzzy (1 char off)", &fuzzy_ms},
                                      std::pair{"fuzzy (4 chars off)", &far_ms}, std::pair{"miss", &miss_ms}}) {
    Percentiles p = Summarize(*samples);
    std::printf("lookup %-19s p50 %.3f ms  p99 %.3f ms  max %.3f ms (CPU time)\n", name, p.p50, p.p99, p.max);
  }
  std::printf("fuzzy lookups that found a match: %d of %d (1 char off), %d of %d (4 chars off)\n", fuzzy_found,
              queries, far_found, queries);

  // Reference: a linear scan computing the similarity to every line.
  std::vector<std::vector<uint32_t>> ids;
  std::unordered_map<std::string, uint32_t> vocabulary;
  auto to_ids = [&](const std::string& text) {
    std::vector<uint32_t> out;
    for (const std::string& token : MatchTokens(text)) {
      out.push_back(vocabulary.try_emplace(token, static_cast<uint32_t>(vocabulary.size())).first->second);
    }
    return out;
  };
  for (const std::string& source : sources) ids.push_back(to_ids(source));
  const int scans = std::min(queries, 20);
  std::vector<double> scan_ms;
  for (int q = 0; q < scans; ++q) {
    const std::vector<uint32_t> query = to_ids(Perturb(sources[static_cast<size_t>(q) * 7 % sources.size()], rng));
    const auto t0 = Clock::now();
    double best = 0;
    for (const std::vector<uint32_t>& entry : ids) best = std::max(best, TokenSimilarity(query, entry));
    scan_ms.push_back(Ms(Clock::now() - t0));
    if (best < 0.9) std::printf("(scan found only %.2f)\n", best);
  }
  const Percentiles scan = Summarize(scan_ms);
  const Percentiles fuzzy = Summarize(fuzzy_ms);
  std::printf("reference linear scan     p50 %.1f ms: the index is %.0fx faster (fuzzy p50)\n", scan.p50,
              scan.p50 / std::max(fuzzy.p50, 1e-6));
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  int entries = 100000, queries = 500;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--entries") entries = std::atoi(argv[i + 1]);
    else if (flag == "--queries") queries = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: tm_bench [--entries N] [--queries N]\n");
      return 2;
    }
  }
  if (entries < 1 || queries < 1) {
    std::fprintf(stderr, "tm_bench: --entries and --queries must be positive\n");
    return 2;
  }
  return lingcast::Run(entries, queries);
}
