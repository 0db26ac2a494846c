#!/usr/bin/env bash
# same_outputs: do `lingcast render` and `lingcast live --clock simulated` still
# write the same bytes? For refactors that must not change behaviour.
#
#   bench/same_outputs.sh record DIR [BUILD_DIR]    run the shows, keep their digests in DIR
#   bench/same_outputs.sh compare DIR [BUILD_DIR]   run them again, compare with DIR's digests
#
# Record with the build before the change, compare with the build after. The
# shows: the demo script rendered with the installed voices (burnt subtitles)
# and with espeak-ng (SRT sidecar, highlighted words, a title); a live English
# host followed on its script with pocketsphinx; a live Mandarin host heard by
# Whisper (when its weights are installed). Compared: every MP4's bytes, every
# SRT, and the live report's utterances (each line's decision, text and media
# times; the report's wall-clock figures differ run to run by nature).
# Prints one line per output and exits 1 when any differs.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: same_outputs.sh record|compare DIR [BUILD_DIR]}
dir=${2:?usage: same_outputs.sh record|compare DIR [BUILD_DIR]}
build=${3:-build}
case "$mode" in record|compare) ;; *) echo "same_outputs: mode must be record or compare" >&2; exit 2 ;; esac
lingcast="$build/lingcast"
export LINGCAST_DATA_DIR="$build/data"
py=python3
[ -x .venv/bin/python ] && py=.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dir"
data=../shared/data/speech

run() {  # NAME ARGS...: run lingcast quietly; its stderr is shown only on failure
  local name=$1; shift
  if ! "$lingcast" "$@" > "$tmp/$name.stdout" 2> "$tmp/$name.stderr"; then
    echo "same_outputs: $name failed:" >&2; cat "$tmp/$name.stderr" >&2; exit 1
  fi
}

run render-neural render examples/demo.script -o "$tmp/render-neural.mp4" --size 640x360 --encoder-threads 2 --quiet
run render-espeak render examples/demo.script -o "$tmp/render-espeak.mp4" --size 640x360 --encoder-threads 2 --quiet \
  --tts espeak --subtitles srt --highlight-words --title "Lingcast|same_outputs"
run live-en live --asr pocketsphinx --tts espeak --in "$data/en-jfk.wav" --script bench/data/same_outputs_en.script \
  --out "$tmp/live-en.mp4" --clock simulated --size 320x180 --report "$tmp/live-en.report.json" --quiet
if [ -d models/whisper-base ]; then
  run live-zh live --asr whisper --source zh --target en --in "$data/zh-aishell-BAC009S0764W0121.wav" \
    --out "$tmp/live-zh.mp4" --clock simulated --size 320x180 --report "$tmp/live-zh.report.json" --quiet
else
  echo "same_outputs: models/whisper-base is not installed; the Mandarin live show is left out"
fi

# Digests: one line "NAME SHA256" per output.
: > "$tmp/digests"
for f in "$tmp"/*.mp4 "$tmp"/*.srt; do
  [ -e "$f" ] || continue
  echo "$(basename "$f") $(sha256sum "$f" | cut -d' ' -f1)" >> "$tmp/digests"
done
for f in "$tmp"/*.report.json; do
  [ -e "$f" ] || continue
  digest=$("$py" -c 'import json,sys,hashlib; u=json.load(open(sys.argv[1]))["utterances"]; print(hashlib.sha256(json.dumps(u,sort_keys=True).encode()).hexdigest())' "$f")
  echo "$(basename "$f" .report.json).utterances $digest" >> "$tmp/digests"
done

if [ "$mode" = record ]; then
  cp "$tmp/digests" "$dir/digests"
  for f in "$tmp"/*.report.json; do [ -e "$f" ] && cp "$f" "$dir/"; done
  echo "same_outputs: recorded $(wc -l < "$dir/digests") digests in $dir/digests"
  exit 0
fi
[ -f "$dir/digests" ] || { echo "same_outputs: $dir/digests is missing; run record first" >&2; exit 2; }
differ=0
while read -r name digest; do
  before=$(awk -v n="$name" '$1 == n { print $2 }' "$dir/digests")
  if [ -z "$before" ]; then
    echo "  $name: new (not in the recording)"; differ=1
  elif [ "$before" = "$digest" ]; then
    echo "  $name: same"
  else
    echo "  $name: DIFFERS"; differ=1
  fi
done < "$tmp/digests"
while read -r name _; do
  grep -q "^$name " "$tmp/digests" || { echo "  $name: missing now"; differ=1; }
done < "$dir/digests"
[ "$differ" = 0 ] && echo "same_outputs: every output is the same" || echo "same_outputs: outputs differ"
exit "$differ"
