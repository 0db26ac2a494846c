// Live's control commands (`--control FILE`, and the server's corrections
// endpoint): the bytes as a control file, read the way `live` reads one at
// its start (split into lines, comments and blanks skipped, each line parsed),
// and each line submitted as the endpoint does. Properties: a command that
// parses has both sides trimmed, non-empty and valid UTF-8, a line number of at
// least 1 for `line`, and parses again to the same command from its own text.
#include <algorithm>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "fuzz_input.h"
#include "mt/live_control.h"
#include "text/utf8.h"

namespace {

using lingcast::ControlCommand;

bool Trimmed(const std::string& s) {
  return !s.empty() && absl::StripAsciiWhitespace(s).size() == s.size() && lingcast::ValidateUtf8(s).ok();
}

void Check(const ControlCommand& command) {
  if (!Trimmed(command.target)) std::abort();
  if (command.kind == ControlCommand::Kind::kLine) {
    if (command.line_number < 1 || !command.source.empty()) std::abort();
  } else if (!Trimmed(command.source)) {
    std::abort();
  }
  absl::StatusOr<ControlCommand> again = lingcast::ParseControlCommand(command.text);
  if (!again.ok() || again->kind != command.kind || again->line_number != command.line_number ||
      again->source != command.source || again->target != command.target) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  const std::string_view text = fuzz::AsText(data, size);
  static fuzz::InputFile file(".control");
  absl::StatusOr<std::unique_ptr<LiveControl>> control = LiveControl::Open(file.Write(text));
  if (!control.ok()) std::abort();  // a regular file always opens
  for (const ControlInput& input : (*control)->Take()) {
    if (input.command.ok()) Check(*input.command);
  }
  control->reset();  // stops its reader before the file is rewritten
  std::unique_ptr<LiveControl> endpoint = LiveControl::InProcess();
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    absl::Status submitted = endpoint->Submit(std::string(text.substr(start, end - start)), "fuzz");
    (void)submitted;
    start = end + 1;
  }
  for (const ControlInput& input : endpoint->Take()) {
    if (!input.command.ok()) std::abort();  // Submit queues only commands
    Check(*input.command);
  }
  return 0;
}
