#!/usr/bin/env bash
# render_bench: `lingcast render` of the demo script at 1280x720 30 fps, then our
# encode against the ffmpeg CLI on the same frames and PCM, in the same run.
#
#   bench/render_bench.sh [BUILD_DIR] [RUNS]
#
# Prints wall time, x real time, peak RSS and per-stage compute time for each
# render run, then hands the first 10 s of the rendered video (decoded back to raw
# RGBA frames and 22050 Hz mono PCM) to encode_bench, which times our MP4 writer
# and the ffmpeg CLI at the same x264/AAC settings and prints the ratio.
# Figures only: it never fails on time. Targets (2-core machine): render >= 4x
# real time, peak RSS <= 200 MB, encode <= 1.1x ffmpeg.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "render_bench: examples/demo.script at 1280x720, 30 fps, preset veryfast ($(nproc) cores)"
for run in $(seq 1 "$runs"); do
  "$build/lingcast" render examples/demo.script -o "$tmp/demo.mp4" --json > "$tmp/summary.json"
  python3 - "$tmp/summary.json" "$run" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st = s["stage_seconds"]
print(f"  run {sys.argv[2]}: {s['duration_s']:.1f} s of video, {s['frames']} frames in {s['wall_s']:.2f} s wall = "
      f"{s['x_realtime']:.2f}x real time; peak RSS {s['peak_rss_mb']:.0f} MB; "
      f"compute: tts {st['tts']:.2f} s, render {st['render']:.2f} s, encode {st['encode']:.2f} s "
      f"({1000*st['render']/s['frames']:.2f} / {1000*st['encode']/s['frames']:.2f} ms per frame)")
PY
done

echo "encode: the first 10 s of that render, decoded to raw frames and PCM"
ffmpeg -nostdin -v error -y -i "$tmp/demo.mp4" -t 10 -f rawvideo -pix_fmt rgba "$tmp/frames.rgba" \
  -t 10 -f f32le -ar 22050 -ac 1 "$tmp/audio.f32"
"$build/bench/encode_bench" --frames "$tmp/frames.rgba" --audio "$tmp/audio.f32" --size 1280x720 --fps 30 \
  --runs "$runs" --tmp "$tmp"
