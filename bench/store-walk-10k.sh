#!/usr/bin/env bash
# Benchmark: `serve --store` walking 10,000+ images of a bucket with a small
# --local-max: the local copy must stay under its bound, and the server's memory
# must stay flat, however many images pass through.
#
# 1. The 10,000-tweet scale corpus (bench/make-scale-corpus.py) is fetched by one
#    machine into a bucket of a RADOS Gateway on loopback (scripts/rgw.sh).
# 2. A second cache directory, empty, serves the bucket (`serve --store --local-max`),
#    and every image is asked for once: its 150 px thumbnail and its top-level tile
#    (read by range from its pack, or cut from the original for small images).
# 3. Every second the copy's size and serve's RSS are sampled. The server's memory
#    caches (responses 64 MB, tiles 64 MB, decoded originals 384 MB: TileServerConfiguration)
#    fill in the first seconds; after that RSS must not grow with the images walked.
#
# Usage: bench/store-walk-10k.sh [CORPUS_DIR] [LOCAL_MAX]   (default /tmp/tc-scale-corpus, 64MB)
# Needs: root, ceph ceph-mon ceph-osd radosgw, nginx, curl, python3 (+numpy, Pillow for the corpus).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
corpus=${1:-/tmp/tc-scale-corpus}
local_max=${2:-64MB}
origin_port=${PORT:-8096}
serve_port=${SERVE_PORT:-8097}
[ -f "$corpus/results.json" ] || python3 "$here/make-scale-corpus.py" "$corpus" >&2
chmod -R a+rX "$corpus"
bin=$(tweetcache_binary .build-release)
work=$(mktemp -d /tmp/tc-walk.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

out=$("$shared/serve-corpus.sh" "$corpus" "$origin_port")
eval "$(echo "$out" | tail -1)"
pids+=("$NGINX_PID")
"$repo/scripts/rgw.sh" start "$work/rgw" > /dev/null
set -a; . "$work/rgw/env"; set +a
curl -sf -X PUT --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$AWS_ENDPOINT_URL/tcwalk"

echo "== machine 1: fetch the corpus into the bucket" >&2
/usr/bin/time -f "%e" -o "$work/fetch-time.txt" "$bin" fetch "$corpus/results.json" --cache "$work/fetcher" --quiet \
  --mirror "pbs.twimg.com=http://127.0.0.1:$origin_port" --store s3://tcwalk > "$work/fetch.txt"
grep -E '^(urls|store) ' "$work/fetch.txt" >&2

echo "== machine 2: serve the bucket with --local-max $local_max, walk every image once" >&2
mkdir -p "$work/walker"
"$bin" serve --cache "$work/walker" --port "$serve_port" --store s3://tcwalk --local-max "$local_max" \
  > /dev/null 2> "$work/serve.log" &
serve_pid=$!
pids+=($serve_pid)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$serve_port/healthz" >/dev/null && break; sleep 0.1; done

# Every image's thumbnail, then its top-level tile (the descriptor says the level).
python3 - "$work/fetcher/manifests" "http://127.0.0.1:$serve_port" > "$work/walk.cfg" <<'PY'
import json, math, os, sys
folder, base = sys.argv[1], sys.argv[2]
seen = set()
for name in sorted(os.listdir(folder)):
    m = json.load(open(os.path.join(folder, name)))
    for t in m["tweets"]:
        refs = [t["author"].get("avatar")] + t["media"]
        for r in refs:
            if not r or not r.get("sha256") or r["sha256"] in seen or not r.get("width"):
                continue
            h = r["sha256"]; seen.add(h)
            top = math.ceil(math.log2(max(r["width"], r["height"])))
            for path in (f"/thumb/{h}/150", f"/dzi/{h}_files/{top}/0_0.jpg"):
                print(f'url = "{base}{path}"\noutput = /dev/null')
PY
requests=$(grep -c '^url' "$work/walk.cfg")
bound=$(python3 -c "
import re,sys; m=re.fullmatch(r'([0-9.]+)\s*([KMG]?)B?', '$local_max'.upper()); print(int(float(m[1]) * {'':1,'K':1<<10,'M':1<<20,'G':1<<30}[m[2]]))")

# Samples: seconds, copy bytes, RSS KiB.
# (No errexit in here: du fails when the server evicts a file under it.)
(set +e +o pipefail
 start=$(date +%s.%N)
 while kill -0 "$serve_pid" 2>/dev/null; do
   # What --local-max bounds: the bytes of the files (du would add the shard folders' 4 KiB each).
   copy=$(find "$work/walker/objects" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}')
   rss=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status" 2>/dev/null || echo 0)
   echo "$(echo "$(date +%s.%N) - $start" | bc) ${copy:-0} ${rss:-0}"
   sleep 1
 done) > "$work/samples.txt" &
sampler=$!
pids+=($sampler)
# Two passes (PASSES): the second asks again for everything the 64 MB copy has long evicted, so
# the bucket is read all over again; memory must end where the first pass ended.
walk_start=$(date +%s.%N)
curl -s --no-progress-meter --parallel --parallel-max 8 --config "$work/walk.cfg" -w '%{http_code}\n' > "$work/codes.txt"
pass_end=$(date +%s.%N)
rss_pass1=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
for _ in $(seq 2 "${PASSES:-2}"); do
  curl -s --no-progress-meter --parallel --parallel-max 8 --config "$work/walk.cfg" -w '%{http_code}\n' >> "$work/codes.txt"
done
walk_end=$(date +%s.%N)
rss_pass2=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
sleep 1.5
kill "$sampler" 2>/dev/null || true

ok=$(grep -c '^200$' "$work/codes.txt" || true)
{ echo "samples (seconds, copy bytes, RSS KiB):"; awk 'NR % 5 == 1' "$work/samples.txt"; } >&2
python3 - "$work/samples.txt" "$bound" "$((requests * ${PASSES:-2}))" "$ok" "$walk_start" "$walk_end" "$(cat "$work/fetch-time.txt")" \
  "$rss_pass1" "$rss_pass2" "$pass_end" "${PASSES:-2}" <<'PY'
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
bound, requests, ok = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
secs = float(sys.argv[6]) - float(sys.argv[5])
copies = [r[1] for r in rows]; rss = [r[2] / 1024 for r in rows if r[2] > 0]
n = len(rss)
at = lambda f: rss[min(n - 1, int(f * (n - 1)))]
print(f"| walk | {sys.argv[11]} passes, {requests} requests ({ok} answered 200) in {secs:.1f} s, {requests / secs:.0f}/s, 8 at a time |")
print(f"| local copy | largest {max(copies) / 2**20:.1f} MiB sampled, bound {bound / 2**20:.0f} MiB: "
      f"{'under' if max(copies) <= bound else 'OVER'} |")
print(f"| serve RSS | {at(0.1):.0f} MiB at 10% of the walk, {at(0.25):.0f} MiB at 25%, {at(0.5):.0f} MiB at 50%, "
      f"{at(0.75):.0f} MiB at 75%, {at(1.0):.0f} MiB at the end, peak {max(rss):.0f} MiB "
      f"(the server's memory caches fill to their budgets, then stay) |")
print(f"| fetch into the bucket (machine 1) | {sys.argv[7]} s |")
print(f"| serve RSS after each pass over every image | {int(sys.argv[8]) / 1024:.0f} MiB after the first "
      f"({float(sys.argv[10]) - float(sys.argv[5]):.1f} s), {int(sys.argv[9]) / 1024:.0f} MiB after the last |")
PY
