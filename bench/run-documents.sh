#!/usr/bin/env bash
# Benchmark: a run's IIIF Presentation documents at archive scale (issue 53, part 4).
# Starts `tweetcache serve` on CACHE and walks what a viewer can reach from the top
# Collection for each run: the run's Collection, each result file's Collection of
# pages when it has one, and every page's Manifest. Prints per kind of document the
# count, median, p99 and slowest of curl's time_total, their total bytes, and the
# server's peak RSS (VmHWM) after the walk; a document that does not answer 200 stops
# the walk. Run two binaries alternately (A B A B) to compare them.
#
# Usage: TWEETCACHE_BIN=… bench/run-documents.sh CACHE_DIR [PORT] [MAX_PAGES]
#   MAX_PAGES (default: all) caps the page Manifests fetched per run, spread evenly.
set -euo pipefail
BIN=${TWEETCACHE_BIN:?set TWEETCACHE_BIN to a tweetcache binary}
CACHE=${1:?cache directory}
PORT=${2:-8098}
MAX=${3:-0}
if curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"; then echo "port $PORT is already serving" >&2; exit 1; fi
LOG=$(mktemp); OUT=$(mktemp); TIMES=$(mktemp)
"$BIN" serve --cache "$CACHE" --port "$PORT" >"$LOG" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$LOG" "$OUT" "$TIMES"' EXIT
for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
kill -0 "$pid" 2>/dev/null || { echo "serve stopped:" >&2; cat "$LOG" >&2; exit 1; }
base="http://127.0.0.1:$PORT"
echo "server RSS at start: $(awk '/VmRSS/ {print $2 " " $3}' /proc/$pid/status)"
# fetch KIND URL: the document into $OUT, its time and size appended to $TIMES.
fetch() {
  local status
  status=$(curl -s -o "$OUT" -w '%{http_code} %{time_total} %{size_download}' "$2")
  [ "${status%% *}" = 200 ] || { echo "$2: HTTP ${status%% *}" >&2; cat "$LOG" >&2; exit 1; }
  echo "$1 ${status#* }" >> "$TIMES"
}
ids() { python3 -c 'import json,sys; [print(i["id"], i["type"]) for i in json.load(open(sys.argv[1])).get("items", [])]' "$OUT"; }
# The documents' ids are this server's URLs (it names itself by the Host asked for).
fetch top "$base/iiif/presentation/collection.json"
runs=$(ids | awk '$2 == "Collection" && $1 ~ /\/run\// {print $1}')
for run in $runs; do
  fetch run "$run"
  items=$(ids)
  pages=()
  while read -r id type; do
    if [ "$type" = Collection ]; then
      fetch pages "$id"
      while read -r page _; do pages+=("$page"); done <<< "$(ids)"
    else
      pages+=("$id")
    fi
  done <<< "$items"
  n=${#pages[@]}
  step=1; [ "$MAX" -gt 0 ] && [ "$n" -gt "$MAX" ] && step=$(( n / MAX ))
  for (( i = 0; i < n; i += step )); do fetch page "${pages[$i]}"; done
done
python3 - "$TIMES" <<'PY'
import sys, collections
docs = collections.defaultdict(list); size = collections.Counter()
for line in open(sys.argv[1]):
    kind, t, b = line.split(); docs[kind].append(float(t)); size[kind] += int(b)
for kind in sorted(docs):
    v = sorted(docs[kind]); n = len(v)
    print(f"{kind:<6} {n:6d} docs  median {1000 * v[(n - 1) // 2]:.1f} ms  p99 {1000 * v[min(n - 1, int(n * 0.99))]:.1f} ms"
          f"  max {1000 * v[-1]:.1f} ms  total {sum(v):.1f} s  {size[kind] / 1e6:.1f} MB")
PY
echo "server RSS after the walk: $(awk '/VmRSS/ {print $2 " " $3}' /proc/$pid/status), peak $(awk '/VmHWM/ {print $2 " " $3}' /proc/$pid/status)"
