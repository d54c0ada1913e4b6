#!/usr/bin/env bash
# Benchmark: time to first paint of the viewer's list in headless Chromium on the
# 10,000-tweet scale cache (real time, from navigation: Chromium driven over its
# debugging pipe by bench/paint-probe.py), with the list loaded a page at a time (the default, 100
# tweets) and, for contrast, in one page of 1,000. Also the server's time for the
# first page of /api/tweets (curl, warm).
#
# Usage: bench/viewer-first-paint.sh [CORPUS_DIR] [RUNS]
#   CORPUS_DIR  the scale corpus (bench/make-scale-corpus.py; default /tmp/tc-scale-corpus);
#               its cache is made once by `tweetcache fetch` into CORPUS_DIR.cache
#   RUNS        Chromium runs per variant (default 5); the medians are reported
#   TWEETCACHE_BIN=path skips the release build; CHROMIUM=path overrides `chromium`.
# Needs: nginx (for the one-time fetch), chromium, curl, python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
corpus=${1:-/tmp/tc-scale-corpus}
runs=${2:-5}
chrome=${CHROMIUM:-chromium}
[ -f "$corpus/results.json" ] || python3 "$here/make-scale-corpus.py" "$corpus" >&2
bin=$(tweetcache_binary .build-release)
cache=$corpus.cache
if [ ! -d "$cache/manifests" ]; then
  chmod -R a+rX "$corpus"
  out=$("$shared/serve-corpus.sh" "$corpus" 8097)
  eval "$(echo "$out" | tail -1)"
  "$bin" fetch "$corpus/results.json" --cache "$cache" --quiet --mirror "pbs.twimg.com=http://127.0.0.1:8097" >&2 || true
  kill "$NGINX_PID" 2>/dev/null || true
fi
work=$(mktemp -d /tmp/tc-paint.XXXXXX)
"$bin" serve --cache "$cache" --port 0 > "$work/serve.out" 2> "$work/serve.err" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(awk '/listening/ {print $2}' "$work/serve.out")
tweets=$(curl -s "$base/api/tweets?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
curl -s -o /dev/null "$base/api/tweets"   # warm the merged manifests
api_ms=$(for _ in $(seq 20); do curl -s -o /dev/null -w '%{time_total}\n' "$base/api/tweets"; done |
  sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]*1000}')

paint() { # QUERY -> one JSON line per run (bench/paint-probe.py drives Chromium in real time)
  for _ in $(seq "$runs"); do python3 "$here/paint-probe.py" "$chrome" "$base/?debug$1"; done
}
report() { # LABEL QUERY
  paint "$2" | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
if not rows: sys.exit("no paint figures: the page did not report (is chromium installed?)")
fcp = statistics.median(r["firstContentfulPaintMs"] for r in rows)
shown = statistics.median(r["listPaintedMs"] for r in rows)
drawn = rows[0]["tweetsShown"]
print(f"| {sys.argv[1]} | {drawn} | {fcp:.0f} ms | {shown:.0f} ms | {len(rows)} |")' "$1"
}
echo "cache: $cache ($tweets tweets); first page of /api/tweets (100 tweets): median $api_ms ms over 20 (curl)"
echo
echo "| list | tweets drawn | first contentful paint | list painted | runs |"
echo "|---|---:|---:|---:|---:|"
report "pages of 100 (default)" ""
report "one page of 1,000" "&limit=1000"
