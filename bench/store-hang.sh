#!/usr/bin/env bash
# Benchmark: `serve --store` while its bucket hangs. A RADOS Gateway on loopback
# (scripts/rgw.sh) is frozen with SIGSTOP: it accepts connections and never
# answers, the worst way a store fails. wrk then drives 64 connections for 30 s
# over a mix of warm paths (read once before the hang, held in the --local-max
# copy) and cold ones (never read), and the gateway is resumed (SIGCONT).
#
# What it must show (issue 27): every request answered within --timeout + 1 s
# (wrk's max latency; its own timeout is set far above, so a hang shows as a
# socket timeout), 0 hangs, warm paths still 200, cold ones 503 at once once the
# store is marked down, and /healthz back to ok within 2 s of the gateway
# returning (and a cold path 200 again).
#
# Usage: bench/store-hang.sh [DURATION] [CONNECTIONS] [TIMEOUT_SECONDS]
#   defaults 30s, 64, 2
# Needs: wrk, curl; root with ceph and radosgw (scripts/rgw.sh).
# Output: a table on stdout; raw wrk output in $KEEP_DIR if set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
shared=${SHARED_BENCH:-$repo/../shared/bench}
. "$here/lib.sh"
duration=${1:-30s}
conns=${2:-64}
timeout=${3:-2}
port=${TC_PORT:-8097}
for t in wrk curl; do command -v $t >/dev/null || { echo "needs $t (apt-get install $t)" >&2; exit 1; }; done

work=$(mktemp -d /tmp/tc-hang-bench.XXXXXX)
pids=()
rgw_pid=
cleanup() {
  [ -z "$rgw_pid" ] || kill -CONT "$rgw_pid" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  [ -n "${KEEP_DIR:-}" ] && cp "$work"/*.txt "$work"/*.log "$KEEP_DIR"/ 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
bin=$(tweetcache_binary .build)

echo "== a gateway on loopback and the built-in sample published to it" >&2
rgw_start "$work/rgw" tchang
"$bin" demo --cache "$work/first" --quiet --store s3://tchang >&2

# Paths a client asks for: every Deep Zoom tile of the top level, every thumbnail
# and every original, split in two: warm (read once before the hang) and cold.
hashes=$(cd "$work/first/derived" && ls */*.pack | sed -E 's#.*/([0-9a-f]{64})\.pack#\1#')
: > "$work/all.txt"
for h in $hashes; do
  echo "/blob/$h" >> "$work/all.txt"
  echo "/thumb/$h/150" >> "$work/all.txt"
  echo "/dzi/${h}_files/8/0_0.jpg" >> "$work/all.txt"
  echo "/dzi/${h}_files/9/0_0.jpg" >> "$work/all.txt"
  echo "/iiif/3/$h/info.json" >> "$work/all.txt"
done
awk 'NR % 2 == 1' "$work/all.txt" > "$work/warm.txt"
awk 'NR % 2 == 0' "$work/all.txt" > "$work/cold.txt"

echo "== a second machine serving the bucket (--timeout $timeout)" >&2
mkdir -p "$work/second"
"$bin" serve --cache "$work/second" --port "$port" --store s3://tchang --timeout "$timeout" > /dev/null 2> "$work/serve.log" &
serve_pid=$!
pids+=($serve_pid)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
warm_ok=0
while read -r p; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$p")
  [ "$code" = 200 ] && warm_ok=$((warm_ok + 1))
done < "$work/warm.txt"
echo "   warmed $warm_ok of $(wc -l < "$work/warm.txt") paths" >&2

# A wrk script over one list that counts answers by status (per thread, summed at the end).
make_lua() {
  cat > "$2" <<LUA
local paths = {}
for line in io.lines("$1") do paths[#paths + 1] = line end
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) i = math.random(#paths); ok = 0; unavailable = 0; other = 0 end
function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
function response(status, headers, body)
  if status == 200 then ok = ok + 1 elseif status == 503 then unavailable = unavailable + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local t = {ok = 0, unavailable = 0, other = 0}
  for _, thread in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + (thread:get(k) or 0) end
  end
  io.write(string.format("RESULT requests=%d max_us=%d p50_us=%d p99_us=%d timeouts=%d connect=%d read=%d ok=%d unavailable=%d other=%d\\n",
    summary.requests, latency.max, latency:percentile(50), latency:percentile(99), summary.errors.timeout,
    summary.errors.connect, summary.errors.read, t.ok, t.unavailable, t.other))
end
LUA
}
make_lua "$work/warm.txt" "$work/warm.lua"
make_lua "$work/cold.txt" "$work/cold.lua"

rgw_pid=$(cat "$work/rgw/run/3-rgw.pid")
echo "== gateway frozen (SIGSTOP $rgw_pid); wrk -t2 -c$conns -d$duration" >&2
kill -STOP "$rgw_pid"
# Half the connections on warm paths, half on cold ones, at once. wrk's own timeout
# is far above the server's: a request the server let hang shows as a socket
# timeout or as a latency over the deadline.
wrk -t1 -c$((conns / 2)) -d"$duration" --timeout 60s --latency -s "$work/warm.lua" "http://127.0.0.1:$port" > "$work/wrk-warm.txt" &
warm_wrk=$!
wrk -t1 -c$((conns / 2)) -d"$duration" --timeout 60s --latency -s "$work/cold.lua" "http://127.0.0.1:$port" > "$work/wrk-cold.txt" &
cold_wrk=$!
# wrk's latency percentiles are not per request when answers are this uneven (its
# mean disagrees with requests x time / connections), so a sampler beside the load
# times single requests, one at a time, warm and cold in turn: its percentiles are
# what a client sees. wrk's max latency and socket timeouts stay the hang check.
end=$(( $(date +%s) + ${duration%s} ))
: > "$work/samples.txt"
while [ "$(date +%s)" -lt "$end" ]; do
  for kind in warm cold; do
    p=$(shuf -n1 "$work/$kind.txt")
    echo "$kind $(curl -s -m 60 -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$port$p")" >> "$work/samples.txt"
  done
done
wait "$warm_wrk" "$cold_wrk"
health_during=$(curl -s -m 5 "http://127.0.0.1:$port/healthz")

echo "== gateway resumed (SIGCONT)" >&2
resumed=$(date +%s%N)
kill -CONT "$rgw_pid"
healthy_ms=
for _ in $(seq 200); do
  if curl -s -m 1 "http://127.0.0.1:$port/healthz" | grep -q '"ok"'; then
    healthy_ms=$(( ($(date +%s%N) - resumed) / 1000000 )); break
  fi
  sleep 0.05
done
cold_ms=
first_cold=$(head -1 "$work/cold.txt")
for _ in $(seq 200); do
  if [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$first_cold")" = 200 ]; then
    cold_ms=$(( ($(date +%s%N) - resumed) / 1000000 )); break
  fi
  sleep 0.05
done
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
rgw_pid=

warm=$(grep RESULT "$work/wrk-warm.txt"); cold=$(grep RESULT "$work/wrk-cold.txt")
field() { echo "$1" | sed -E "s/.* $2=([0-9]+).*/\1/"; }
ms() { awk -v v="$1" 'BEGIN {printf "%.2f", v / 1000}'; }
limit_ms=$(( (timeout + 1) * 1000 ))
max_us=$(( $(field "$warm" max_us) > $(field "$cold" max_us) ? $(field "$warm" max_us) : $(field "$cold" max_us) ))
hangs=$(( $(field "$warm" timeouts) + $(field "$cold" timeouts) ))
verdict=$([ "$max_us" -le $((limit_ms * 1000)) ] && [ "$hangs" = 0 ] && echo "within" || echo "OVER")
sampled() {  # kind percentile -> ms
  awk -v k="$1" '$1 == k {print $3}' "$work/samples.txt" | sort -n \
    | awk -v q="$2" '{a[NR]=$1} END {i=int(NR*q+0.999); if (i<1) i=1; printf "%.2f", a[i]*1000}'
}
row() {  # name result
  echo "| $1 | $(field "$2" requests) | $(ms "$(field "$2" max_us)") ms | $(field "$2" timeouts) | $(field "$2" ok) | $(field "$2" unavailable) | $(field "$2" other) | $(awk -v k="$1" '$1 == k' "$work/samples.txt" | wc -l) | $(sampled "$1" 0.5) ms | $(sampled "$1" 0.99) ms | $(sampled "$1" 1) ms |"
}
cat <<TABLE
Gateway frozen (SIGSTOP) for wrk -c$conns -d$duration (half on warm paths, half on cold) against \`serve --store --timeout $timeout\`;
$(wc -l < "$work/warm.txt") warm paths (read once before the freeze) and $(wc -l < "$work/cold.txt") cold ones: originals, thumbnails, tiles, info.json.

| paths | requests (wrk) | max latency (wrk) | hangs (wrk timeouts) | 200 | 503 | other | sampled requests | p50 | p99 | max |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(row warm "$warm")
$(row cold "$cold")

Max latency $(ms "$max_us") ms against a limit of $limit_ms ms (--timeout + 1 s): **$verdict**; $hangs hangs.
/healthz while frozen: \`$health_during\`
Recovery after SIGCONT: /healthz ok in ${healthy_ms:-never} ms, a cold path 200 in ${cold_ms:-never} ms. serve peak RSS $((${rss_kb:-0} / 1024)) MiB.
TABLE
