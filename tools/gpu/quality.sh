#!/usr/bin/env bash
# Here, on what h200_run.sh brought back: PSNR and SSIM of each 4K60 preset's
# clip against the slow preset's (ffmpeg's psnr and ssim filters), and sizes.
#   tools/gpu/quality.sh DIR
set -euo pipefail
dir="${1:?usage: quality.sh DIR}"
reference="$dir/clip_4k60_slow.mp4"
for clip in "$dir"/clip_4k60_*.mp4; do
  [[ "$clip" == "$reference" ]] && continue
  scores="$(ffmpeg -hide_banner -nostats -i "$clip" -i "$reference" -lavfi "[0:v][1:v]psnr;[0:v][1:v]ssim" -f null - 2>&1 \
    | grep -o -E "PSNR y:[0-9.]+ u:[0-9.]+ v:[0-9.]+ average:[0-9.inf]+|SSIM Y:[0-9.]+ .*All:[0-9.]+" | tr '\n' ' ')"
  printf '%s: %.1f MB; against slow: %s\n' "$(basename "$clip")" "$(stat -c %s "$clip" | awk '{print $1 / 1e6}')" "$scores"
done
printf 'slow: %.1f MB\n' "$(stat -c %s "$reference" | awk '{print $1 / 1e6}')"
