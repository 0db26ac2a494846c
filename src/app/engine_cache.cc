#include "app/engine_cache.h"

#include <utility>

namespace lingcast {

template <typename Engine>
absl::StatusOr<std::shared_ptr<Engine>> EngineCache::Get(std::map<std::string, std::shared_ptr<Engine>>& kept,
                                                         const std::string& key, const Loader<Engine>& load) {
  // Held across the load on purpose: a second asker waits for the first copy
  // instead of loading another.
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = kept.find(key); it != kept.end()) {
    ++reuses_;
    return it->second;
  }
  absl::StatusOr<std::shared_ptr<Engine>> loaded = load();
  if (!loaded.ok()) return loaded.status();
  ++loads_;
  std::shared_ptr<Engine> engine = std::move(*loaded);
  kept.emplace(key, engine);
  return engine;
}

absl::StatusOr<std::shared_ptr<TtsEngine>> EngineCache::Voice(const std::string& key, const Loader<TtsEngine>& load) {
  return Get(voices_, key, load);
}

absl::StatusOr<std::shared_ptr<AsrModel>> EngineCache::Recognizer(const std::string& key,
                                                                  const Loader<AsrModel>& load) {
  return Get(recognizers_, key, load);
}

EngineCache::Stats EngineCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Stats{static_cast<int>(voices_.size()), static_cast<int>(recognizers_.size()), loads_, reuses_};
}

}  // namespace lingcast
