#include "core/process_stats.h"

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace lingcast {
namespace {

double ReadStatusKb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(key.size())) ;
  }
  return 0;
}

}  // namespace

double PeakRssMb() { return ReadStatusKb("VmHWM:") / 1024.0; }
double CurrentRssMb() { return ReadStatusKb("VmRSS:") / 1024.0; }

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

}  // namespace lingcast
