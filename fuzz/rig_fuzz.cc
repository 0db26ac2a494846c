// The avatar rig format (avatar/rig.h, docs/avatars.md): JSON a user brings
// with `--avatar`, or a session's `avatar` setting. Parsed as a built-in rig
// (no folder: image layers are refused without touching the disk).
#include "avatar/rig.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lingcast::rig::ParseRig(std::string(lingcast::fuzz::AsText(data, size)), "fuzz.json", "").IgnoreError();
  return 0;
}
