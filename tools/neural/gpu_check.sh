#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA and transformers; none of lingcast's Debian
# packages): regenerates the Marian fixtures with transformers, builds src/neural
# alone (LINGCAST_NEURAL_ONLY) and runs its tests (CPU and CUDA) and benchmark.
# Results land in OUT_DIR (fixtures.tar.gz to unpack into src/neural/testdata).
#
#   tools/neural/gpu_check.sh OUT_DIR [--tests-only]
# --tests-only: keep the committed fixtures, skip the benchmark, and run the tests
# one suite at a time (a crash names its suite; cuda-gdb prints its stack).
set -uo pipefail
out="${1:?usage: gpu_check.sh OUT_DIR [--tests-only]}"
tests_only=0
[[ "${2:-}" == "--tests-only" ]] && tests_only=1
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
fixtures=/tmp/lingcast_fixtures
build=/tmp/lingcast_neural_build
rm -rf "$fixtures" && mkdir -p "$fixtures"
if [[ $tests_only == 0 ]]; then
if ! python3 tools/neural/make_marian_fixtures.py --tokenizer src/neural/testdata/marian_tiny --out "$fixtures" \
    >"$out/fixtures.log" 2>&1; then
  tail -30 "$out/fixtures.log"; exit 1
fi
grep -E "^reference|versions" "$out/fixtures.log"
for d in marian_tiny marian_tiny_sharded; do
  rm -rf "src/neural/testdata/$d" && cp -r "$fixtures/$d" src/neural/testdata/
done
(cd "$fixtures" && tar czf "$out/fixtures.tar.gz" marian_tiny marian_tiny_sharded reference_speed_cuda.json)
fi
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_test neural_bench; } >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; exit 1
fi
echo "build warnings: $(grep -c 'warning:' "$out/build.log")"
test="$build/src/neural/neural_test"
if [[ $tests_only == 1 ]]; then
  for suite in $("$test" --gtest_list_tests | grep -v '^ ' | tr -d '.'); do
    "$test" --gtest_filter="$suite.*" >>"$out/test.log" 2>&1
    rc=$?
    echo "$suite: exit $rc"
    if [[ $rc -ge 128 ]] && command -v cuda-gdb >/dev/null; then
      cuda-gdb -batch -ex run -ex bt --args "$test" --gtest_filter="$suite.*" 2>&1 | tail -25
    fi
  done
  grep -E "Failure|Expected|actual|FAILED  \]" "$out/test.log" | head -40
  exit 0
fi
"$test" 2>&1 | tee "$out/test.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|error|Expected|Which is|actual" | head -60
echo "neural_test exit: ${PIPESTATUS[0]}"
"$build/bench/neural_bench" 2>&1 | tee "$out/bench.log"
