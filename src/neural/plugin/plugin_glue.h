// Inside the neural plug-in: what every entry point of the C ABI
// (lingcast_plugin_abi.h) needs to turn lingcast's C++ engines into C calls:
// statuses into lc_status, results into the C structs handed to a sink, and
// every exception caught before it could cross. Never seen by the host.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/language.h"
#include "neural/plugin/lingcast_plugin_abi.h"
#include "tts/tts_engine.h"

// A stop flag of the C ABI: what the host requests, a std::stop_token to the engines.
struct lc_stop {
  std::stop_source source;
};

namespace lingcast::plugin {

// Fills `out` (may be null) with `status` and returns its code.
lc_status_code Report(const absl::Status& status, lc_status* out);

// The status a host's sink or callback gave back through the C ABI.
absl::Status FromC(lc_status_code code, const lc_status& status);

// Copies `text` into a caller's buffer of `capacity` bytes, NUL-terminated, cut to fit.
void CopyOut(std::string_view text, char* buffer, std::size_t capacity);

Language FromC(lc_language language);
lc_language ToC(Language language);
std::string StringOr(const char* text, const char* fallback);

// InvalidArgument naming `what` unless a caller's struct is at least as large
// as the fields of this ABI's minor 0.
absl::Status CheckStructSize(const void* request, std::uint32_t struct_size, std::size_t needed, const char* what);

// Runs `f` (returning absl::Status) with every exception turned into Internal.
template <typename F>
absl::Status Guard(const char* what, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const std::exception& e) {
    return absl::InternalError(std::string(what) + ": " + e.what());
  } catch (...) {
    return absl::InternalError(std::string(what) + ": unknown exception");
  }
}

// The body of an entry point that makes an engine (CreateVitsVoice, ...):
// checks the caller's `options` struct against this ABI's (`options_name`
// names it), calls `create(*options)` (a StatusOr<std::unique_ptr<Handle>>)
// with every exception caught as `what` failing, reports into `status`, and
// hands the host the handle: null on any failure. `min_size`: what the oldest
// minor of this major fills of Options (appended fields are read only when
// options->struct_size covers them).
template <typename Handle, typename Options, typename Create>
Handle* CreateHandle(const char* what, const char* options_name, const Options* options, lc_status* status,
                     Create&& create, std::size_t min_size = sizeof(Options)) {
  std::unique_ptr<Handle> handle;
  Report(Guard(what, [&]() -> absl::Status {
           if (absl::Status size =
                   CheckStructSize(options, options ? options->struct_size : 0, min_size, options_name);
               !size.ok()) {
             return size;
           }
           absl::StatusOr<std::unique_ptr<Handle>> created = std::forward<Create>(create)(*options);
           if (!created.ok()) return created.status();
           handle = *std::move(created);
           return absl::OkStatus();
         }),
         status);
  return handle.release();
}

// Hands `result` to a host's sink as an lc_synthesis (valid during the call).
absl::Status HandOver(const SynthesisResult& result, lc_synthesis_sink sink, void* user);

}  // namespace lingcast::plugin
