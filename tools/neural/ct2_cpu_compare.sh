#!/usr/bin/env bash
# Our neural engines against CTranslate2 and transformers on THIS machine's CPU,
# on the same random-weight checkpoints at real size and the same inputs (the
# GPU machine cannot run CTranslate2's wheel: it needs CUDA 12's cuBLAS).
#
#  1. builds bench/neural_cpu_compare (src/neural alone, LINGCAST_NEURAL_ONLY,
#     Debian's libtorch) in build-ct2;
#  2. tools/neural/ct2_cpu_compare.py make: OPUS-MT-base-size Marian and
#     whisper-small-size checkpoints with transformers, and the inputs;
#  3. ct2-transformers-converter on both (float32; int8 is CTranslate2's
#     quantization when the model is loaded with compute_type int8);
#  4. for each thread count in LINGCAST_COMPARE_THREAD_COUNTS (default "2", one per
#     core; e.g. "2 1"): ours, ours again on OpenBLAS (see below), transformers,
#     CTranslate2 float32 and int8, each in its own process, under nice, one
#     after another, every engine at the same thread count; medians of RUNS
#     after a warm-up (ours on the system BLAS: LINGCAST_COMPARE_SYSTEM_BLAS_RUNS,
#     default RUNS, as it is slow);
#  5. the table (median ms, tokens/s, ratio to transformers, agreement of the
#     greedy tokens) and the load of the machine before and after.
# Needs the benchmark venv: LINGCAST_SKIP_APT=1 LINGCAST_BENCH_VENV=1 scripts/install-deps.sh
# Debian's libtorch calls libblas.so.3, which is netlib's reference BLAS unless an
# optimized one is installed. "ours_openblas" is the same binary with OpenBLAS
# (OpenMP build) first on LD_LIBRARY_PATH: from libopenblas0-openmp when it is
# installed, else from its .deb unpacked into build-ct2/openblas (apt-get
# download; nothing is installed). With LINGCAST_COMPARE_PROFILE=1 our engine is
# also profiled (libtorch's profiler, one batch-1 Marian decode of 64 tokens and
# one Whisper decode of 32, system BLAS and OpenBLAS), self time by op in
# OUT_DIR/profile_ours*.txt.
#
#   tools/neural/ct2_cpu_compare.sh OUT_DIR [RUNS]
set -euo pipefail
out="$(mkdir -p "${1:?usage: ct2_cpu_compare.sh OUT_DIR [RUNS]}" && cd "$1" && pwd)"
runs="${2:-3}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$repo/.venv-bench"
build="$repo/build-ct2"
py=(nice "$venv/bin/python" "$repo/tools/neural/ct2_cpu_compare.py")
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import ctranslate2, transformers, torch" 2>/dev/null; then
  echo "ct2_cpu_compare: no benchmark venv at $venv; make it with:" >&2
  echo "  LINGCAST_SKIP_APT=1 LINGCAST_BENCH_VENV=1 scripts/install-deps.sh" >&2
  exit 1
fi
export PYTHONUNBUFFERED=1
# OpenMP pools that spin at barriers collapse on a shared machine (transformers'
# batch-1 Marian generate measured 10.6 s spinning, 1.5 s passive at load ~4-6);
# every engine gets the same policy. Set OMP_WAIT_POLICY=ACTIVE on an idle machine.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
load() { echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min) on $(nproc) cores; $(date -u +%H:%M:%S) UTC; OMP_WAIT_POLICY=$OMP_WAIT_POLICY"; }
{
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
  load
} | tee "$out/machine.txt"

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON >"$out/build.log"
nice ninja -j2 -C "$build" neural_cpu_compare >>"$out/build.log"

if [[ ! -f "$out/inputs.safetensors" ]]; then
  "${py[@]}" make "$out"
fi
for model in marian whisper; do
  if [[ ! -f "$out/ct2_$model/model.bin" ]]; then
    nice "$venv/bin/ct2-transformers-converter" --model "$out/$model" --output_dir "$out/ct2_$model" \
      --quantization float32 --force >"$out/convert_$model.log" 2>&1 || { cat "$out/convert_$model.log"; exit 1; }
  fi
done

openblas=/usr/lib/x86_64-linux-gnu/openblas-openmp
if [[ ! -f $openblas/libblas.so.3 ]]; then
  openblas="$build/openblas/usr/lib/x86_64-linux-gnu/openblas-openmp"
  if [[ ! -f $openblas/libblas.so.3 ]]; then
    (cd "$build" && rm -f libopenblas0-openmp_*.deb && apt-get download -q libopenblas0-openmp >/dev/null 2>&1 \
       && dpkg -x libopenblas0-openmp_*.deb openblas) || echo "ct2_cpu_compare: no OpenBLAS; ours_openblas skipped"
  fi
fi
system_runs="${LINGCAST_COMPARE_SYSTEM_BLAS_RUNS:-$runs}"
ours() {  # ours ENGINE THREADS RUNS [LD_LIBRARY_PATH]
  LD_LIBRARY_PATH="${4:-${LD_LIBRARY_PATH:-}}" LINGCAST_COMPARE_THREADS=$2 OMP_NUM_THREADS=$2 \
    nice "$build/bench/neural_cpu_compare" "$out/inputs.safetensors" "$out/marian" "$out/whisper" "$3" >"$out/$1_t$2.log"
  "${py[@]}" ours "$out" "$out/$1_t$2.log" --threads "$2" --engine "$1"
}
for threads in ${LINGCAST_COMPARE_THREAD_COUNTS:-2}; do
  ours ours "$threads" "$system_runs"
  if [[ -f $openblas/libblas.so.3 ]]; then ours ours_openblas "$threads" "$runs" "$openblas"; fi
  OMP_NUM_THREADS=$threads "${py[@]}" transformers "$out" --threads "$threads" --runs "$runs"
  for compute in float32 int8; do
    OMP_NUM_THREADS=$threads "${py[@]}" ct2 "$out" --threads "$threads" --runs "$runs" --compute-type "$compute"
  done
  load | tee -a "$out/machine.txt"
done
if [[ -n "${LINGCAST_COMPARE_PROFILE:-}" ]]; then
  LINGCAST_COMPARE_PROFILE="$out/profile_ours.json" nice "$build/bench/neural_cpu_compare" \
    "$out/inputs.safetensors" "$out/marian" "$out/whisper"
  "${py[@]}" profile "$out/profile_ours.json" >"$out/profile_ours.txt"
  if [[ -f $openblas/libblas.so.3 ]]; then
    LD_LIBRARY_PATH="$openblas" LINGCAST_COMPARE_PROFILE="$out/profile_ours_openblas.json" nice \
      "$build/bench/neural_cpu_compare" "$out/inputs.safetensors" "$out/marian" "$out/whisper"
    "${py[@]}" profile "$out/profile_ours_openblas.json" >"$out/profile_ours_openblas.txt"
  fi
fi
"${py[@]}" report "$out" | tee "$out/report.md"
