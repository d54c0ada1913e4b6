#!/usr/bin/env bash
# Benchmark (issue 50): what 2,000 distinct thumbnail sizes of one image cost a
# server: bytes added to the cache on disk, and the server's peak RSS against its
# memory budget (64 MB of kept answers, as much again for the hot path, 384 MB of
# decoded originals). Sizes other than the cache's own (150, 600, --thumb-sizes)
# are made into the bounded memory cache only.
#
# Usage: bench/thumb-sizes.sh [SIZES] [PARALLEL]
#   SIZES     distinct sizes asked for, 16, 17, … (default 2000)
#   PARALLEL  curl requests at once (default 4)
# The render limit is off (--render-rate 0): this measures the disk and memory
# bounds, not the per-client limit, which would refuse most of them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
shared=${SHARED_BENCH:-$repo/../shared/bench}
. "$here/lib.sh"
sizes=${1:-2000}
parallel=${2:-4}
port=${PORT:-8097}
bin=$(tweetcache_binary .build)
work=$(mktemp -d /tmp/tc-thumb-sizes.XXXXXX)
pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$bin" demo --cache "$work/cache" --quiet >/dev/null 2>&1
hash=$("$bin" ls --type photo --sort size --cache "$work/cache" --json | grep -o '[0-9a-f]\{64\}' | head -1)
dims=$("$bin" info "$hash" --cache "$work/cache" 2>/dev/null | grep -io '[0-9]\+ *x *[0-9]\+' | head -1 || true)
before=$(du -sb "$work/cache" | cut -f1)
files_before=$(find "$work/cache" -type f | wc -l)

"$bin" serve --cache "$work/cache" --port "$port" --render-rate 0 >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done

start=$(date +%s.%N)
seq 16 $((15 + sizes)) | xargs -P "$parallel" -I{} curl -s -o /dev/null -w '%{http_code}\n' \
  "http://127.0.0.1:$port/thumb/$hash/{}" >"$work/codes"
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
ok=$(grep -c '^200$' "$work/codes" || true)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
after=$(du -sb "$work/cache" | cut -f1)
files_after=$(find "$work/cache" -type f | wc -l)

echo "image: $hash ${dims:+($dims)}"
echo "| sizes asked | 200s | time | added on disk | files added | server peak RSS | RSS at end |"
echo "|---|---|---|---|---|---|---|"
printf '| %d | %d | %.1f s | %s bytes | %d | %d MB | %d MB |\n' "$sizes" "$ok" "$elapsed" "$((after - before))" \
  "$((files_after - files_before))" "$((hwm / 1024))" "$((rss / 1024))"
