// One JSON object from a file, for the checkpoint readers: a missing file is
// kNotFound, anything but a JSON object kInvalidArgument, each naming the path.
#pragma once

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {

inline nlohmann::json ReadJsonObject(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kNotFound, path + ": cannot open");
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) Fail(ErrorCode::kInvalidArgument, path + ": not valid JSON");
  if (!json.is_object()) Fail(ErrorCode::kInvalidArgument, path + ": not a JSON object");
  return json;
}

}  // namespace lingcast::neural
