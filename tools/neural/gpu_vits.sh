#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages), in one call: builds src/neural alone (LINGCAST_NEURAL_ONLY), runs the
# VITS test suites (CPU and CUDA), then transformers at mms-tts-eng size with its
# stage profile (tools/neural/vits_gpu_bench.py) and bench/vits_bench on the same
# weights and input: eager (the path before CUDA graphs) and with CUDA graphs, in
# the same run. Logs land in OUT_DIR: build.log, test.log, reference.log, bench.log,
# reference.json. Options: --all-tests runs every neural test suite (not only
# VITS's); --before DIR also builds the source tree DIR (src/neural, bench, cmake
# and the top CMakeLists.txt of an earlier commit, e.g. from `git archive`) and
# runs its vits_bench, and this tree's on the same random weights, for a
# before/after in one call; --memory runs bench/neural_memory_bench too.
#
#   tools/neural/gpu_vits.sh OUT_DIR [--all-tests] [--before DIR] [--memory]
set -uo pipefail
out="${1:?usage: gpu_vits.sh OUT_DIR [--all-tests] [--before DIR] [--memory]}"
shift
all_tests=0 before="" memory=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --all-tests) all_tests=1 ;;
    --before) before="$(cd "$2" && pwd)"; shift ;;
    --memory) memory=1 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
ref=/tmp/lingcast_vits_reference
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# The reference first, on an idle CPU (the build would slow a launch-bound model);
# the profile's timings are its own.
timeout 240 python3 tools/neural/vits_gpu_bench.py "$ref" >"$out/reference.log" 2>&1
cp "$ref/reference.json" "$out/" 2>/dev/null
grep -vE "Writing model shards" "$out/reference.log" | cut -c1-200
stamp "reference done"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_tests vits_bench neural_memory_bench; } \
       >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
if [[ -n "$before" ]]; then
  if { cmake -S "$before" -B /tmp/lingcast_before_build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON \
         -DLINGCAST_WERROR=OFF -DCMAKE_PREFIX_PATH="$prefix" && ninja -C /tmp/lingcast_before_build vits_bench; } \
       >"$out/build_before.log" 2>&1; then
    stamp "built the tree before"
  else
    grep -E "error|Error" "$out/build_before.log" | head -10
  fi
fi
timeout 240 "$build/bench/vits_bench" "$ref" 2>&1 | tee "$out/bench.log"
stamp "bench done"
if [[ -n "$before" && -x /tmp/lingcast_before_build/bench/vits_bench ]]; then
  echo "== before (VitsModel::Random weights, its own input)"
  timeout 120 /tmp/lingcast_before_build/bench/vits_bench 2>&1 | tee -a "$out/bench.log"
  echo "== after (VitsModel::Random weights, 121 random tokens)"
  timeout 120 "$build/bench/vits_bench" 2>&1 | grep -E "^cuda|tiny|graphs:" | tee -a "$out/bench.log"
  stamp "before/after done"
fi
if [[ $memory == 1 ]]; then
  timeout 150 "$build/bench/neural_memory_bench" 2>&1 | tee "$out/memory.log" | tail -15
  stamp "memory bench done"
fi
filter='Vits*:*VitsParity*'
[[ $all_tests == 1 ]] && filter='*'
timeout 200 "$repo/tools/neural/run_neural_tests.sh" "$build" --gtest_filter="$filter" >"$out/test.log" 2>&1
echo "tests ($filter): exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual" "$out/test.log" | head -30
stamp "tests done"
