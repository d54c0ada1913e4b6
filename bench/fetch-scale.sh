#!/usr/bin/env bash
# Benchmark (issue 26): `tweetcache fetch` of an archive-scale collection in memory
# flat in the run's size. Cuts the first 10,000, 100,000 and 1,000,000 posts of the
# corpus (JSON Lines, 100 posts a line), fetches each into an empty cache from the
# shared nginx origin on loopback, and reports wall time, peak RSS (/usr/bin/time
# %M), images cached, the input's and the manifest's sizes and their ratio (issue 53:
# a manifest at most half its input), with RSS against the 10,000-post run and wall
# time against the 100,000-post run.
#
# Usage: bench/fetch-scale.sh CORPUS_DIR
#   CORPUS_DIR  made by bench/make-fetch-corpus.py (posts.jsonl, media/, profile_images/)
#   SIZES="10000 100000 1000000" picks the cuts; TWEETCACHE_BIN=path skips the build;
#   KEEP=1 keeps the caches (under $WORK, default a mktemp -d directory).
# Needs: nginx, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
corpus=$(cd "${1:?usage: fetch-scale.sh CORPUS_DIR}" && pwd)
port=${PORT:-8098}
sizes=${SIZES:-"10000 100000 1000000"}
bin=$(tweetcache_binary .build-release)
work=${WORK:-$(mktemp -d /tmp/tc-fetch-scale.XXXXXX)}
mkdir -p "$work"
chmod -R a+rX "$corpus"
out=$("$shared/serve-corpus.sh" "$corpus" "$port")
eval "$(echo "$out" | tail -1)"
cleanup() {
  kill "$NGINX_PID" 2>/dev/null || true
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

echo "| posts | wall (s) | peak RSS (MB) | images | input (MB) | manifest (MB) | manifest / input | s per 100k posts |"
echo "|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  input=$work/posts-$n.jsonl
  head -n $(( (n + 99) / 100 )) "$corpus/posts.jsonl" > "$input"
  cache=$work/cache-$n
  rm -rf "$cache"
  sync
  /usr/bin/time -f "%e %M" -o "$work/time-$n.txt" \
    "$bin" fetch "$input" --cache "$cache" --quiet --mirror "pbs.twimg.com=http://127.0.0.1:$port" \
    > "$work/fetch-$n.txt" 2>&1 || { cat "$work/fetch-$n.txt" >&2; exit 1; }
  read -r wall rss_kb < "$work/time-$n.txt"
  images=$(find "$cache/blobs" -type f | wc -l)
  # Runs' manifests as written (`.json.zst` now, `.json` before), against the pages they read.
  manifest_bytes=$(find "$cache/manifests" -maxdepth 1 \( -name '*.json' -o -name '*.json.zst' \) ! -name '.*' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  input_bytes=$(stat -c %s "$input")
  manifest=$(awk -v b="$manifest_bytes" 'BEGIN{printf "%.1f", b/1e6}')
  ratio=$(awk -v m="$manifest_bytes" -v i="$input_bytes" 'BEGIN{printf "%.3fx", m/i}')
  per=$(awk -v w="$wall" -v n="$n" 'BEGIN{printf "%.1f", w / n * 100000}')
  echo "| $n | $wall | $((rss_kb / 1024)) | $images | $(awk -v b="$input_bytes" 'BEGIN{printf "%.1f", b/1e6}') | $manifest | $ratio | $per |"
  # RERUN=1 (issue 53, part 8): the same input fetched again into the same cache; the
  # second run's manifest against the first's (its frames name the first's).
  if [ "${RERUN:-0}" = 1 ]; then
    /usr/bin/time -f "%e %M" -o "$work/time-$n-again.txt" \
      "$bin" fetch "$input" --cache "$cache" --quiet --mirror "pbs.twimg.com=http://127.0.0.1:$port" \
      > "$work/fetch-$n-again.txt" 2>&1 || { cat "$work/fetch-$n-again.txt" >&2; exit 1; }
    read -r wall2 rss2_kb < "$work/time-$n-again.txt"
    second=$(find "$cache/manifests" -maxdepth 1 -name '*.json.zst' ! -name '.*' -printf '%T@ %s\n' | sort -n | tail -1 | cut -d' ' -f2)
    same=$("$bin" manifest --cache "$cache" | wc -c)
    echo "|   again | $wall2 | $((rss2_kb / 1024)) | | | $(awk -v b="$second" 'BEGIN{printf "%.3f", b/1e6}') | $(awk -v s="$second" -v m="$manifest_bytes" 'BEGIN{printf "%.4f%% of the first", 100*s/m}') | JSON $same bytes |"
  fi
  rm -f "$input"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$cache"
done
