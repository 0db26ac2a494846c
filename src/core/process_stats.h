// Figures about this process, for summaries and benchmarks.
#pragma once

namespace lingcast {

// Peak resident set size (VmHWM) in MiB; 0 where /proc is not available.
double PeakRssMb();
// Current resident set size (VmRSS) in MiB.
double CurrentRssMb();
// CPU time (user + system) this process has used, in seconds.
double ProcessCpuSeconds();

}  // namespace lingcast
