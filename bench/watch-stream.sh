#!/usr/bin/env bash
# Benchmark: `tweetcache watch --stream` against a loopback Jetstream posting at a
# steady rate (issue 48: 1,000 posts/s for 10 minutes; RSS flat, at most 200 MB and
# within 20% of its first minute; each post listed by /api/tweets at most 60 s after
# it was sent; no post lost across 3 kill -9s).
#
# In one run: tc-fake-stream (the Jetstream and its image origin: every 20th post has a
# 320x240 photo from a pool of 50), `tweetcache serve` on the cache, and the watch,
# killed with SIGKILL at evenly spaced times and started again at once. Every 5 s:
# the watch's RSS (ps), and the newest post /api/tweets lists (its text says when it
# was sent: now minus that is how far behind the listing is). At the end, after the
# stream stops and the watch is stopped with SIGTERM: the posts the catalog holds
# against the posts sent.
#
# Usage: bench/watch-stream.sh [SECONDS] [RATE] [KILLS]   (default 600 1000 3)
#   TWEETCACHE_BIN=path skips the release build; FAKE_STREAM_BIN=path, the tool's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
seconds=${1:-600}
rate=${2:-1000}
kills=${3:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-watch-bench.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
bin=$(tweetcache_binary .build)
fake=${FAKE_STREAM_BIN:-}
if [ -z "$fake" ]; then
  (cd "$repo" && swift build -c release --product tc-fake-stream --scratch-path .build >&2)
  fake=$repo/.build/release/tc-fake-stream
fi
cache=$work/cache

"$fake" --rate "$rate" --seconds "$seconds" > "$work/fake.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q '^origin ' "$work/fake.out" && break; sleep 0.1; done
jet=$(awk '/^jetstream /{print $2}' "$work/fake.out")
origin=$(awk '/^origin /{print $2}' "$work/fake.out")
mkdir -p "$cache"
"$bin" serve --cache "$cache" --port 0 > "$work/serve.out" 2> "$work/serve.err" &
pids+=($!)
for _ in $(seq 100); do grep -q '^listening ' "$work/serve.out" && break; sleep 0.1; done
port=$(sed -n 's/^listening .*:\([0-9]*\).*/\1/p' "$work/serve.out" | head -1)

watch_start() {
  "$bin" watch --stream --network bluesky '#bench' --jetstream "$jet" --cache "$cache" \
    --mirror "cdn.bsky.app=$origin" --tiles none >> "$work/watch.err" 2>&1 &
  watch_pid=$!
  pids+=($watch_pid)
}
watch_start
started=$(date +%s)
interval=$(( seconds / (kills + 1) ))
next_kill=$(( started + interval ))
killed=0
echo "t_s rss_mb behind_s listed" > "$work/samples"
while :; do
  now=$(date +%s)
  elapsed=$(( now - started ))
  [ "$elapsed" -ge "$seconds" ] && break
  if [ "$killed" -lt "$kills" ] && [ "$now" -ge "$next_kill" ]; then
    kill -9 "$watch_pid"; wait "$watch_pid" 2>/dev/null || true
    killed=$((killed + 1)); next_kill=$(( next_kill + interval ))
    echo "kill -9 at ${elapsed} s" >&2
    watch_start
  fi
  rss=$(ps -o rss= -p "$watch_pid" 2>/dev/null | tr -d ' ' || echo 0)
  body=$(curl -s "http://127.0.0.1:$port/api/tweets?limit=1" || true)
  python3 - "$elapsed" "${rss:-0}" "$body" >> "$work/samples" <<'PY'
import json, re, sys, time
elapsed, rss, body = sys.argv[1], int(sys.argv[2] or 0), sys.argv[3]
behind, total = "", ""
try:
    data = json.loads(body)
    total = data.get("total", "")
    text = data["tweets"][0]["text"]
    sent = int(re.search(r"sent=(\d+)", text).group(1))
    behind = "%.1f" % (time.time() - sent / 1000)
except Exception:
    pass
print(elapsed, round(rss / 1024), behind, total)
PY
  sleep 5
done
# The stream stops: the watch caches what it has, then SIGTERM.
for _ in $(seq 600); do grep -q '^sent ' "$work/fake.out" && break; sleep 0.5; done
sent=$(awk '/^sent /{print $2}' "$work/fake.out")
# The stream's last posts still on their way (the watch runs about a second behind).
sleep 20
kill -TERM "$watch_pid"; wait "$watch_pid" 2>/dev/null || true
held=$(curl -s "http://127.0.0.1:$port/api/tweets?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("total"))')
# Which posts are missing, by number (n/rate is when it was sent).
python3 - "$cache/catalog.sqlite" "$sent" "$rate" <<'PY'
import sqlite3, sys
db, sent, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held = set()
for (i,) in sqlite3.connect(db).execute("SELECT id FROM posts WHERE network = 'bluesky' AND included = 0"):
    tail = i.rsplit("/", 1)[-1]
    if tail.startswith("b") and tail[1:].isdigit(): held.add(int(tail[1:]))
missing = [n for n in range(1, sent + 1) if n not in held]
if missing:
    print(f"  missing {len(missing)}: first n={missing[0]} (sent at {missing[0] / rate:.1f} s), last n={missing[-1]} ({missing[-1] / rate:.1f} s)")
    buckets = {}
    for n in missing: buckets[n // (rate * 10) * 10] = buckets.get(n // (rate * 10) * 10, 0) + 1
    print("  missing by the second they were sent (10 s buckets): " + ", ".join(f"{k} s: {v}" for k, v in sorted(buckets.items())))
PY
python3 - "$work/samples" "$sent" "$held" "$killed" "$seconds" "$rate" <<'PY'
import sys
path, sent, held, killed, seconds, rate = sys.argv[1:]
rows = [l.split() for l in open(path).read().splitlines()[1:]]
rss = [(int(r[0]), int(r[1])) for r in rows if int(r[1]) > 0]
behind = [float(r[2]) for r in rows if len(r) > 2 and r[2] not in ("",)]
first = [m for t, m in rss if t < 60] or [0]
print(f"watch --stream, {rate} posts/s for {seconds} s, {killed} kill -9s")
print(f"  posts sent {sent}, held at the end {held}, lost {int(sent) - int(held)}")
print(f"  RSS: first minute max {max(first)} MB, overall max {max(m for _, m in rss)} MB, last {rss[-1][1]} MB")
print(f"  listing behind the stream: median {sorted(behind)[len(behind)//2]:.1f} s, max {max(behind):.1f} s (sampled every 5 s)")
PY
cp "$work/samples" "${TMPDIR:-/tmp}/watch-stream-samples.txt"
grep -c "cached a batch" "$work/watch.err" | sed 's/^/  batches cached: /'
grep -E "cached [0-9]+ posts the last" "$work/watch.err" | sed 's/^/  /' || true
