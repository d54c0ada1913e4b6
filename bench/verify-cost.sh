#!/usr/bin/env bash
# Benchmark: what verified reads cost a server over a bucket, same run, A/B.
# Two builds of tweetcache serve the same bucket (a RADOS Gateway on loopback,
# scripts/rgw.sh) from an empty cache directory each, and every path is read once,
# one request at a time (cold: each answer is a bucket read):
#   originals   /blob/<hash>             (B hashes the whole object against its name)
#   thumbnails  /thumb/<hash>/150        (B hashes it against the hash recorded when made)
#   tiles       /dzi/<hash>_files/L/C_R  (both check the tile's CRC in the pack)
# Rounds alternate A and B (this VM drifts over minutes); per kind the median of
# each round's p50 and p99 is reported, and B/A.
#
# Usage: bench/verify-cost.sh OLD_BIN NEW_BIN [ROUNDS]
#   OLD_BIN   a build before verified reads, e.g.
#             git worktree add /tmp/tc-old 3ec005e && (cd /tmp/tc-old &&
#             swift build -c release --static-swift-stdlib --product tweetcache --scratch-path .build-release)
#   NEW_BIN   this build (.build-release/release/tweetcache)
#   ROUNDS    default 3
# Needs: curl; root with ceph and radosgw (scripts/rgw.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
old=${1:?usage: bench/verify-cost.sh OLD_BIN NEW_BIN [ROUNDS]}
new=${2:?usage: bench/verify-cost.sh OLD_BIN NEW_BIN [ROUNDS]}
rounds=${3:-3}
shared=${SHARED_BENCH:-$repo/../shared/bench}
. "$here/lib.sh"
port=${TC_PORT:-8098}

work=$(mktemp -d /tmp/tc-verify-cost.XXXXXX)
server=
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

echo "== a gateway on loopback and the built-in sample published to it (by B)" >&2
rgw_start "$work/rgw" tcverify
"$new" demo --cache "$work/first" --quiet --store s3://tcverify >&2
"$new" export --cache "$work/first" --out "$work/static" --name '{sha256}.{ext}' --tiles dz > /dev/null

hashes=$(cd "$work/first/derived" && ls */*.pack | sed -E 's#.*/([0-9a-f]{64})\.pack#\1#')
: > "$work/blob.txt"; : > "$work/thumb.txt"
for h in $hashes; do
  echo "/blob/$h" >> "$work/blob.txt"
  echo "/thumb/$h/150" >> "$work/thumb.txt"
done
(cd "$work/static" && find dzi -name '*.jpg' | sort | sed 's#^#/#') > "$work/tile.txt"

# One server over an empty cache: every path of each kind once, one at a time.
walk() {  # bin label round
  local cache="$work/cache-$2-$3"
  mkdir -p "$cache"
  "$1" serve --cache "$cache" --port "$port" --store s3://tcverify > /dev/null 2> "$work/serve-$2-$3.log" &
  server=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
  for kind in blob thumb tile; do
    sed "s#^#url = \"http://127.0.0.1:$port#; s#\$#\"\noutput = /dev/null#" "$work/$kind.txt" > "$work/walk.cfg"
    curl -s --config "$work/walk.cfg" -w '%{http_code} %{time_total}\n' > "$work/times-$2-$3-$kind.txt"
    bad=$(awk '$1 != 200' "$work/times-$2-$3-$kind.txt" | wc -l)
    [ "$bad" = 0 ] || echo "   $2 round $3 $kind: $bad answers not 200" >&2
  done
  kill "$server"; wait "$server" 2>/dev/null || true
  server=
}
pct() {  # file q -> ms
  awk '{print $2}' "$1" | sort -n | awk -v q="$2" '{a[NR]=$1} END {i=int(NR*q+0.999); if (i<1) i=1; printf "%.3f\n", a[i]*1000}'
}
for r in $(seq "$rounds"); do
  echo "== round $r" >&2
  walk "$old" A "$r"
  walk "$new" B "$r"
done
median() { sort -n | sed -n "$(( (rounds + 1) / 2 ))p"; }
echo "| reads from the bucket (cold, one at a time) | count | A p50 | B p50 | B/A p50 | A p99 | B p99 | B/A p99 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for kind in blob thumb tile; do
  n=$(wc -l < "$work/$kind.txt")
  a50=$(for r in $(seq "$rounds"); do pct "$work/times-A-$r-$kind.txt" 0.5; done | median)
  b50=$(for r in $(seq "$rounds"); do pct "$work/times-B-$r-$kind.txt" 0.5; done | median)
  a99=$(for r in $(seq "$rounds"); do pct "$work/times-A-$r-$kind.txt" 0.99; done | median)
  b99=$(for r in $(seq "$rounds"); do pct "$work/times-B-$r-$kind.txt" 0.99; done | median)
  name=$(case $kind in blob) echo "originals (/blob)";; thumb) echo "thumbnails (/thumb/…/150)";; tile) echo "tiles (/dzi, from packs)";; esac)
  echo "| $name | $n | $a50 ms | $b50 ms | $(awk -v a="$a50" -v b="$b50" 'BEGIN {printf "%.2fx", b / a}') | $a99 ms | $b99 ms | $(awk -v a="$a99" -v b="$b99" 'BEGIN {printf "%.2fx", b / a}') |"
done
echo
echo "A: $old; B: $new; median of $rounds alternating rounds; each round a fresh server over an empty cache directory."
