#include "lipsync/test_signals.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace lingcast {
namespace {

constexpr int kRate = 16000;

float Amplitude(float dbfs) { return std::pow(10.0f, dbfs / 20.0f); }

// Scales `piece` to an RMS of `dbfs`.
void Normalize(std::vector<float>& piece, float dbfs) {
  double energy = 0;
  for (float x : piece) energy += static_cast<double>(x) * x;
  const double rms = std::sqrt(energy / static_cast<double>(piece.empty() ? 1 : piece.size()));
  if (rms <= 0) return;
  const auto gain = static_cast<float>(Amplitude(dbfs) / rms);
  for (float& x : piece) x *= gain;
}

size_t Samples(MediaTime duration) { return static_cast<size_t>(duration.micros() * kRate / 1000000); }

}  // namespace

SignalBuilder::SignalBuilder() { audio_.sample_rate = kRate; }

float SignalBuilder::NextNoise() {
  state_ = state_ * 1664525u + 1013904223u;
  return static_cast<float>(state_ >> 8) / 8388608.0f - 1.0f;
}

void SignalBuilder::Noise(MediaTime duration, float dbfs, uint32_t seed) {
  state_ = seed * 2654435761u + 1;
  std::vector<float> piece(Samples(duration));
  for (float& x : piece) x = NextNoise();
  Normalize(piece, dbfs);
  audio_.samples.insert(audio_.samples.end(), piece.begin(), piece.end());
}

void SignalBuilder::Hum(MediaTime duration, float dbfs) {
  std::vector<float> piece(Samples(duration));
  for (size_t i = 0; i < piece.size(); ++i) {
    const double t = static_cast<double>(i) / kRate;
    double x = 0;
    for (int h = 1; h <= 4; ++h) x += std::sin(2 * std::numbers::pi * 60.0 * h * t) / h;
    piece[i] = static_cast<float>(x) + 0.05f * NextNoise();
  }
  Normalize(piece, dbfs);
  audio_.samples.insert(audio_.samples.end(), piece.begin(), piece.end());
}

void SignalBuilder::Breath(MediaTime duration, float dbfs) {
  // A two-pole resonance near 1.5 kHz on white noise, swelling and fading.
  std::vector<float> piece(Samples(duration));
  const double r = 0.9, theta = 2 * std::numbers::pi * 1500.0 / kRate;
  double y1 = 0, y2 = 0;
  for (size_t i = 0; i < piece.size(); ++i) {
    const double y = NextNoise() + 2 * r * std::cos(theta) * y1 - r * r * y2;
    y2 = y1;
    y1 = y;
    const double envelope = std::sin(std::numbers::pi * static_cast<double>(i) / static_cast<double>(piece.size()));
    piece[i] = static_cast<float>(y * envelope);
  }
  Normalize(piece, dbfs);
  audio_.samples.insert(audio_.samples.end(), piece.begin(), piece.end());
}

void SignalBuilder::Hiss(MediaTime duration, float dbfs) {
  // First difference twice: +12 dB/octave, energy mostly above 4 kHz.
  std::vector<float> piece(Samples(duration));
  float a = 0, b = 0;
  for (float& x : piece) {
    const float n = NextNoise();
    const float d1 = n - a;
    a = n;
    x = d1 - b;
    b = d1;
  }
  Normalize(piece, dbfs);
  audio_.samples.insert(audio_.samples.end(), piece.begin(), piece.end());
}

void SignalBuilder::Vowel(MediaTime duration, float pitch_hz, float dbfs, float f1_hz, float f2_hz) {
  std::vector<float> piece(Samples(duration));
  const int harmonics = static_cast<int>(4000.0f / pitch_hz);
  for (size_t i = 0; i < piece.size(); ++i) {
    const double t = static_cast<double>(i) / kRate;
    double x = 0;
    for (int h = 1; h <= harmonics; ++h) {
      const double hz = pitch_hz * h;
      // Two formant bumps over a falling source spectrum.
      const double gain = (1.0 / h) * (1.0 + 4.0 / (1.0 + std::pow((hz - f1_hz) / 120.0, 2)) +
                                       3.0 / (1.0 + std::pow((hz - f2_hz) / 150.0, 2)));
      x += gain * std::sin(2 * std::numbers::pi * hz * t);
    }
    // 10 ms fade in and out, as a voice starts and stops.
    const double edge = std::min({1.0, t / 0.01, (static_cast<double>(piece.size() - i) / kRate) / 0.01});
    piece[i] = static_cast<float>(x * edge);
  }
  Normalize(piece, dbfs);
  audio_.samples.insert(audio_.samples.end(), piece.begin(), piece.end());
}

}  // namespace lingcast
