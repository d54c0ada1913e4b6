#!/usr/bin/env bash
# Benchmark: full-text pages of `serve` at archive scale. Over a cache whose catalog
# holds a million posts (bench/make-catalog-corpus.py, then `tweetcache reindex`),
# starts `tweetcache serve` and asks `/api/tweets?limit=100&q=WORDS` ten times per
# query, then ten times the page after it (its `next` cursor), and prints the medians
# of curl's time_total, the total and the page's size. Run two binaries alternately
# (A B A B) to compare them; this machine's speed drifts over minutes.
#
# Usage: TWEETCACHE_BIN=… bench/catalog-words.sh CACHE_DIR [PORT] [QUERY…]
#   default queries: common words and prefixes of the catalog corpus (ul, m, ul m),
#   and two-word queries with a few thousand matches (misaor mon, glevis ka).
set -euo pipefail
BIN=${TWEETCACHE_BIN:?set TWEETCACHE_BIN to a tweetcache binary}
CACHE=${1:?cache directory}
PORT=${2:-8097}
shift $(( $# < 2 ? $# : 2 ))
QUERIES=("$@")
[ ${#QUERIES[@]} -gt 0 ] || QUERIES=("ul" "m" "misaor mon" "glevis ka" "ul m")
# A server left on the port by an earlier run would answer for ours.
if curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"; then echo "port $PORT is already serving" >&2; exit 1; fi
LOG=$(mktemp); OUT=$(mktemp)
"$BIN" serve --cache "$CACHE" --port "$PORT" >"$LOG" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$LOG" "$OUT"' EXIT
for _ in $(seq 150); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
# Still running: it did not fail to start.
kill -0 "$pid" 2>/dev/null || { echo "serve stopped:" >&2; cat "$LOG" >&2; exit 1; }
curl -sf -o /dev/null "http://127.0.0.1:$PORT/api/tweets?limit=100" || { cat "$LOG" >&2; exit 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for q in "${QUERIES[@]}"; do
    enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$q")
    first=$(for _ in $(seq 10); do
        curl -sf -o "$OUT" -w '%{time_total}\n' "http://127.0.0.1:$PORT/api/tweets?limit=100&q=$enc"; done | median)
    read -r total count next < <(python3 -c 'import json, sys, urllib.parse
d = json.load(open(sys.argv[1])); print(d["total"], len(d["tweets"]), urllib.parse.quote(d.get("next") or "-"))' "$OUT")
    later="-"; later_count=0
    if [ "$next" != "-" ]; then
        later=$(for _ in $(seq 10); do
            curl -sf -o "$OUT" -w '%{time_total}\n' "http://127.0.0.1:$PORT/api/tweets?limit=100&q=$enc&cursor=$next"; done | median)
        later_count=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["tweets"]))' "$OUT")
    fi
    printf 'q=%-14s total %8s  first page %ss (%s posts)  next page %ss (%s posts)\n' \
        "\"$q\"" "$total" "$first" "$count" "$later" "$later_count"
done
