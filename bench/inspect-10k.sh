#!/usr/bin/env bash
# Benchmark: `tweetcache verify` and `tweetcache stats` on a cache of 10,000 blobs,
# with `sha256sum` over the same blob files on both cores (`xargs -P2`) as the peer:
# verify should be limited by SHA-256 and the disk, like sha256sum.
#
# Usage: bench/inspect-10k.sh [COUNT] [BYTES] [RUNS]
#   COUNT  blobs (default 10000); BYTES  size of each (default 16384); RUNS  hyperfine runs (default 10)
#   TWEETCACHE_BIN=path skips the release build (e.g. to try the script on a debug build).
# Needs: hyperfine, sha256sum, xargs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
count=${1:-10000}
bytes=${2:-16384}
runs=${3:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-inspect-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

bin=$(tweetcache_binary .build)

cache=$work/cache
"$bin" bench-fill --cache "$cache" --count "$count" --size "$bytes" >&2
find "$cache/blobs/sha256" -type f > "$work/blobs.txt"
echo "blobs: $(wc -l < "$work/blobs.txt"), $(du -sh "$cache/blobs" | cut -f1) on disk" >&2

# Warm the page cache once so every command reads from memory, as a re-run would.
cat "$work/blobs.txt" | xargs cat > /dev/null

hyperfine --warmup 2 --runs "$runs" --export-json "$work/inspect.json" \
  -n 'tweetcache verify' "$bin verify --cache $cache" \
  -n 'tweetcache stats' "$bin stats --cache $cache" \
  -n 'sha256sum -P2' "xargs -a $work/blobs.txt -P2 -n 500 sha256sum > /dev/null" \
  -n 'sha256sum -P1' "xargs -a $work/blobs.txt -P1 -n 500 sha256sum > /dev/null"

python3 - "$work/inspect.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
peer = r["sha256sum -P2"]["median"]
for name in ["tweetcache verify", "tweetcache stats", "sha256sum -P2", "sha256sum -P1"]:
    m = r[name]["median"]
    print(f"{name:20s} median {m*1000:8.1f} ms  ({m/peer:.2f}x sha256sum -P2)")
PY
