#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each, one after the
# other, over a working copy of its seed corpus; prints each target's runs,
# coverage and findings, and exits 1 if any target found a crash, a leak, a
# sanitizer report or a timeout.
#
#   fuzz/run.sh BUILD_DIR SECONDS [NAME...]     (make fuzz runs it: FUZZ_SECONDS, FUZZ_TARGETS)
#
# New inputs that grew coverage stay in BUILD_DIR/fuzz-corpus/NAME (not in the
# repo: copy the few worth keeping into fuzz/corpus/NAME). A finding is written
# to BUILD_DIR/fuzz-findings/NAME/; once fixed, commit it to fuzz/regressions/NAME
# so the normal test build replays it.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [NAME...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [NAME...]}
shift 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for binary in "$build"/fuzz/fuzz_*; do names+=("$(basename "$binary" | sed 's/^fuzz_//')"); done
fi
export LINGCAST_DATA_DIR="$build/data"
failed=0
printf '%-20s %10s %8s %8s  %s\n' target runs cov features findings
for name in "${names[@]}"; do
  binary="$build/fuzz/fuzz_$name"
  if [ ! -x "$binary" ]; then echo "fuzz: no target $name in $build/fuzz" >&2; exit 2; fi
  corpus="$build/fuzz-corpus/$name" findings="$build/fuzz-findings/$name"
  mkdir -p "$corpus" "$findings"
  log="$build/fuzz-findings/$name.log"
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "fuzz/corpus/$name" > "$log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  found=$(find "$findings" -type f | wc -l)
  printf '%-20s %10s %8s %8s  %s\n' "$name" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$found"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    echo "  see $log and $findings/" >&2
  fi
done
exit $failed
