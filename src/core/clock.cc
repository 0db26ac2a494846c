#include "core/clock.h"

#include <chrono>
#include <thread>

namespace lingcast {

MediaTime SystemClock::Now() const {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return MediaTime::Micros(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

void SystemClock::SleepUntil(MediaTime deadline) {
  const auto tp = std::chrono::steady_clock::time_point(std::chrono::microseconds(deadline.micros()));
  std::this_thread::sleep_until(tp);
}

SimulatedClock::SimulatedClock(MediaTime start, Mode mode) : mode_(mode), now_(start) {}

MediaTime SimulatedClock::Now() const {
  std::lock_guard lock(mu_);
  return now_;
}

void SimulatedClock::SleepUntil(MediaTime deadline) {
  std::unique_lock lock(mu_);
  if (mode_ == Mode::kAutoAdvance) {
    if (deadline > now_) now_ = deadline;
    cv_.notify_all();
    return;
  }
  ++sleepers_;
  cv_.wait(lock, [&] { return now_ >= deadline; });
  --sleepers_;
}

void SimulatedClock::Advance(MediaTime delta) {
  std::lock_guard lock(mu_);
  now_ += delta;
  cv_.notify_all();
}

void SimulatedClock::AdvanceTo(MediaTime t) {
  std::lock_guard lock(mu_);
  if (t > now_) now_ = t;
  cv_.notify_all();
}

int SimulatedClock::sleepers() const {
  std::lock_guard lock(mu_);
  return sleepers_;
}

}  // namespace lingcast
