#!/usr/bin/env bash
# Benchmark: default `tweetcache fetch` of the 10,000-tweet scale corpus (10,400
# photos, mostly 320x240 with every 50th 1200x800, and 100 avatars: 10,500 images)
# from the shared nginx origin on loopback, into an empty cache. Reports wall
# time, peak RSS, and what the derived area holds (files, folders, bytes) against
# the originals.
#
# Usage: bench/scale-10k.sh [CORPUS_DIR]
#   CORPUS_DIR  made by bench/make-scale-corpus.py if missing (default /tmp/tc-scale-corpus)
#   TWEETCACHE_BIN=path skips the release build.
# Needs: nginx, /usr/bin/time, python3 with numpy and Pillow (for the corpus).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
corpus=${1:-/tmp/tc-scale-corpus}
port=${PORT:-8096}
[ -f "$corpus/results.json" ] || python3 "$here/make-scale-corpus.py" "$corpus" >&2
chmod -R a+rX "$corpus"
bin=$(tweetcache_binary .build-release)
work=$(mktemp -d /tmp/tc-scale.XXXXXX)
out=$("$shared/serve-corpus.sh" "$corpus" "$port")
eval "$(echo "$out" | tail -1)"
trap 'kill "$NGINX_PID" 2>/dev/null || true; rm -rf "$work"' EXIT
/usr/bin/time -f "%e %M" -o "$work/time.txt" \
  "$bin" fetch "$corpus/results.json" --cache "$work/cache" --quiet --mirror "pbs.twimg.com=http://127.0.0.1:$port" >&2
read -r wall rss_kb < "$work/time.txt"
cache=$work/cache
files=$(find "$cache/derived" -type f | wc -l)
folders=$(find "$cache/derived" -mindepth 1 -type d | wc -l)
derived=$(find "$cache/derived" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
originals=$(find "$cache/blobs" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
blobs=$(find "$cache/blobs" -type f | wc -l)
packs=$(find "$cache/derived" -name '*.pack' | wc -l)
cat <<TABLE
| | |
|---|---|
| images cached | $blobs (originals $(awk -v b="$originals" 'BEGIN{printf "%.1f MB", b/1e6}')) |
| wall time (fetch + derive) | ${wall} s |
| peak RSS | $((rss_kb / 1024)) MB |
| derived files | $files ($(awk -v f="$files" -v n="$blobs" 'BEGIN{printf "%.2f", f/n}') per image), $packs packs |
| derived folders | $folders (shards only) |
| derived bytes | $(awk -v b="$derived" 'BEGIN{printf "%.1f MB", b/1e6}') = $(awk -v d="$derived" -v o="$originals" 'BEGIN{printf "%.2f", d/o}')x the originals |
TABLE
