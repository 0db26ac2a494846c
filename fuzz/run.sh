#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each over a working
# copy of its seed corpus, FUZZ_JOBS of them at once (default 1: one after the
# other); prints each target's CPU time (user + system), runs, coverage and
# findings, and exits 1 if any target found a crash, a leak, a sanitizer report
# or a timeout.
#
#   [FUZZ_JOBS=N] fuzz/run.sh BUILD_DIR SECONDS [NAME[:WORKERS]...]
#   (make fuzz runs it: FUZZ_SECONDS, FUZZ_TARGETS, FUZZ_JOBS)
#
# NAME:WORKERS runs that target as WORKERS processes (libFuzzer's -fork mode,
# sharing one corpus), to give it more cores on a machine with cores to spare;
# its cpu column then counts every worker. A target counts as one job.
#
# SECONDS is wall time: on a loaded machine, or with more jobs than cores, a
# target gets less CPU than that, which the cpu column shows.
#
# New inputs that grew coverage stay in BUILD_DIR/fuzz-corpus/NAME (not in the
# repo: copy the few worth keeping into fuzz/corpus/NAME). A finding is written
# to BUILD_DIR/fuzz-findings/NAME/; once fixed, commit it to fuzz/regressions/NAME
# so the normal test build replays it.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [NAME...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [NAME...]}
jobs=${FUZZ_JOBS:-1}
shift 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for binary in "$build"/fuzz/fuzz_*; do names+=("$(basename "$binary" | sed 's/^fuzz_//')"); done
fi
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then echo "fuzz: FUZZ_JOBS must be a positive number, not '$jobs'" >&2; exit 2; fi
for entry in "${names[@]}"; do
  name=${entry%%:*}
  if [ ! -x "$build/fuzz/fuzz_$name" ]; then echo "fuzz: no target $name in $build/fuzz" >&2; exit 2; fi
  if [[ "$entry" == *:* ]] && ! [[ "${entry#*:}" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: workers in '$entry' must be a positive number" >&2; exit 2
  fi
done
export LINGCAST_DATA_DIR="$build/data"

# fuzz_one NAME: runs one target, prints its row, exits 1 on a finding.
fuzz_one() {
  local name=${1%%:*} workers=1
  [[ "$1" == *:* ]] && workers=${1#*:}
  local fork=()
  # -fork=1 would still run one child under a supervising parent; only ask for it
  # when there is more than one worker.
  [ "$workers" -gt 1 ] && fork=(-fork="$workers")
  local binary="$build/fuzz/fuzz_$name"
  local corpus="$build/fuzz-corpus/$name" findings="$build/fuzz-findings/$name"
  local log="$build/fuzz-findings/$name.log" times="$build/fuzz-findings/$name.cpu"
  mkdir -p "$corpus" "$findings"
  local TIMEFORMAT='%U %S' status
  { time "$binary" "${fork[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$findings/" "$corpus" "fuzz/corpus/$name" > "$log" 2>&1; } 2> "$times"
  status=$?
  local user sys cpu runs cov ft found
  read -r user sys < "$times"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { t = u + s; printf "%d:%02d", t / 60, t % 60 }')
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  # Fork mode prints no final stats; its status lines start with the runs so far.
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*: cov:' "$log" | tail -1 | grep -o '[0-9]*')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  found=$(find "$findings" -type f | wc -l)
  [ "$workers" -gt 1 ] && name="$name:$workers"
  printf '%-20s %8s %10s %8s %8s  %s\n' "$name" "$cpu" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$found"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "  see $log and $findings/" >&2
    return 1
  fi
}

failed=0
printf '%-20s %8s %10s %8s %8s  %s\n' target cpu runs cov features findings
running=0
for name in "${names[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
