#include "output/output_spec.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace lingcast {
namespace {

constexpr char kUsage[] = "use FILE.mp4, hls:DIR, rtmp://HOST/APP/KEY, rtmps://... or srt://HOST:PORT";

// "rtmp://host:1935/app/key" -> "host:1935" (empty when there is none).
std::string HostOf(const std::string& url) {
  const size_t begin = url.find("://");
  if (begin == std::string::npos) return "";
  const size_t host_begin = begin + 3;
  const size_t host_end = url.find_first_of("/?", host_begin);
  return url.substr(host_begin, host_end == std::string::npos ? std::string::npos : host_end - host_begin);
}

}  // namespace

const char* OutputKindName(OutputSpec::Kind kind) {
  switch (kind) {
    case OutputSpec::kMp4: return "mp4";
    case OutputSpec::kHls: return "hls";
    case OutputSpec::kRtmp: return "rtmp";
    case OutputSpec::kSrt: return "srt";
  }
  return "?";
}

std::string OutputSpec::DisplayName() const {
  switch (kind) {
    case kMp4: return target;
    case kHls: return absl::StrCat("hls:", target);
    case kRtmp: {
      // rtmp://host/app/KEY: the last path element is the stream key.
      const size_t scheme_end = target.find("://");
      const size_t app = target.find('/', scheme_end + 3);
      const size_t key = app == std::string::npos ? std::string::npos : target.find('/', app + 1);
      if (key == std::string::npos || key + 1 >= target.size()) return target;
      return absl::StrCat(target.substr(0, key + 1), "***");
    }
    case kSrt: {
      const size_t query = target.find('?');
      return query == std::string::npos ? target : absl::StrCat(target.substr(0, query), "?***");
    }
  }
  return target;
}

absl::StatusOr<OutputSpec> ParseOutputSpec(const std::string& text) {
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat("--out is empty: ", kUsage));
  const std::string lower = absl::AsciiStrToLower(text);
  OutputSpec spec;
  spec.target = text;
  const size_t scheme_end = lower.find("://");
  if (scheme_end != std::string::npos) {
    const std::string scheme = lower.substr(0, scheme_end);
    if (scheme == "rtmp" || scheme == "rtmps") {
      spec.kind = OutputSpec::kRtmp;
    } else if (scheme == "srt") {
      spec.kind = OutputSpec::kSrt;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--out ", text, ": unknown output scheme \"", scheme, "://\"; ", kUsage));
    }
    if (HostOf(text).empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--out ", text, ": the URL has no host; ", kUsage));
    }
    if (spec.kind == OutputSpec::kRtmp) {
      const std::string path = text.substr(text.find('/', scheme_end + 3) == std::string::npos
                                               ? text.size()
                                               : text.find('/', scheme_end + 3));
      if (path.size() < 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--out ", text, ": an RTMP URL needs an application and a stream key, as rtmp://HOST/APP/KEY"));
      }
    }
    return spec;
  }
  if (absl::StartsWith(lower, "hls:")) {
    spec.kind = OutputSpec::kHls;
    spec.target = text.substr(4);
    if (spec.target.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--out ", text, ": hls: needs a directory, as hls:DIR"));
    }
    return spec;
  }
  const size_t colon = lower.find(':');
  const size_t slash = lower.find('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon < slash) && colon > 1) {
    return absl::InvalidArgumentError(absl::StrCat("--out ", text, ": unknown output scheme \"",
                                                   lower.substr(0, colon), ":\"; ", kUsage));
  }
  if (!absl::EndsWith(lower, ".mp4")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out ", text, ": a file output must end in .mp4; ", kUsage));
  }
  spec.kind = OutputSpec::kMp4;
  return spec;
}

}  // namespace lingcast
