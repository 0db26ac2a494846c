// One JSON object from a file, for the checkpoint readers: a missing file is
// kNotFound, anything but a JSON object kInvalidArgument, each naming the path;
// and JsonFields, the typed fields of such an object, each wrong one named
// with its value and what was expected.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {

inline nlohmann::json ReadJsonObject(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kNotFound, path + ": cannot open");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kInvalidArgument, path + ": not valid JSON (" + e.what() + ")");
  }
  if (!json.is_object()) Fail(ErrorCode::kInvalidArgument, path + ": not a JSON object");
  return json;
}

// The fields of a model's config object (config.json, a Piper voice's JSON):
// a null field counts as absent; a field of the wrong type or range fails with
// kInvalidArgument: `PATH: field "KEY" is VALUE, expected WHAT`. An engine's
// config reader derives its own readers for its special fields.
class JsonFields {
 public:
  JsonFields(const nlohmann::json& json, std::string path) : json_(json), path_(std::move(path)) {}

  bool Has(const char* key) const { return json_.contains(key) && !json_.at(key).is_null(); }

  // Without a fallback an absent field fails (`is missing`).
  std::int64_t Int(const char* key, std::optional<std::int64_t> fallback, std::int64_t min_value) const {
    if (!Has(key)) {
      if (!fallback) Missing(key);
      return *fallback;
    }
    const nlohmann::json& v = json_.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < min_value) {
      BadField(key, "an integer >= " + std::to_string(min_value));
    }
    return v.get<std::int64_t>();
  }

  double Number(const char* key, double fallback, bool positive = false) const {
    if (!Has(key)) return fallback;
    const nlohmann::json& v = json_.at(key);
    if (!v.is_number() || (positive && v.get<double>() <= 0)) BadField(key, positive ? "a number > 0" : "a number");
    return v.get<double>();
  }

  bool Bool(const char* key, std::optional<bool> fallback) const {
    if (!Has(key)) {
      if (!fallback) Missing(key);
      return *fallback;
    }
    const nlohmann::json& v = json_.at(key);
    if (!v.is_boolean()) BadField(key, "true or false");
    return v.get<bool>();
  }

  std::string String(const char* key, const char* fallback) const {
    if (!Has(key)) return fallback;
    const nlohmann::json& v = json_.at(key);
    if (!v.is_string()) BadField(key, "a string");
    return v.get<std::string>();
  }

  [[noreturn]] void BadField(const char* key, const std::string& expected) const {
    Fail(ErrorCode::kInvalidArgument,
         path_ + ": field \"" + key + "\" is " + json_.at(key).dump() + ", expected " + expected);
  }
  [[noreturn]] void Missing(const char* key) const {
    Fail(ErrorCode::kInvalidArgument, path_ + ": field \"" + key + "\" is missing");
  }

  const nlohmann::json& json() const { return json_; }
  const std::string& path() const { return path_; }

 private:
  const nlohmann::json& json_;
  std::string path_;
};

}  // namespace lingcast::neural
