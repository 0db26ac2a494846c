#include "core/media_time.h"

#include "absl/strings/str_format.h"

namespace lingcast {

std::string MediaTime::ToString() const {
  const char* sign = us_ < 0 ? "-" : "";
  const int64_t a = us_ < 0 ? -us_ : us_;
  return absl::StrFormat("%s%d.%06ds", sign, a / 1'000'000, a % 1'000'000);
}

}  // namespace lingcast
