#!/usr/bin/env bash
# Here: makes everything tools/gpu/h200_run.sh needs on the GPU machine, in a
# folder of the repo that git ignores (.gpu/), cut into parts that fit the
# device tool's 64 MiB a call beside the repo itself:
#   1. the plug-in against the GPU machine's PyTorch (build_plugin.sh);
#   2. the bundle (make_bundle.sh) with it, Whisper base, the Piper voice and nginx;
#   3. zh_host.wav: the two real Mandarin recordings (../shared/data/speech),
#      each followed by 2 s of silence, three times over.
# Then carry .gpu/parts/<part> one call at a time (copied to /tmp/lingcast-parts
# there) and, with the last part, .gpu/inputs; the last call runs
#   tools/gpu/h200_run.sh /tmp/lingcast-parts .gpu/inputs $OUT
#
#   tools/gpu/prepare_h200.sh [--part-mib 44]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
part_mib=44
[[ "${1:-}" == --part-mib ]] && part_mib="$2"
gpu="$repo/.gpu"
grep -qx '/.gpu/' "$repo/.git/info/exclude" 2>/dev/null || echo '/.gpu/' >>"$repo/.git/info/exclude"
mkdir -p "$gpu/inputs"
"$repo/tools/gpu/build_plugin.sh" "${LINGCAST_GPU_BUILD:-$repo/build-gpu}"
"$repo/tools/gpu/make_bundle.sh" --plugin "${LINGCAST_GPU_BUILD:-$repo/build-gpu}/src/neural/plugin/liblingcast_neural_plugin.so" \
  --model "$repo/models/whisper-base" --model "$repo/models/en_US-joe-medium" --with-nginx --part-mib "$part_mib" "$gpu/parts"
speech="$repo/../shared/data/speech"
list="$(mktemp)"
for round in 1 2 3; do
  for clip in zh-aishell-BAC009S0764W0121.wav zh-IT0011W0001.wav; do
    printf "file '%s'\nfile '%s'\n" "$speech/$clip" "$gpu/inputs/silence.wav" >>"$list"
  done
done
ffmpeg -loglevel error -y -f lavfi -i anullsrc=r=16000:cl=mono -t 2 -c:a pcm_s16le "$gpu/inputs/silence.wav"
ffmpeg -loglevel error -y -f concat -safe 0 -i "$list" -ar 16000 -ac 1 -c:a pcm_s16le "$gpu/inputs/zh_host.wav"
rm -f "$list" "$gpu/inputs/silence.wav"
ls -l "$gpu/parts" "$gpu/inputs"
