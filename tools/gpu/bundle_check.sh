#!/usr/bin/env bash
# CI's check of the GPU machine's bundle, as far as this machine can make it
# (ctest gpu_bundle): make_bundle.sh packs the built lingcast without a plug-in,
# the parts unpack, the binary resolves every library it needs from the bundle
# (glibc and the C++ runtime aside), and `doctor` run through the launcher with
# an empty environment finds espeak-ng's data, the fonts and the Mandarin lexicon
# in the bundle.
#   tools/gpu/bundle_check.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: bundle_check.sh BUILD_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/tools/gpu/system_libraries.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$repo/tools/gpu/make_bundle.sh" --build "$build" --plugin none --level 0 --part-mib 40 "$work/parts" 2>"$work/make.log" \
  || { cat "$work/make.log"; exit 1; }
(cd "$work/parts" && sha256sum -c --quiet SHA256SUMS)
mkdir "$work/unpacked"
cat "$work/parts"/lingcast-bundle.tar.xz.part* | tar -xJ -C "$work/unpacked"
root="$work/unpacked/lingcast"
[[ -x "$root/lingcast" && -x "$root/bin/lingcast" ]] || { echo "FAIL: no launcher or binary in the bundle"; exit 1; }

outside="$(LD_LIBRARY_PATH="$root/lib:$root/lib/fallback" ldd "$root/bin/lingcast" | awk '$2 == "=>" {print $1, $3}' \
  | grep -v -E "^(${target_system_libraries})\.so" \
  | grep -v -F " $root/lib/" || true)"
[[ -z "$outside" ]] || { echo "FAIL: libraries taken from outside the bundle:"; echo "$outside"; exit 1; }

status=0
env -i PATH=/usr/bin:/bin HOME="$work" LINGCAST_NEURAL_PLUGIN=/nonexistent "$root/lingcast" doctor >"$work/doctor.txt" 2>&1 || status=$?
for expected in "ok   Mandarin lexicon           $root/bin/data/" "ok   espeak-ng voices" \
                "Noto Sans CJK SC Regular ($root/share/fonts/" "Noto Sans CJK SC Bold ($root/share/fonts/"; do
  grep -q -F "$expected" "$work/doctor.txt" || { echo "FAIL: doctor did not print: $expected"; cat "$work/doctor.txt"; exit 1; }
done
echo "bundle: $(du -sh "$root" | cut -f1) unpacked, $(ls "$root/lib" | wc -l) libraries; doctor exit $status (the neural plug-in left out on purpose)"
