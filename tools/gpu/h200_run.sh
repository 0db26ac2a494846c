#!/usr/bin/env bash
# On the GPU machine, in one call: unpacks the lingcast bundle (make_bundle.sh's
# parts, carried there by tools/gpu/prepare_h200.sh's folders), checks it with
# `doctor`, then measures on the real clock, every figure in one go:
#   1. render of an 8-second 4K60 clip (tools/gpu/clip8.script) with the Piper
#      voice on the GPU and x264 on the machine's cores, per preset, wall time,
#      and the 1080p60 clip; the MP4s come back for PSNR/SSIM against the slow
#      preset (tools/gpu/quality.sh, here);
#   2. `asr` of the same recording alone, Whisper base on the GPU and the CPU;
#   3. `live` with a Mandarin host (the real recordings, tools/gpu/zh_host.wav):
#      Whisper base (real weights) on the GPU hears it, Whisper's translate task
#      interprets off-script speech, Piper speaks it on the GPU, 1080p60 out;
#      once off-script, once following tools/gpu/zh_host.script (and that
#      again with every engine on the CPU, for reference; the GPU script run also
#      streams to a local RTMP server when the bundle has nginx), and following
#      tools/gpu/zh_host_long.script, where opening scores commit lines, at the
#      default partial cadence and at 250 ms for reference; the reports,
#      the GPU memory the whole process held (nvidia-smi, sampled every 100 ms)
#      and its CPU time.
#   tools/gpu/h200_run.sh PARTS_DIR INPUTS_DIR OUT_DIR
# H200_RENDERERS, H200_PRESETS, H200_ASR_DEVICES, H200_LIVE_MODES
# (space-separated; empty skips that part; a live mode ending in _pN, e.g.
# script_p500, runs with --asr-partial-ms N; one with _long follows
# tools/gpu/zh_host_long.script, one with _words adds --no-opening-scores) and H200_SLOW=0 (no slow-preset
# reference) narrow a run to what is being checked; the 1080p60 render always
# runs. With make_bundle.sh --with-gpu-tests it first runs the CUDA renderer's
# parity tests and benchmark.
set -uo pipefail
parts="${1:?usage: h200_run.sh PARTS_DIR INPUTS_DIR OUT_DIR}"
inputs="${2:?}"
out="${3:?}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest=/tmp/lingcast-h200
logs="$out/logs"
mkdir -p "$dest" "$logs"
t0=$(date +%s.%N)
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
note() { printf '[%7s s] %s\n' "$(seconds_since "$t0")" "$*" | tee -a "$out/summary.txt"; }

if [[ ! -x "$dest/lingcast/lingcast" ]]; then
  (cd "$parts" && sha256sum -c --quiet SHA256SUMS) || { note "bundle parts damaged or missing"; exit 1; }
  cat "$parts"/lingcast-bundle.tar.xz.part* | tar -xJ -C "$dest" || { note "unpack failed"; exit 1; }
fi
lc="$dest/lingcast/lingcast"
note "unpacked: $(du -sh "$dest" | cut -f1); $(head -1 "$dest/lingcast/MANIFEST")"
note "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader), $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME"), $(python3 -c 'import torch; print("torch", torch.__version__)' 2>&1)"

# Peak GPU memory of one command: nvidia-smi every 100 ms beside it.
gpu_sampled() {  # gpu_sampled NAME CMD...: runs CMD, notes wall time, peak GPU memory
  local name="$1"; shift
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$logs/$name.gpu_mem" 2>/dev/null &
  local sampler=$!
  local begin rc wall
  begin=$(date +%s.%N)
  local TIMEFORMAT='%U s user, %S s system CPU'
  { time "$@" >"$logs/$name.out" 2>"$logs/$name.err"; } 2>"$logs/$name.time"
  rc=$?
  wall=$(seconds_since "$begin")
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  local idle peak
  idle=$(head -1 "$logs/$name.gpu_mem" 2>/dev/null)
  peak=$(sort -n "$logs/$name.gpu_mem" 2>/dev/null | tail -1)
  note "$name: exit $rc, $wall s wall; $(tail -1 "$logs/$name.time" 2>/dev/null); GPU memory peak ${peak:-?} MiB (${idle:-?} MiB before)"
  [[ $rc -ne 0 ]] && tail -5 "$logs/$name.err" | tee -a "$out/summary.txt"
  return 0
}

# What starting costs: a command that loads no neural engine, then doctor (the
# plug-in, libtorch and CUDA).
gpu_sampled start_pinyin "$lc" pinyin 你好
"$lc" doctor >"$logs/doctor.txt" 2>&1
note "doctor: exit $?"
gpu_sampled start_doctor "$lc" doctor
grep -E "neural|GPU|cuda|FAIL|missing|not found" "$logs/doctor.txt" | head -20 | tee -a "$out/summary.txt"

# 0. The CUDA renderer against the CPU one, when the bundle has its tests
#    (make_bundle.sh --with-gpu-tests): pixel parity on the golden scenes, YUV
#    bit-exactness, and the per-frame benchmark (CPU draw + conversion beside
#    the GPU's, in one process).
if [[ -d "$dest/lingcast/tests" ]]; then
  (
    export LD_LIBRARY_PATH="$dest/lingcast/lib" LINGCAST_SHARE_DIR="$dest/lingcast/share"
    # The tests read the repo and build/data at the paths they were built with.
    src_dir="$(strings "$dest/lingcast/tests/avatar_test" | grep -m1 -oE '^/[^ ]*/examples' | sed 's|/examples$||')"
    if [[ -n "$src_dir" && ! -e "$src_dir" ]]; then mkdir -p "$(dirname "$src_dir")" && ln -s "$repo" "$src_dir"; fi
    [[ -e "$repo/build/data" ]] || { mkdir -p "$repo/build" && ln -s "$dest/lingcast/bin/data" "$repo/build/data"; }
    t="$dest/lingcast/tests"
    "$t/avatar_test" --gtest_filter='GpuCanvas*:CudaSupport*' >"$logs/gpu_avatar_test.txt" 2>&1
    note "GPU canvas parity (avatar_test): exit $?, $(tail -1 "$logs/gpu_avatar_test.txt")"
    "$t/compose_test" --gtest_filter='GpuCompositor*:ChooseRenderer*:RenderStageTest.*' >"$logs/gpu_compose_test.txt" 2>&1
    note "GPU compositor parity (compose_test): exit $?, $(tail -1 "$logs/gpu_compose_test.txt")"
    "$t/output_test" --gtest_filter='GpuYuv*:EncoderYuvEntry*' >"$logs/gpu_output_test.txt" 2>&1
    note "GPU YUV (output_test): exit $?, $(tail -1 "$logs/gpu_output_test.txt")"
    grep -hE "FAILED|max abs|mean" "$logs"/gpu_*_test.txt | head -20 | tee -a "$out/summary.txt"
    timeout 180 "$t/cuda_render_bench" 300 2>&1 | tee "$logs/cuda_render_bench.txt" | tee -a "$out/summary.txt"
  )
fi

# 1. Video at the sizes others claim: the 4K60 clip with each renderer
#    (H200_RENDERERS, default "cuda cpu") at ultrafast, then the other presets.
cores=$(nproc)
for renderer in ${H200_RENDERERS-cuda cpu}; do
  gpu_sampled "render_4k60_ultrafast_$renderer" timeout 240 "$lc" --log-level info render "$repo/tools/gpu/clip8.script" \
    -o "$out/clip_4k60_ultrafast_$renderer.mp4" --size 3840x2160 --fps 60 --preset ultrafast --encoder-threads "$cores" \
    --renderer "$renderer" --json
done
for preset in ${H200_PRESETS-superfast veryfast}; do
  gpu_sampled "render_4k60_$preset" timeout 240 "$lc" --log-level info render "$repo/tools/gpu/clip8.script" -o "$out/clip_4k60_$preset.mp4" \
    --size 3840x2160 --fps 60 --preset "$preset" --encoder-threads "$cores" --json
done
gpu_sampled render_1080p60_veryfast timeout 240 "$lc" --log-level info render "$repo/tools/gpu/clip8.script" -o "$out/clip_1080p60_veryfast.mp4" \
  --size 1920x1080 --fps 60 --preset veryfast --encoder-threads "$cores" --json
[[ "${H200_SLOW:-1}" == 1 ]] && gpu_sampled render_4k60_slow timeout 300 "$lc" --log-level info render "$repo/tools/gpu/clip8.script" -o "$out/clip_4k60_slow.mp4" \
  --size 3840x2160 --fps 60 --preset slow --encoder-threads "$cores" --json
for f in "$logs"/render_*.out; do
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(" ", sys.argv[1].split("/")[-1], "clip", round(d["duration_s"], 2), "s, wall inside", round(d["wall_s"], 2), "s, stages", d["stage_seconds"], "bytes", d["bytes"])' "$f" 2>&1 | tee -a "$out/summary.txt"
done

# A local RTMP server (the bundle's nginx, make_bundle.sh --with-nginx) for the
# live run to stream to at 1080p60, beside its MP4.
rtmp=()
if [[ -x "$dest/lingcast/bin/nginx" ]]; then
  conf=/tmp/lingcast-nginx
  # nginx opens its built-in log paths before reading -e and the config.
  mkdir -p "$conf/logs" /var/log/nginx
  cat >"$conf/nginx.conf" <<NGINX
load_module $dest/lingcast/lib/nginx/ngx_rtmp_module.so;
daemon off;
master_process off;
worker_processes 1;
error_log $conf/logs/error.log info;
pid $conf/nginx.pid;
events { worker_connections 64; }
http { access_log off; }
rtmp { server { listen 127.0.0.1:19350; application live { live on; } } }
NGINX
  LD_LIBRARY_PATH="$dest/lingcast/lib" "$dest/lingcast/bin/nginx" -p "$conf/" -c "$conf/nginx.conf" -e "$conf/logs/error.log" &
  nginx_pid=$!
  sleep 1
  if kill -0 "$nginx_pid" 2>/dev/null; then
    rtmp=(--out rtmp://127.0.0.1:19350/live/show)
    note "nginx (RTMP) listening on 127.0.0.1:19350"
  else
    note "nginx did not start: $(tail -2 "$conf/logs/error.log" 2>/dev/null)"
  fi
fi

# 2. Whisper base alone on the recording, on the GPU and on the 16 cores.
for device in ${H200_ASR_DEVICES-cuda cpu}; do
  gpu_sampled "asr_$device" timeout 120 "$lc" asr "$inputs/zh_host.wav" --lang zh --device "$device" --json
done

# 3. live end to end, a Mandarin host, every engine neural, on the real clock;
#    the script run again with every engine on the CPU, for reference.
for mode in ${H200_LIVE_MODES-off_script script script_long script_long_p250 script_cpu}; do
  script_flag=()
  [[ $mode == script* ]] && script_flag=(--script "$repo/tools/gpu/zh_host.script")
  # _long: the 38-line script (the host's six lines in order among 32 others),
  # long enough for Whisper's opening scores; _words: without them
  # (--no-opening-scores), lines committed from the words heard only.
  [[ $mode == script*_long* ]] && script_flag=(--script "$repo/tools/gpu/zh_host_long.script")
  scores_flag=()
  [[ $mode == *_words* ]] && scores_flag=(--no-opening-scores)
  device=cuda
  [[ $mode == *_cpu ]] && device=cpu
  rtmp_flag=()
  [[ $mode == script ]] && rtmp_flag=("${rtmp[@]}")
  # A mode ending in _pN hears the host again every N ms (--asr-partial-ms).
  partial_flag=()
  [[ $mode =~ _p([0-9]+)$ ]] && partial_flag=(--asr-partial-ms "${BASH_REMATCH[1]}")
  gpu_sampled "live_$mode" timeout 200 "$lc" live --in "$inputs/zh_host.wav" --out "/tmp/live_$mode.mp4" \
    --source zh --target en --asr whisper --tts auto --device "$device" --size 1920x1080 --fps 60 \
    "${script_flag[@]}" "${rtmp_flag[@]}" "${partial_flag[@]}" "${scores_flag[@]}" --report "$logs/live_$mode.json" --quiet
  python3 - "$logs/live_$mode.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
s = r.get("summary", {})
keep = {k: v for k, v in s.items() if any(w in k for w in ("latency", "offset", "drops", "rss", "cpu", "underrun", "endpoint", "outputs"))}
print("  summary:", json.dumps(keep, ensure_ascii=False))
print("  stages:", json.dumps(r.get("stage_latency", {})))
for u in r.get("utterances", [])[:12]:
    print("  line:", json.dumps({k: u.get(k) for k in ("source_text", "translation", "engine", "start_offset_ms", "end_offset_ms", "compute_latency_ms", "endpoint_to_first_sample_ms")}, ensure_ascii=False))
PY
done
[[ -n "${nginx_pid:-}" ]] && kill "$nginx_pid" 2>/dev/null
tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
note "done"
