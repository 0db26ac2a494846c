#include "audio/av_util.h"

#include <cerrno>

#include "absl/strings/str_cat.h"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/log.h>
}

namespace lingcast {

std::string AvErrorText(int averror) {
  char buffer[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(averror, buffer, sizeof(buffer));
  return buffer;
}

absl::Status AvError(int averror, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", AvErrorText(averror));
  if (averror == AVERROR(ENOENT)) return absl::NotFoundError(message);
  if (averror == AVERROR(EACCES) || averror == AVERROR(EPERM) || averror == AVERROR(EROFS)) {
    return absl::PermissionDeniedError(message);
  }
  if (averror == AVERROR(ENOSPC)) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

ScopedLibavLogLevel::ScopedLibavLogLevel(int level) : previous_level_(av_log_get_level()) {
  av_log_set_level(level);
}

ScopedLibavLogLevel::~ScopedLibavLogLevel() { av_log_set_level(previous_level_); }

}  // namespace lingcast
