#!/usr/bin/env bash
# Benchmark: `tweetcache serve` (tiles read out of each image's pyramid pack)
# against nginx serving the same Deep Zoom tiles as static per-tile files (written
# by `tweetcache export --tiles dz`, byte-identical), in one run, with wrk on
# loopback; then the cost of a cold tile made on request (lazy mode).
#
# Usage: bench/serve-vs-nginx.sh [--store] [DURATION] [CONNECTIONS]
#   --store      serve from object storage instead: the sample is fetched into a bucket
#                of a RADOS Gateway on loopback (scripts/rgw.sh; root, ceph, radosgw),
#                and `serve --store` runs over an empty cache directory, reading tiles
#                by range through its --local-max copy (warm after wrk's warm-up pass);
#                then a fresh server walks every tile once with an empty copy (cold:
#                p50 and p99 per tile)
#   DURATION     wrk duration per run (default 30s); each server gets RUNS (3) runs,
#                alternating, and the median of the per-pair ratios is reported
#   CONNECTIONS  wrk connections (default 64), 2 wrk threads
# Needs: nginx, wrk, curl; ../shared/bench/serve-corpus.sh (SHARED_BENCH to override).
# Output: a table on stdout; raw wrk output and the tile list in $KEEP_DIR if set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
store=
if [ "${1:-}" = "--store" ]; then store=1; shift; fi
duration=${1:-30s}
conns=${2:-64}
runs=${RUNS:-3}
tc_port=${TC_PORT:-8093}
nginx_port=${NGINX_PORT:-8094}
lazy_port=${LAZY_PORT:-8095}
for t in nginx wrk curl; do command -v $t >/dev/null || { echo "needs $t (apt-get install $t)" >&2; exit 1; }; done

# nginx workers run as nobody when started as root: the tree must be readable by them.
work=$(mktemp -d /tmp/tc-serve-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -z "$store" ] || "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  [ -n "${KEEP_DIR:-}" ] && cp "$work"/*.txt "$work"/*.lua "$KEEP_DIR"/ 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# TC_SCRATCH: another build folder (e.g. .build-release) so a benchmark build
# does not hold the lock on .build while debug builds run.
bin=$(tweetcache_binary .build)

echo "== making two caches from the built-in sample (eager tiles; lazy tiles)" >&2
store_args=()
if [ -n "$store" ]; then
  rgw_start "$work/rgw" tcserve
  store_args=(--store s3://tcserve --local-max "${LOCAL_MAX:-1GB}")
fi
"$bin" demo --cache "$work/eager" --quiet "${store_args[@]}" >&2
"$bin" demo --cache "$work/lazy" --tiles lazy --quiet >&2
chmod -R a+rX "$work"

# The same pyramids as per-tile files for nginx, at the URL paths the server answers.
"$bin" export --cache "$work/eager" --out "$work/static" --name '{sha256}.{ext}' --tiles dz >/dev/null
chmod -R a+rX "$work"
# Every Deep Zoom tile of an image with a pack, as both servers name it.
(cd "$work/static" && for p in $(cd "$work/eager" && ls derived/*/*.pack); do
   h=$(basename "$p" .pack); [ -d "dzi/${h}_files" ] && find "dzi/${h}_files" -name '*.jpg'; done | sort) > "$work/files.txt"
ntiles=$(wc -l < "$work/files.txt")
[ "$ntiles" -gt 0 ] || { echo "no tiles in the cache" >&2; exit 1; }
sed 's#^#/#' "$work/files.txt" > "$work/tc-paths.txt"
cp "$work/tc-paths.txt" "$work/nginx-paths.txt"
bytes=$(cd "$work/static" && xargs -d '\n' stat -c %s < "$work/files.txt" | awk '{s+=$1} END {print s}')

# A wrk script that walks a list of paths, one per request, from a different
# starting point in each thread (wrk counts non-2xx answers as status errors).
make_lua() {
  cat > "$2" <<LUA
local paths = {}
for line in io.lines("$1") do paths[#paths + 1] = line end
local i = 0
function setup(thread) thread:set("offset", math.random(#paths)) end
function init(args) i = offset or 0 end
function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d p50_us=%d p99_us=%d errors_connect=%d errors_read=%d errors_write=%d errors_status=%d errors_timeout=%d\n",
    summary.requests, latency:percentile(50), latency:percentile(99), summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout))
end
LUA
}
make_lua "$work/tc-paths.txt" "$work/tc.lua"
make_lua "$work/nginx-paths.txt" "$work/nginx.lua"

wait_up() { for _ in $(seq 100); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done; echo "server at $1 did not start" >&2; exit 1; }

if [ -n "$store" ]; then
  # A second machine: nothing on disk but what `serve` copies from the bucket.
  mkdir -p "$work/remote"
  "$bin" serve --cache "$work/remote" --port "$tc_port" "${store_args[@]}" > /dev/null 2> "$work/serve.log" &
else
  "$bin" serve --cache "$work/eager" --port "$tc_port" > /dev/null 2> "$work/serve.log" &
fi
tc_pid=$!
pids+=($tc_pid)
out=$("$shared/serve-corpus.sh" "$work/static" "$nginx_port")
eval "$(echo "$out" | tail -1)"
pids+=("$NGINX_PID")
wait_up "http://127.0.0.1:$tc_port/healthz"
wait_up "http://127.0.0.1:$nginx_port/$(head -1 "$work/files.txt")"

# Both must serve identical bytes for the same tile.
t1=$(head -1 "$work/tc-paths.txt"); n1=$(head -1 "$work/nginx-paths.txt")
cmp <(curl -sf "http://127.0.0.1:$tc_port$t1") <(curl -sf "http://127.0.0.1:$nginx_port$n1") \
  || { echo "tweetcache and nginx disagree on $t1" >&2; exit 1; }

# Runs alternate (tweetcache, nginx, tweetcache, ...): this VM's speed drifts by
# 10-20% over minutes, which a block of runs per server would read as a
# difference between the servers. Each pair gives a ratio; the median is reported.
declare -A all
one_run() {  # name port lua run
  wrk -t2 -c"$conns" -d"$duration" --latency -s "$3" "http://127.0.0.1:$2" > "$work/$1-$4.txt"
  all[$1]+="$(grep -E '^Requests/sec' "$work/$1-$4.txt" | awk '{print $2}') $(grep RESULT "$work/$1-$4.txt")"$'\n'
  echo "  $1 run $4: $(grep -E '^Requests/sec' "$work/$1-$4.txt" | awk '{print $2}') req/s" >&2
}
median_field() {  # name field(rps|p50_us|p99_us)
  printf '%s' "${all[$1]}" | while read -r rps rest; do
    case $2 in rps) echo "$rps";; *) echo "$rest" | sed -E "s/.*$2=([0-9]+).*/\1/";; esac
  done | sort -n | sed -n "$(( (runs + 1) / 2 ))p"
}
errors() {
  printf '%s' "${all[$1]}" | sed -E 's/.*errors_connect=([0-9]+) errors_read=([0-9]+) errors_write=([0-9]+) errors_status=([0-9]+) errors_timeout=([0-9]+).*/\1 \2 \3 \4 \5/' \
    | awk '{s+=$1+$2+$3+$4+$5} END {print s}'
}
echo "== wrk -t2 -c$conns -d$duration over $ntiles tiles ($((bytes / 1024)) KiB), $runs alternating runs each" >&2
# Warm-up: one pass over every tile (page cache, the server's memory cache, connections).
wrk -t2 -c"$conns" -d5s -s "$work/tc.lua" "http://127.0.0.1:$tc_port" > /dev/null
wrk -t2 -c"$conns" -d5s -s "$work/nginx.lua" "http://127.0.0.1:$nginx_port" > /dev/null
for r in $(seq "$runs"); do
  one_run tweetcache "$tc_port" "$work/tc.lua" "$r"
  one_run nginx "$nginx_port" "$work/nginx.lua" "$r"
done
declare -A rps p50 p99 errs
for name in tweetcache nginx; do
  rps[$name]=$(median_field $name rps); p50[$name]=$(median_field $name p50_us); p99[$name]=$(median_field $name p99_us)
  errs[$name]=$(errors $name)
done
pair_ratios=$(paste <(printf '%s' "${all[tweetcache]}" | awk '{print $1}') <(printf '%s' "${all[nginx]}" | awk '{print $1}') \
  | awk '{printf "%.2f\n", $1 / $2}')
if [ -n "$store" ]; then
  echo "== cold: a fresh server over the bucket with an empty local copy, every tile once" >&2
  cold_port=$((lazy_port + 1))
  mkdir -p "$work/cold"
  "$bin" serve --cache "$work/cold" --port "$cold_port" "${store_args[@]}" > /dev/null 2> "$work/cold.log" &
  pids+=($!)
  wait_up "http://127.0.0.1:$cold_port/healthz"
  # One connection, one request at a time: each answer is one ranged GET of its pack
  # (the pack's index too, for an image's first tile).
  sed "s#^#url = \"http://127.0.0.1:$cold_port#; s#\$#\"\noutput = /dev/null#" "$work/tc-paths.txt" > "$work/cold.cfg"
  curl -sf --config "$work/cold.cfg" -w '%{time_total}\n' > "$work/cold-times.txt"
  cold_n=$(wc -l < "$work/cold-times.txt")
  cold_p50=$(sort -n "$work/cold-times.txt" | awk -v n="$cold_n" 'NR == int((n + 1) / 2) {printf "%.2f", $1 * 1000}')
  cold_p99=$(sort -n "$work/cold-times.txt" | awk -v n="$cold_n" 'NR == int(n * 0.99 + 0.5) {printf "%.2f", $1 * 1000}')
  copy_bytes=$(du -sb "$work/remote/objects" | cut -f1)
  rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$tc_pid/status")
fi
echo "== cold tiles made on request (lazy cache)" >&2
"$bin" serve --cache "$work/lazy" --port "$lazy_port" > /dev/null 2> "$work/lazy.log" &
pids+=($!)
wait_up "http://127.0.0.1:$lazy_port/healthz"
# The first tile of each image (decode + tile) and then a neighbour (decoded image kept).
hashes=$(cd "$work/lazy/blobs/sha256" && ls */ | grep -E '^[0-9a-f]{64}$' | head -40)
first=(); second=(); warm=()
for h in $hashes; do
  dzi=$(curl -sf "http://127.0.0.1:$lazy_port/dzi/$h.dzi") || continue
  w=$(echo "$dzi" | sed -nE 's/.*Width="([0-9]+)".*/\1/p'); ht=$(echo "$dzi" | sed -nE 's/.*Height="([0-9]+)".*/\1/p')
  [ "${w:-0}" -ge 1024 ] || continue
  top=$(python3 -c "import math; print(math.ceil(math.log2(max($w,$ht))))")
  first+=("$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$lazy_port/dzi/${h}_files/$top/1_1.jpg")")
  second+=("$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$lazy_port/dzi/${h}_files/$top/2_1.jpg")")
  warm+=("$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$lazy_port/dzi/${h}_files/$top/2_1.jpg")")
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", (NR ? a[int((NR+1)/2)] : 0) * 1000}'; }

ratio=$(echo "$pair_ratios" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
cat <<TABLE
| server | requests/s | p50 | p99 | errors |
|---|---:|---:|---:|---:|
| tweetcache serve | ${rps[tweetcache]} | $(awk -v v="${p50[tweetcache]}" 'BEGIN{printf "%.2f ms", v/1000}') | $(awk -v v="${p99[tweetcache]}" 'BEGIN{printf "%.2f ms", v/1000}') | ${errs[tweetcache]} |
| nginx (static files) | ${rps[nginx]} | $(awk -v v="${p50[nginx]}" 'BEGIN{printf "%.2f ms", v/1000}') | $(awk -v v="${p99[nginx]}" 'BEGIN{printf "%.2f ms", v/1000}') | ${errs[nginx]} |

tweetcache / nginx requests/s: **${ratio}x**, median of $runs back-to-back pairs (pairs: $(echo $pair_ratios | sed 's/ /x, /g')x; $ntiles distinct tiles, wrk -t2 -c$conns -d$duration)

${store:+Served from a bucket (RGW on loopback) through the read-through copy; warm = after one pass over every tile. Local copy after the runs: $((${copy_bytes:-0} / 1024)) KiB; serve RSS $((${rss_kb:-0} / 1024)) MiB.
Cold, from the bucket (fresh server, empty local copy, $cold_n tiles one at a time): p50 $cold_p50 ms, p99 $cold_p99 ms per tile.
}
Cold tiles (lazy cache, ${#first[@]} images of 1024 px or more, full-resolution level, median):
first tile of an image (decode + tile; its pack is then built in the background) $(med "${first[@]}") ms; next tile of the same image $(med "${second[@]}") ms; the same tile again (cached) $(med "${warm[@]}") ms.
TABLE
