#!/usr/bin/env bash
# Packs a built `lingcast` with everything it needs from this Debian machine into
# one relocatable folder for a machine that has none of lingcast's Debian
# packages (the GPU machine: Ubuntu 24.04 with PyTorch; docs/gpu.md), compressed
# and cut into parts small enough to carry there one call at a time.
#
#   tools/gpu/make_bundle.sh [--build DIR] [--plugin SO|none] [--model DIR ...]
#                            [--with-pocketsphinx] [--with-nginx] [--with-gpu-tests]
#                            [--part-mib 40] [--level 9] OUT_DIR
#
# OUT_DIR receives lingcast-bundle.tar.xz.partNN and SHA256SUMS; each --model DIR
# (a model folder as install-deps.sh makes them, e.g. models/whisper-base) goes
# into the bundle's models/, which the launcher makes lingcast's models root
# (LINGCAST_MODELS). --with-nginx adds Debian's nginx with its RTMP module
# (bin/nginx, lib/nginx/), a local RTMP server to stream to there.
# --with-gpu-tests adds the CUDA renderer's parity tests and its benchmark
# (tests/: avatar_test, compose_test, output_test, app_test (live drawn by
# either renderer; it needs --with-pocketsphinx), cuda_render_bench and
# serve_bench (sessions at once, each drawn on the GPU), built in
# the build folder), which tools/gpu/h200_run.sh runs when they are there. Unpack with
#   cat lingcast-bundle.tar.xz.part* | tar -xJ -C DEST
# and run DEST/lingcast/lingcast (a launcher that points the binary at its own
# libraries, data, fonts and plug-in, and at PyTorch's libraries when python3 has it).
#
# Left out on purpose: glibc, libstdc++ and libgcc_s (the target's newer ones
# serve a binary built here, and PyTorch needs them newer), and libtorch with its
# CUDA libraries (the target's PyTorch provides them; the plug-in is built
# against the same version, tools/gpu/build_plugin.sh).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$repo/build"
plugin=""
models=()
with_pocketsphinx=0
with_nginx=0
with_gpu_tests=0
part_mib=40
level=9
while [[ $# -gt 1 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --plugin) plugin="$2"; shift 2 ;;
    --model) models+=("$2"); shift 2 ;;
    --with-pocketsphinx) with_pocketsphinx=1; shift ;;
    --with-nginx) with_nginx=1; shift ;;
    --with-gpu-tests) with_gpu_tests=1; shift ;;
    --part-mib) part_mib="$2"; shift 2 ;;
    --level) level="$2"; shift 2 ;;
    *) echo "make_bundle.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out="${1:?usage: make_bundle.sh [--build DIR] [--plugin SO|none] [--model DIR ...] [--with-pocketsphinx] [--with-nginx] [--with-gpu-tests] [--part-mib N] [--level N] OUT_DIR}"
[[ -x "$build/lingcast" ]] || { echo "make_bundle.sh: $build/lingcast not found: build lingcast first (make build)" >&2; exit 2; }
if [[ -z "$plugin" && -f "$build/src/neural/plugin/liblingcast_neural_plugin.so" ]]; then
  plugin="$build/src/neural/plugin/liblingcast_neural_plugin.so"
fi
[[ "$plugin" == none ]] && plugin=""
[[ -z "$plugin" || -f "$plugin" ]] || { echo "make_bundle.sh: plug-in $plugin not found" >&2; exit 2; }

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/lingcast"
mkdir -p "$root/bin" "$root/lib/neural" "$root/share/fonts/opentype/noto"
step() { echo "make_bundle: $*" >&2; }

step "binary and its data"
cp "$build/lingcast" "$root/bin/lingcast"
cp -rL "$build/data" "$root/bin/data"
objects=("$build/lingcast")
if [[ -n "$plugin" ]]; then
  cp "$plugin" "$root/lib/neural/liblingcast_neural_plugin.so"
  objects+=("$plugin")
  shim="$(dirname "$plugin")/../marian/liblingcast_spm_shim.so"
  [[ -f "$shim" ]] || shim="$build/src/neural/marian/liblingcast_spm_shim.so"
  if [[ -f "$shim" ]]; then cp "$shim" "$root/lib/neural/liblingcast_spm_shim.so"; objects+=("$shim"); fi
fi

if [[ $with_gpu_tests == 1 ]]; then
  step "the CUDA renderer's tests"
  mkdir -p "$root/tests"
  for t in src/avatar/avatar_test src/compose/compose_test src/output/output_test src/app/app_test bench/cuda_render_bench bench/serve_bench; do
    [[ -x "$build/$t" ]] || { echo "make_bundle.sh: --with-gpu-tests needs $build/$t (cmake --build $build --target $(basename "$t"))" >&2; exit 2; }
    cp "$build/$t" "$root/tests/"
    objects+=("$build/$t")
  done
fi

if [[ $with_nginx == 1 ]]; then
  [[ -x /usr/sbin/nginx && -f /usr/lib/nginx/modules/ngx_rtmp_module.so ]] \
    || { echo "make_bundle.sh: --with-nginx needs nginx and libnginx-mod-rtmp (scripts/install-deps.sh)" >&2; exit 2; }
  mkdir -p "$root/lib/nginx"
  cp /usr/sbin/nginx "$root/bin/nginx"
  cp /usr/lib/nginx/modules/ngx_rtmp_module.so "$root/lib/nginx/"
  objects+=(/usr/sbin/nginx /usr/lib/nginx/modules/ngx_rtmp_module.so)
fi

# glibc's family, the C++ runtime, and what PyTorch brings: the target's own
# are used (system_libraries.sh, shared with bundle_check.sh).
source "$repo/tools/gpu/system_libraries.sh"
skip="^(${target_system_libraries}|${target_torch_libraries})\\.so"
# Libraries PyTorch's wheel ships its own copy of (its OpenMP runtime): ours go
# to lib/fallback, searched after PyTorch's, so torch keeps its own.
fallback='^(libgomp)\.so'
step "shared libraries"
count=0
while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  destination="$root/lib/$name"
  [[ "$name" =~ $fallback ]] && destination="$root/lib/fallback/$name"
  [[ -f "$destination" ]] && continue
  mkdir -p "$(dirname "$destination")"
  cp -L "$path" "$destination"
  count=$((count + 1))
done < <(for object in "${objects[@]}"; do ldd "$object"; done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u)
step "$count libraries"

step "espeak-ng's data, the CJK fonts, OpenCC's tables"
espeak_data="$(dirname "$(readlink -f "$(ldconfig -p | awk '/libespeak-ng.so.1 / {print $NF; exit}')")")/espeak-ng-data"
cp -r "$espeak_data" "$root/share/espeak-ng-data"
for weight in Regular Bold; do
  cp /usr/share/fonts/opentype/noto/NotoSansCJK-$weight.ttc "$root/share/fonts/opentype/noto/"
done
cp -r /usr/share/opencc "$root/share/opencc"
if [[ $with_pocketsphinx == 1 ]]; then
  mkdir -p "$root/share/pocketsphinx/model"
  cp -r /usr/share/pocketsphinx/model/en-us "$root/share/pocketsphinx/model/en-us"
fi

if [[ ${#models[@]} -gt 0 ]]; then
  step "models: ${models[*]}"
  mkdir -p "$root/models"
  # Symbolic links (install-deps.sh links weights from the virtual environment)
  # are followed when packing (tar -h).
  for model in "${models[@]}"; do ln -s "$(readlink -f "$model")" "$root/models/$(basename "$model")"; done
fi

cat >"$root/lingcast" <<'LAUNCHER'
#!/bin/sh
# lingcast from a relocatable bundle (tools/gpu/make_bundle.sh): its own
# libraries first, then PyTorch's when python3 has it (the neural plug-in needs
# them), its own espeak-ng data, fonts, OpenCC tables and plug-in.
here="$(cd "$(dirname "$0")" && pwd)"
# find_spec locates the package without importing it: `import torch` loads
# libtorch and CUDA's libraries, about 2 s on every start.
torch_lib="$(python3 -c 'import importlib.util, os; s = importlib.util.find_spec("torch"); print(os.path.join(s.submodule_search_locations[0], "lib"))' 2>/dev/null || true)"
# The plug-in needs CUDA's runtime by name too: PyTorch's pip packages keep it
# in site-packages/nvidia/*/lib.
if [ -n "$torch_lib" ]; then
  for dir in "$torch_lib"/../../nvidia/*/lib; do [ -d "$dir" ] && torch_lib="$torch_lib:$dir"; done
fi
LD_LIBRARY_PATH="$here/lib${torch_lib:+:$torch_lib}:$here/lib/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
export ESPEAK_DATA_PATH="$here/share"
export LINGCAST_SHARE_DIR="$here/share"
if [ -d "$here/models" ]; then export LINGCAST_MODELS="${LINGCAST_MODELS:-$here/models}"; fi
if [ -f "$here/lib/neural/liblingcast_neural_plugin.so" ]; then
  export LINGCAST_NEURAL_PLUGIN="${LINGCAST_NEURAL_PLUGIN:-$here/lib/neural/liblingcast_neural_plugin.so}"
  if [ -f "$here/lib/neural/liblingcast_spm_shim.so" ]; then
    export LINGCAST_SPM_SHIM="${LINGCAST_SPM_SHIM:-$here/lib/neural/liblingcast_spm_shim.so}"
  fi
fi
exec "$here/bin/lingcast" "$@"
LAUNCHER
chmod +x "$root/lingcast"
{
  echo "lingcast bundle of $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), made $(date -u +%FT%TZ) on $(. /etc/os-release; echo "$PRETTY_NAME")"
  echo "plug-in: ${plugin:-none}"
  (cd "$root" && find -L . -type f | sort)
} >"$root/MANIFEST"

step "compressing (xz -$level) into parts of $part_mib MiB"
rm -f "$out"/lingcast-bundle.tar.xz.part*
tar -C "$work" -chf - lingcast | xz -T0 -"$level" | split -b "${part_mib}M" -d -a 2 - "$out/lingcast-bundle.tar.xz.part"
(cd "$out" && sha256sum ./*.part?? >SHA256SUMS)
du -sh "$root" | awk '{print "make_bundle: unpacked " $1}' >&2
ls -l "$out"/*.part?? | awk '{printf "make_bundle: %s %.1f MiB\n", $NF, $5 / 1048576}' >&2
