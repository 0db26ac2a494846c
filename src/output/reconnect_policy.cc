#include "output/reconnect_policy.h"

#include <algorithm>
#include <cmath>

namespace lingcast {
namespace {

uint64_t SeedFrom(const ReconnectOptions& options) {
  if (options.seed != 0) return options.seed;
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

ReconnectPolicy::ReconnectPolicy(const ReconnectOptions& options) : options_(options), random_(SeedFrom(options)) {}

void ReconnectPolicy::OnConnected(MediaTime now) { connected_at_ = now; }

MediaTime ReconnectPolicy::BaseDelay(int n) const {
  const double micros = static_cast<double>(options_.initial_delay.micros()) * std::pow(options_.multiplier, n);
  const double capped = std::min(micros, static_cast<double>(options_.max_delay.micros()));
  return MediaTime::Micros(static_cast<int64_t>(capped));
}

std::optional<MediaTime> ReconnectPolicy::OnDisconnected(MediaTime now) {
  if (connected_at_.has_value() && now - *connected_at_ >= options_.stable_after) failures_ = 0;
  connected_at_.reset();
  if (failures_ >= options_.max_retries) return std::nullopt;
  const MediaTime base = BaseDelay(failures_);
  ++failures_;
  std::uniform_real_distribution<double> fraction(0.0, std::clamp(options_.jitter, 0.0, 1.0));
  const double shortened = static_cast<double>(base.micros()) * (1.0 - fraction(random_));
  return now + MediaTime::Micros(static_cast<int64_t>(shortened));
}

MediaTime ReconnectPolicy::ServerBack(MediaTime now) {
  const int64_t spread = std::max<int64_t>(0, options_.server_back_jitter.micros());
  if (spread == 0) return now;
  return now + MediaTime::Micros(std::uniform_int_distribution<int64_t>(0, spread)(random_));
}

}  // namespace lingcast
