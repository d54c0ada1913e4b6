#!/usr/bin/env bash
# Benchmark: `tweetcache fetch` (download + SHA-256 + atomic store + index + manifest)
# against `curl --parallel --parallel-max 16` on the same URLs, in the same run.
#
# Usage: bench/fetch-vs-curl.sh [CORPUS_DIR] [RUNS]
#   CORPUS_DIR  made by ../shared/bench/make-corpus.py (default: a fresh one in $TMPDIR)
#   RUNS        hyperfine runs per command (default 20: downloads are noisy here)
# Needs: nginx, hyperfine, curl, python3 (+numpy, Pillow to make a corpus).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
shared=${SHARED_BENCH:-$repo/../shared/bench}
runs=${2:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-fetch-bench.XXXXXX")
corpus=${1:-}
if [ -z "$corpus" ]; then
  corpus=$work/corpus
  python3 "$shared/make-corpus.py" --out "$corpus" --scale full >&2
fi
corpus=$(cd "$corpus" && pwd)

scratch=${TC_SCRATCH:-.build}
(cd "$repo" && swift build -c release --static-swift-stdlib --product tweetcache --scratch-path "$scratch" >&2)
bin=$repo/$scratch/release/tweetcache

out=$("$shared/serve-corpus.sh" "$corpus" 8089)
eval "$(echo "$out" | tail -n 1)"
trap 'kill "$NGINX_PID" 2>/dev/null || true; rm -rf "$work"' EXIT

python3 "$here/make-results.py" "$corpus/urls.txt" > "$work/page.json"
mkdir -p "$work/out"
cd "$work"
hyperfine --warmup 2 --runs "$runs" --export-json "$work/fetch-vs-curl.json" \
  -n tweetcache --prepare "rm -rf $work/out/tc && sync" \
    "$bin fetch $work/page.json --cache $work/out/tc --quiet --tiles none --thumb-sizes ''" \
  -n 'curl --parallel' --prepare "rm -rf $work/out/curl && mkdir -p $work/out/curl && sync" \
    "curl -sS --no-progress-meter --fail --parallel --parallel-max 16 --output-dir $work/out/curl --remote-name-all \$(cat $corpus/urls.txt)" \
  -n 'curl --parallel + sync' --prepare "rm -rf $work/out/curls && mkdir -p $work/out/curls && sync" \
    "curl -sS --no-progress-meter --fail --parallel --parallel-max 16 --output-dir $work/out/curls --remote-name-all \$(cat $corpus/urls.txt) && sync -f $work/out/curls"

python3 - "$work/fetch-vs-curl.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
tc, cu, cs = r["tweetcache"], r["curl --parallel"], r["curl --parallel + sync"]
print(f"tweetcache median {tc['median']*1000:.1f} ms, curl median {cu['median']*1000:.1f} ms, "
      f"ratio {tc['median']/cu['median']:.2f}x (mean ratio {tc['mean']/cu['mean']:.2f}x); "
      f"cpu tweetcache {tc['user']+tc['system']:.3f} s, curl {cu['user']+cu['system']:.3f} s")
print(f"with the same durability (curl, then sync -f of its files' file system): curl+sync median "
      f"{cs['median']*1000:.1f} ms, ratio {tc['median']/cs['median']:.2f}x")
PY
# Check the cache is complete and correct after the last run.
"$bin" fetch "$work/page.json" --cache "$work/out/tc" --json --quiet | python3 -c '
import json,sys; s=json.load(sys.stdin)["summary"]; print("second run over the same results:", s["cached"], "cached,", s["downloaded"], "downloaded,", s["failed"], "failed")'
