#include "app/engine_cache.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace lingcast {

template <typename Engine>
absl::StatusOr<std::shared_ptr<Engine>> EngineCache::Get(std::map<std::string, std::shared_ptr<Engine>>& kept,
                                                         const std::string& key, const Loader<Engine>& load) {
  auto find = [&]() -> std::shared_ptr<Engine> {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kept.find(key);
    if (it == kept.end()) return nullptr;
    ++reuses_;
    return it->second;
  };
  if (std::shared_ptr<Engine> engine = find()) return engine;
  // One load at a time: a second asker for the same engine waits here for the
  // first copy instead of loading another.
  std::lock_guard<std::mutex> loading(load_mu_);
  if (std::shared_ptr<Engine> engine = find()) return engine;
  absl::StatusOr<std::shared_ptr<Engine>> loaded = load();
  if (!loaded.ok()) return loaded.status();
  std::lock_guard<std::mutex> lock(mu_);
  ++loads_;
  kept.emplace(key, *loaded);
  return *loaded;
}

absl::StatusOr<std::shared_ptr<TtsEngine>> EngineCache::Voice(const std::string& key, const Loader<TtsEngine>& load) {
  return Get(voices_, key, load);
}

absl::StatusOr<std::shared_ptr<AsrModel>> EngineCache::Recognizer(const std::string& key,
                                                                  const Loader<AsrModel>& load) {
  return Get(recognizers_, key, load);
}

absl::StatusOr<std::shared_ptr<Translator>> EngineCache::SharedTranslator(const std::string& key,
                                                                         const Loader<Translator>& load) {
  return Get(translators_, key, load);
}

EngineCache::Stats EngineCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats stats{static_cast<int>(voices_.size()), static_cast<int>(recognizers_.size()),
              static_cast<int>(translators_.size()), loads_, reuses_, {}};
  for (const auto& [key, recognizer] : recognizers_) {
    const std::optional<AsrModel::StepBatching> steps = recognizer->step_batching();
    if (!steps) continue;
    stats.recognizer_steps.steps += steps->steps;
    stats.recognizer_steps.passes += steps->passes;
    stats.recognizer_steps.joined_steps += steps->joined_steps;
    stats.recognizer_steps.largest_pass = std::max(stats.recognizer_steps.largest_pass, steps->largest_pass);
  }
  return stats;
}

}  // namespace lingcast
