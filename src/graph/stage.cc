#include "graph/stage.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace lingcast {

InputPort::InputPort(Stage* owner, std::string name) : owner_(owner), name_(std::move(name)) {
  owner_->inputs_.push_back(this);
}

OutputPort::OutputPort(Stage* owner, std::string name) : owner_(owner), name_(std::move(name)) {
  owner_->outputs_.push_back(this);
}

std::string InputPort::qualified_name() const { return owner_->name() + "." + name_; }
std::string OutputPort::qualified_name() const { return owner_->name() + "." + name_; }

void Stage::HandleFlush(uint64_t generation) {
  // Forward only: of two racing flushes, the older one must not win last.
  uint64_t current = generation_.load();
  do {
    if (generation <= current) return;
  } while (!generation_.compare_exchange_weak(current, generation));
  OnFlush(generation);
  for (OutputPort* out : outputs_) out->ForwardFlush(generation);
}

namespace {

template <typename F>
auto Guarded(const Stage& stage, const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("stage '", stage.name(), "' threw in ", what, ": ", e.what()));
  } catch (...) {
    return absl::InternalError(absl::StrCat("stage '", stage.name(), "' threw in ", what));
  }
}

}  // namespace

absl::Status GuardedOpen(Stage& stage) { return Guarded(stage, "Open", [&] { return stage.Open(); }); }
absl::StatusOr<Flow> GuardedProcess(Stage& stage) {
  return Guarded(stage, "Process", [&] { return stage.Process(); });
}
absl::Status GuardedClose(Stage& stage) { return Guarded(stage, "Close", [&] { return stage.Close(); }); }

void Stage::FinishOutputs() {
  for (OutputPort* out : outputs_) out->Finish();
}

void Stage::CancelPorts() {
  for (InputPort* in : inputs_) in->Cancel();
  for (OutputPort* out : outputs_) out->Cancel();
}

}  // namespace lingcast
