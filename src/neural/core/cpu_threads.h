// How many CPU threads libtorch's intra-op pool uses.
//
// libtorch sizes its pool from what OpenMP reports at start-up, which on a
// container or VM can be fewer cores than the process may run on (on the 2-core
// build machine it used one, halving every matrix product). The engines' entry
// points call UseAvailableCpuThreads() once, so a model runs on the cores the
// process is allowed (sched_getaffinity), within a CPU quota where cgroups set
// one (cpu.max).
#pragma once

namespace lingcast::neural {

// The cores this process may run on: its affinity mask, bounded by a cgroup v2
// CPU quota when there is one; at least 1.
int AvailableCpuThreads();

// Sets libtorch's intra-op threads to AvailableCpuThreads() unless
// LINGCAST_CPU_THREADS (a positive number) says otherwise; returns the count set.
int UseAvailableCpuThreads();

}  // namespace lingcast::neural
