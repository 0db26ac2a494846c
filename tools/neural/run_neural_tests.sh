#!/usr/bin/env bash
# Runs every neural test binary of BUILD_DIR (src/neural/<library>/neural_<library>_test,
# built by `ninja neural_tests`) in turn with the same GoogleTest arguments; exits
# with the first failing binary's status (a filter that matches nothing in a
# binary passes there).
#
#   tools/neural/run_neural_tests.sh BUILD_DIR [--gtest_filter=... ...]
set -uo pipefail
build="${1:?usage: run_neural_tests.sh BUILD_DIR [gtest arguments]}"
shift
rc=0
for test in "$build"/src/neural/{core,marian,whisper,vits,fastspeech2}/neural_*_test; do
  [[ -x $test ]] || continue
  echo "== ${test##*/}"
  "$test" "$@"
  status=$?
  [[ $rc -eq 0 ]] && rc=$status
done
exit $rc
