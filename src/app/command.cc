#include "app/command.h"

#include <cstdio>
#include <string>

#include "core/status.h"

namespace lingcast {

int ReportCommandStatus(const absl::Status& status) {
  constexpr int kExitInterrupted = 130;
  if (status.ok()) return 0;
  std::fprintf(stderr, "lingcast: error: %s\n", std::string(status.message()).c_str());
  if (absl::IsCancelled(status)) return kExitInterrupted;
  return ExitCodeFor(status);
}

}  // namespace lingcast
