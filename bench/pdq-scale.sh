#!/usr/bin/env bash
# Benchmark: PDQ near-duplicate search at a million photos. In one run, over a cache
# whose manifests hold COUNT posts with one hashed photo each (made by the hidden
# `tweetcache bench-pdq --write`: distinct generated pictures hashed by the project's
# own hasher, 5% reposts of earlier ones, one in ten of those mirrored):
#   1. `reindex`: the manifests (and their hashes) read into the catalog;
#   2. the index build and 1,000 near-duplicate queries in one process (p50, p99),
#      against the peer: a numpy scan of every hash (XOR and popcount over arrays of
#      uint64) with the same eight dihedral hashes per query;
#   3. `tweetcache dupes` over the whole set: wall time and peak RSS;
#   4. `serve`: the first /api/duplicates/<sha256> after a start (the index kept by step 2),
#      then 500 more (p50, p99).
#
# Usage: bench/pdq-scale.sh DIR   (COUNT=1000000; the corpus is made in DIR when absent,
#   about 2 minutes; TWEETCACHE_BIN=path skips the build; TC_PORT default 8098)
# Needs: python3 with numpy, curl, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
mkdir -p "${1:?usage: bench/pdq-scale.sh DIR}"
dir=$(cd "$1" && pwd)
count=${COUNT:-1000000}
port=${TC_PORT:-8098}
bin=$(tweetcache_binary .build-release)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null || true; }
trap cleanup EXIT

measure() {  # measure NAME COMMAND...: wall seconds and peak RSS of one run
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/.time" "$@" > "$dir/.out" 2> "$dir/.err" || { cat "$dir/.err" >&2; exit 1; }
  read -r seconds rss < "$dir/.time"
  echo "$name: ${seconds} s, peak RSS $((rss / 1024)) MB"
}

if [ ! -d "$dir/manifests" ]; then
  measure "corpus ($count posts, hashed)" "$bin" bench-pdq --write "$dir" --count "$count"
fi
rm -f "$dir/catalog.sqlite"*
measure "reindex" "$bin" reindex --cache "$dir"
measure "index build + 1000 queries" "$bin" bench-pdq --query "$dir" --queries 1000
cat "$dir/.out"

python3 - "$dir/catalog.sqlite" <<'PY'
import sqlite3, sys, time
import numpy as np
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT hashes FROM images_pdq WHERE quality >= 50 ORDER BY id").fetchall()
t = time.perf_counter()
originals = np.frombuffer(b"".join(r[0][:32] for r in rows), dtype=">u8").reshape(-1, 4).astype(np.uint64)
load = time.perf_counter() - t
rng = np.random.default_rng(5)
times = []
for q in rng.integers(0, len(rows), 100):
    variants = np.frombuffer(rows[q][0], dtype=">u8").reshape(8, 4).astype(np.uint64)
    t = time.perf_counter()
    best = None
    for v in variants:
        d = np.bitwise_count(originals ^ v).sum(axis=1)
        best = d if best is None else np.minimum(best, d)
    hits = int((best <= 31).sum())
    times.append((time.perf_counter() - t) * 1000)
times.sort()
print(f"peer (numpy scan of {len(rows)} hashes, 8 dihedral queries): array built in {load:.2f} s; "
      f"100 queries: p50 {times[50]:.1f} ms, p99 {times[98]:.1f} ms")
PY

measure "dupes (all groups)" "$bin" dupes --cache "$dir" --json
python3 -c "import json,sys; d=json.load(open('$dir/.out')); print(f\"dupes: {d['total']} groups among {d['hashed']} hashed photos\")"

"$bin" serve --cache "$dir" --port "$port" > "$dir/.serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
sha=$(printf '%016x%048d' 12345 0)
curl -fs -o /dev/null -w "first /api/duplicates after the start (maps the kept index, catalog.sqlite.pdq, or builds it): %{time_total} s\n" "http://127.0.0.1:$port/api/duplicates/$sha"
for i in $(seq 500); do
  printf '%016x%048d\n' $(( (i * 7919) % count + 1 )) 0
done | while read -r h; do
  curl -fs -o /dev/null -w "%{time_total}\n" "http://127.0.0.1:$port/api/duplicates/$h"
done | sort -n | awk '{ t[NR] = $1 } END { printf "/api/duplicates: %d requests, p50 %.1f ms, p99 %.1f ms\n", NR, t[int(NR*0.5)]*1000, t[int(NR*0.99)]*1000 }'
echo "server peak RSS: $(( $(awk '/VmHWM/ {print $2}' /proc/$server/status) / 1024 )) MB"
