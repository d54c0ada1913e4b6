#!/usr/bin/env bash
# Benchmark: the whole pipeline (fetch + thumbnails 150 and 600 + zoom pyramids)
# on the 100-image corpus from a loopback nginx, against the same work by peers:
# `curl --parallel` into a folder, then libvips in one process (pyvips) for the
# two thumbnail sizes and a Deep Zoom pyramid of every image, in one hyperfine
# run. Also reports the derived bytes against the originals, and what the PDQ
# perceptual hashes cost (the same run with --no-pdq).
#
# Usage: bench/pipeline-vs-peers.sh [CORPUS_DIR] [RUNS]
# Needs: nginx, hyperfine, curl, pyvips (pip), ../shared/bench.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
runs=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-pipeline-bench.XXXXXX")
corpus=$(shared_corpus "$work" "${1:-}")
bin=$(tweetcache_binary .build-release)
out=$("$shared/serve-corpus.sh" "$corpus" 8089)
eval "$(echo "$out" | tail -n 1)"
trap 'kill "$NGINX_PID" 2>/dev/null || true; rm -rf "$work"' EXIT
python3 "$here/make-results.py" "$corpus/urls.txt" > "$work/page.json"
jobs=$(nproc)
peer="curl -sS --no-progress-meter --fail --parallel --parallel-max 16 --output-dir $work/peer/dl --remote-name-all \$(cat $corpus/urls.txt) \
 && python3 $shared/vips-batch.py thumbnail $work/peer/t150 $work/peer/dl/* --size 150 --jobs $jobs \
 && python3 $shared/vips-batch.py thumbnail $work/peer/t600 $work/peer/dl/* --size 600 --jobs $jobs \
 && python3 $shared/vips-batch.py dzsave $work/peer/dz $work/peer/dl/* --layout dz --jobs $jobs"
hyperfine --warmup 1 --runs "$runs" --export-json "$work/pipeline.json" \
  -n tweetcache --prepare "rm -rf $work/tc && sync" \
    "$bin fetch $work/page.json --cache $work/tc --quiet" \
  -n tweetcache-no-pdq --prepare "rm -rf $work/tc && sync" \
    "$bin fetch $work/page.json --cache $work/tc --quiet --no-pdq" \
  -n peers --prepare "rm -rf $work/peer && mkdir -p $work/peer/dl $work/peer/t150 $work/peer/t600 $work/peer/dz && sync" \
    "bash -c '$peer'" >&2
python3 - "$work/pipeline.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
tc, peer = r["tweetcache"], r["peers"]
print(f"pipeline: tweetcache median {tc['median']:.2f} s, curl + pyvips thumbnail x2 + dzsave median {peer['median']:.2f} s, "
      f"ratio {tc['median']/peer['median']:.2f}x")
bare = r["tweetcache-no-pdq"]
print(f"PDQ hashes: tweetcache median {tc['median']:.2f} s with, {bare['median']:.2f} s without (--no-pdq): "
      f"+{(tc['median'] / bare['median'] - 1) * 100:.1f}%")
PY
originals=$(find "$work/tc/blobs" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
derived=$(find "$work/tc/derived" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "derived area: $(find "$work/tc/derived" -type f | wc -l) files, $(find "$work/tc/derived" -mindepth 1 -type d | wc -l) folders, $((derived / 1000000)) MB = $(awk -v d="$derived" -v o="$originals" 'BEGIN{printf "%.2f", d/o}')x the originals ($((originals / 1000000)) MB)"
echo "peers' Deep Zoom tree alone: $(du -sb "$work/peer/dz" 2>/dev/null | cut -f1) bytes (last run)"
