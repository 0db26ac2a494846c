#include "lipsync/frame_snap.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace lingcast {
namespace {

struct FrameCue {
  int64_t first = 0;  // frame index, inclusive
  int64_t last = 0;   // exclusive
  Viseme shape = Viseme::kX;
  int64_t frames() const { return last - first; }
};

int64_t NearestFrame(MediaTime t, double fps) {
  return static_cast<int64_t>(std::llround(static_cast<double>(t.micros()) * fps / 1e6));
}

void MergeEqual(std::vector<FrameCue>& cues) {
  std::vector<FrameCue> out;
  for (const FrameCue& c : cues) {
    if (c.frames() <= 0) continue;
    if (!out.empty() && out.back().shape == c.shape && out.back().last == c.first) {
      out.back().last = c.last;
    } else {
      out.push_back(c);
    }
  }
  cues = std::move(out);
}

}  // namespace

MediaTime FrameTime(int64_t index, double fps) {
  return MediaTime::Micros(static_cast<int64_t>(std::llround(static_cast<double>(index) * 1e6 / fps)));
}

int MinFramesFor(MediaTime min_hold, double fps) {
  return std::max(2, static_cast<int>(std::lround(min_hold.seconds() * fps)));
}

float PoseDistance(Viseme a, Viseme b) {
  const MouthPose pa = PoseOf(a), pb = PoseOf(b);
  return std::abs(pa.open - pb.open) + std::abs(pa.spread - pb.spread) + std::abs(pa.round - pb.round);
}

VisemeTrack SnapToFrames(const VisemeTrack& track, double fps, int min_frames) {
  if (track.cues.empty() || !(fps > 0)) return track;
  if (min_frames < 1) min_frames = 1;

  // Explicit X cues for the gaps, so every frame between the first and last cue
  // belongs to exactly one cue.
  std::vector<FrameCue> cues;
  for (const VisemeCue& c : track.cues) {
    FrameCue f{NearestFrame(c.start, fps), NearestFrame(c.end, fps), c.shape};
    if (!cues.empty()) {
      f.first = std::max(f.first, cues.back().last);
      if (f.first > cues.back().last) cues.push_back({cues.back().last, f.first, Viseme::kX});
    }
    // A closure must not vanish in rounding: give it the frame it overlaps most.
    if (c.shape == Viseme::kA && f.last <= f.first) {
      const int64_t centre = NearestFrame(c.start + (c.end - c.start) / 2, fps);
      if (cues.empty() || centre >= cues.back().last) {
        f.first = std::max<int64_t>(centre, cues.empty() ? centre : cues.back().last);
        f.last = f.first + 1;
      }
    }
    if (f.last > f.first) cues.push_back(f);
  }
  MergeEqual(cues);

  auto floor_of = [&](const FrameCue& c) { return c.shape == Viseme::kA ? 1 : min_frames; };
  while (true) {
    // The shortest cue under its floor goes first: merging it may fix others.
    size_t worst = cues.size();
    for (size_t i = 0; i < cues.size(); ++i) {
      // The first and last cue border silence outside the track: X is free to
      // end anywhere, and other edge cues only lose if they are under one frame.
      if (cues[i].frames() >= floor_of(cues[i])) continue;
      if (worst == cues.size() || cues[i].frames() < cues[worst].frames()) worst = i;
    }
    if (worst == cues.size() || cues.size() == 1) break;
    const size_t i = worst;
    auto cost = [&](size_t n) {
      return PoseDistance(cues[n].shape, cues[i].shape) + (cues[n].shape == Viseme::kA ? 10.0f : 0.0f);
    };
    const size_t target = (i + 1 == cues.size() || (i > 0 && cost(i - 1) <= cost(i + 1))) ? i - 1 : i + 1;
    if (target < i) {
      cues[target].last = cues[i].last;
    } else {
      cues[target].first = cues[i].first;
    }
    cues.erase(cues.begin() + static_cast<std::ptrdiff_t>(i));
    MergeEqual(cues);
  }

  VisemeTrack out;
  for (const FrameCue& c : cues) {
    // Leading and trailing X cues are the track's surrounding silence already.
    if (c.shape == Viseme::kX && (&c == &cues.front() || &c == &cues.back())) continue;
    out.cues.push_back({FrameTime(c.first, fps), FrameTime(c.last, fps), c.shape});
  }
  return out;
}

}  // namespace lingcast
