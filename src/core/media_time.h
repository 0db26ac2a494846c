// MediaTime: a point or span on a timeline, in integer microseconds.
//
// Every timestamp in lingcast (packet pts and duration, clock readings, latency)
// is a MediaTime, so arithmetic never mixes units and never loses precision the
// way doubles would over hours of streaming.
#pragma once

#include <cstdint>
#include <compare>
#include <limits>
#include <string>

namespace lingcast {

class MediaTime {
 public:
  constexpr MediaTime() = default;

  static constexpr MediaTime Micros(int64_t us) { return MediaTime(us); }
  static constexpr MediaTime Millis(int64_t ms) { return MediaTime(ms * 1000); }
  static constexpr MediaTime Seconds(double s) {
    return MediaTime(static_cast<int64_t>(s * 1e6 + (s >= 0 ? 0.5 : -0.5)));
  }
  static constexpr MediaTime Zero() { return MediaTime(0); }
  static constexpr MediaTime Max() { return MediaTime(std::numeric_limits<int64_t>::max()); }
  // Duration of `samples` audio samples at `rate` Hz, rounded down to whole microseconds.
  static constexpr MediaTime FromSamples(int64_t samples, int rate) {
    return MediaTime(samples * 1'000'000 / rate);
  }
  // The pts of frame `index` at `num/den` frames per second (exact for integer rates).
  static constexpr MediaTime FromFrameIndex(int64_t index, int fps_num, int fps_den = 1) {
    return MediaTime(index * 1'000'000 * fps_den / fps_num);
  }

  constexpr int64_t micros() const { return us_; }
  constexpr int64_t millis() const { return us_ / 1000; }
  constexpr double seconds() const { return static_cast<double>(us_) / 1e6; }
  // Number of whole samples at `rate` Hz that fit in this span.
  constexpr int64_t ToSamples(int rate) const { return us_ * rate / 1'000'000; }

  constexpr MediaTime operator+(MediaTime o) const { return MediaTime(us_ + o.us_); }
  constexpr MediaTime operator-(MediaTime o) const { return MediaTime(us_ - o.us_); }
  constexpr MediaTime& operator+=(MediaTime o) { us_ += o.us_; return *this; }
  constexpr MediaTime& operator-=(MediaTime o) { us_ -= o.us_; return *this; }
  constexpr MediaTime operator*(int64_t k) const { return MediaTime(us_ * k); }
  constexpr MediaTime operator/(int64_t k) const { return MediaTime(us_ / k); }
  constexpr auto operator<=>(const MediaTime&) const = default;

  std::string ToString() const;  // "12.345678s"

 private:
  constexpr explicit MediaTime(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

}  // namespace lingcast
