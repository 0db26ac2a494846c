#!/usr/bin/env bash
# Runs the fuzz targets of a fuzz bundle (tools/gpu/make_fuzz_bundle.sh) on a
# machine of many cores, from the repository's root (where fuzz/run.sh and the
# seeds are), carrying on from the corpus an earlier call grew there.
#
#   [FUZZ_STATE=fuzz-state.tar.xz] tools/gpu/fuzz_run.sh PARTS_DIR SECONDS OUT_DIR [NAME[:WORKERS]...]
#
# PARTS_DIR holds lingcast-fuzz.tar.xz.part* and SHA256SUMS (checked, then
# unpacked once into /tmp/lingcast-fuzz). Every target runs at once (FUZZ_JOBS:
# the number of targets, at most the cores) for SECONDS of wall time each. OUT_DIR
# gets run.txt (fuzz/run.sh's table: CPU time, runs, coverage, findings per
# target) and fuzz-state.tar.xz (the grown corpus and the findings, to unpack
# into build-fuzz/ here). FUZZ_STATE, the fuzz-state.tar.xz of an earlier lease,
# is unpacked first, so a new machine carries on from the corpus the last one grew.
# NAME:WORKERS gives a target several cores (fuzz/run.sh). Exits as fuzz/run.sh
# does: 1 on any finding.
set -uo pipefail
parts="${1:?usage: fuzz_run.sh PARTS_DIR SECONDS OUT_DIR [NAME[:WORKERS]...]}"
seconds="${2:?usage: fuzz_run.sh PARTS_DIR SECONDS OUT_DIR [NAME[:WORKERS]...]}"
out="${3:?usage: fuzz_run.sh PARTS_DIR SECONDS OUT_DIR [NAME[:WORKERS]...]}"
shift 3
root=/tmp/lingcast-fuzz
if [[ ! -d "$root/build-fuzz/fuzz" ]]; then
  (cd "$parts" && sha256sum -c --quiet SHA256SUMS) || { echo "fuzz_run.sh: the parts in $parts are not whole" >&2; exit 2; }
  cat "$parts"/lingcast-fuzz.tar.xz.part* | xz -d | tar -x -C /tmp || exit 2
fi
mkdir -p "$out"
if [[ -n "${FUZZ_STATE:-}" ]]; then
  xz -dc "$FUZZ_STATE" | tar -x -C "$root/build-fuzz" || { echo "fuzz_run.sh: cannot unpack $FUZZ_STATE" >&2; exit 2; }
fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=($(cd "$root/build-fuzz/fuzz" && ls fuzz_* | sed 's/^fuzz_//'))
jobs=${FUZZ_JOBS:-$(( ${#targets[@]} < $(nproc) ? ${#targets[@]} : $(nproc) ))}
echo "fuzz_run: ${#targets[@]} targets, $jobs at once, ${seconds} s each, on $(nproc) cores" | tee "$out/run.txt"
LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FUZZ_JOBS=$jobs \
  fuzz/run.sh "$root/build-fuzz" "$seconds" "${targets[@]}" 2>&1 | tee -a "$out/run.txt"
status=${PIPESTATUS[0]}
tar -C "$root/build-fuzz" -cf - fuzz-corpus fuzz-findings | xz -T0 -6 > "$out/fuzz-state.tar.xz"
exit "$status"
