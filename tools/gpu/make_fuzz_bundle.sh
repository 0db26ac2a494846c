#!/usr/bin/env bash
# Packs the fuzz targets of a fuzz build (make fuzz: clang-14, libFuzzer, ASan +
# UBSan) with the Debian libraries they load, for a machine with more cores and
# none of lingcast's packages (the GPU machine's 16 cores; docs/reliability.md),
# compressed and cut into parts small enough to carry there one call at a time.
#
#   tools/gpu/make_fuzz_bundle.sh [--build DIR] [--part-mib 44] OUT_DIR
#
# OUT_DIR receives lingcast-fuzz.tar.xz.partNN and SHA256SUMS. The bundle holds
# build-fuzz/fuzz/fuzz_* (debug info stripped: sanitizer reports keep function
# names, and a finding is replayed here on the unstripped binary), build-fuzz/data,
# and lib/. The seeds and fuzz/run.sh come with the repository's working tree;
# tools/gpu/fuzz_run.sh unpacks and runs them there. glibc and the C++ runtime are
# the target's (tools/gpu/system_libraries.sh), as for make_bundle.sh.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$repo/build-fuzz"
part_mib=44
while [[ $# -gt 1 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --part-mib) part_mib="$2"; shift 2 ;;
    *) echo "make_fuzz_bundle.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out="${1:?usage: make_fuzz_bundle.sh [--build DIR] [--part-mib N] OUT_DIR}"
shopt -s nullglob
targets=("$build"/fuzz/fuzz_*)
[[ ${#targets[@]} -gt 0 ]] || { echo "make_fuzz_bundle.sh: no fuzz targets in $build/fuzz: run make fuzz FUZZ_SECONDS=1 first" >&2; exit 2; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/lingcast-fuzz"
mkdir -p "$root/build-fuzz/fuzz" "$root/lib"
for target in "${targets[@]}"; do
  objcopy --strip-debug "$target" "$root/build-fuzz/fuzz/$(basename "$target")"
done
[[ -d "$build/data" ]] && cp -rL "$build/data" "$root/build-fuzz/data"
source "$repo/tools/gpu/system_libraries.sh"
skip="^(${target_system_libraries})\\.so"
count=0
while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  [[ -f "$root/lib/$name" ]] && continue
  cp -L "$path" "$root/lib/$name"
  count=$((count + 1))
done < <(for target in "${targets[@]}"; do ldd "$target"; done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u)
echo "make_fuzz_bundle: ${#targets[@]} targets, $count libraries" >&2
{
  echo "lingcast fuzz bundle of $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), made $(date -u +%FT%TZ)"
  (cd "$root" && find . -type f | sort)
} >"$root/MANIFEST"
rm -f "$out"/lingcast-fuzz.tar.xz.part*
tar -C "$work" -cf - lingcast-fuzz | xz -T0 -9 | split -b "${part_mib}M" -d -a 2 - "$out/lingcast-fuzz.tar.xz.part"
(cd "$out" && sha256sum ./*.part?? >SHA256SUMS)
du -sh "$root" | awk '{print "make_fuzz_bundle: unpacked " $1}' >&2
ls -l "$out"/*.part?? | awk '{printf "make_fuzz_bundle: %s %.1f MiB\n", $NF, $5 / 1048576}' >&2
