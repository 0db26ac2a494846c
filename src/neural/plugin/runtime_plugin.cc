// What `lingcast doctor` asks the plug-in through the C ABI
// (lingcast_plugin_abi.h): what the engines would run on in this process
// (neural/core/runtime_info.h).
#include <exception>
#include <string>

#include "neural/core/runtime_info.h"
#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"

namespace lingcast::plugin {

void DescribeRuntime(lc_runtime_report* report) {
  if (report == nullptr || report->struct_size < sizeof(lc_runtime_report)) return;
  try {
    const neural::RuntimeInfo info = neural::DescribeRuntime();
    CopyOut(neural::RuntimeSummary(info), report->summary, sizeof(report->summary));
    report->reference_blas = info.blas == neural::BlasKind::kReference ? 1 : 0;
    report->gpus = static_cast<int32_t>(info.gpus.size());
  } catch (const std::exception& e) {  // libtorch failing to start (a broken CUDA install, ...)
    CopyOut(std::string("libtorch failed to describe itself: ") + e.what(), report->summary, sizeof(report->summary));
  }
}

}  // namespace lingcast::plugin
