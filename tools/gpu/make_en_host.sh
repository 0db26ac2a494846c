#!/usr/bin/env bash
# The English host of docs/gpu.md's live runs: tools/gpu/en_host.script's eight
# lines said by espeak-ng (en-us) through `lingcast tts`, 1 s of silence before
# the first and 1.5 s after each, as one WAV (22.05 kHz mono, about 30 s).
#
#   tools/gpu/make_en_host.sh [--lingcast build/lingcast] OUT.wav
set -euo pipefail
lingcast=build/lingcast
if [[ "${1:-}" == --lingcast ]]; then lingcast="$2"; shift 2; fi
out="${1:?usage: make_en_host.sh [--lingcast PATH] OUT.wav}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
i=0
while IFS= read -r line; do
  [[ "$line" == en:* ]] || continue
  english="${line#en: }"
  english="${english%% | zh:*}"
  "$lingcast" tts --engine espeak --voice en-us --lang en -o "$work/line$i.wav" "$english" >/dev/null 2>&1 \
    || { echo "make_en_host.sh: lingcast tts failed on: $english" >&2; exit 1; }
  i=$((i + 1))
done <"$repo/tools/gpu/en_host.script"
python3 - "$work" "$i" "$out" <<'PY'
import sys, wave
work, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with wave.open(out, "wb") as host:
    for i in range(count):
        with wave.open(f"{work}/line{i}.wav", "rb") as line:
            if i == 0:
                host.setparams(line.getparams())
                host.writeframes(b"\0" * 2 * line.getframerate())
            host.writeframes(line.readframes(line.getnframes()))
            host.writeframes(b"\0" * 2 * int(line.getframerate() * 1.5))
PY
