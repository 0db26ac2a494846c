#include "neural/core/cpu_threads.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <ATen/Parallel.h>

namespace lingcast::neural {
namespace {

// cgroup v2's "cpu.max": "QUOTA PERIOD" or "max PERIOD"; 0 when unlimited or unreadable.
int CgroupCpuLimit() {
  std::ifstream in("/sys/fs/cgroup/cpu.max");
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return 0;
  const double cores = std::atof(quota.c_str()) / period;
  return cores > 0 ? std::max(1, static_cast<int>(std::ceil(cores))) : 0;
}

}  // namespace

int AvailableCpuThreads() {
  int cores = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = CPU_COUNT(&set);
  if (cores <= 0) cores = static_cast<int>(std::thread::hardware_concurrency());
  if (const int limit = CgroupCpuLimit(); limit > 0) cores = std::min(cores, limit);
  return std::max(cores, 1);
}

int UseAvailableCpuThreads() {
  int threads = AvailableCpuThreads();
  if (const char* env = std::getenv("LINGCAST_CPU_THREADS"); env != nullptr && std::atoi(env) > 0) threads = std::atoi(env);
  if (at::get_num_threads() != threads) at::set_num_threads(threads);
  return threads;
}

}  // namespace lingcast::neural
