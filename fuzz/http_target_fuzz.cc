// The parts of an HTTP request `lingcast serve` reads itself (Boost.Beast
// parses the message): the request target (path segments, percent-encoding,
// query) and the Authorization header. Property: a target that parses has no
// NUL byte once decoded, and its path starts with '/'.
#include <cstdlib>

#include "fuzz_input.h"
#include "server/auth.h"
#include "server/router.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  const std::string_view text = fuzz::AsText(data, size);
  absl::StatusOr<ParsedTarget> target = ParseTarget(text);
  if (target.ok()) {
    if (target->path.empty() || target->path[0] != '/') std::abort();
    if (target->path.find('\0') != std::string::npos) std::abort();
    for (const auto& [key, value] : target->query) {
      if (key.find('\0') != std::string::npos || value.find('\0') != std::string::npos) std::abort();
    }
  }
  SplitPath(text);
  BearerToken(text);
  return 0;
}
