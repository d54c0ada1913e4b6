#!/usr/bin/env bash
# Benchmark: `tweetcache fetch --store s3://…` (download, SHA-256, durable local store,
# index, manifest, then every original and the manifest PUT to the bucket with
# If-None-Match and the body's SHA-256) against `curl --parallel --parallel-max 16`
# into a folder followed by `rclone copy` of that folder to the same bucket, in the
# same hyperfine run, against a real S3 server: Ceph's RADOS Gateway on loopback
# (scripts/rgw.sh). Each run writes below a new prefix, so every object is a real
# upload, not a "412, already there".
#
# Usage: bench/store-vs-rclone.sh [CORPUS_DIR] [RUNS]
#   CORPUS_DIR  from ../shared/bench/make-corpus.py (default: a fresh one, 100 images)
#   RUNS        hyperfine runs (default 10)
# Needs: root (the gateway), ceph ceph-mon ceph-osd radosgw, rclone, nginx, hyperfine, curl.
# Environment: TC_SCRATCH (build folder, default .build), SHARED_BENCH, RCLONE_TRANSFERS
# (default 16, the same concurrency as curl and tweetcache; rclone's own default is 4).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
runs=${2:-10}
transfers=${RCLONE_TRANSFERS:-16}
for t in rclone nginx hyperfine curl radosgw; do command -v $t >/dev/null || { echo "needs $t" >&2; exit 1; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-store-bench.XXXXXX")
corpus=$(shared_corpus "$work" "${1:-}")

bin=$(tweetcache_binary .build)

nginx_pid=
cleanup() {
  [ -z "$nginx_pid" ] || kill "$nginx_pid" 2>/dev/null || true
  "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

rgw_start "$work/rgw"
# rclone reads its remote from the environment: no config file, the same credentials.
# The endpoint is plain http: a CA bundle set for the machine (AWS_CA_BUNDLE) only makes
# rclone 1.60's SDK fail to build its transport.
unset AWS_CA_BUNDLE
export RCLONE_CONFIG_RGW_TYPE=s3 RCLONE_CONFIG_RGW_PROVIDER=Ceph RCLONE_CONFIG_RGW_ENDPOINT="$AWS_ENDPOINT_URL" \
  RCLONE_CONFIG_RGW_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" RCLONE_CONFIG_RGW_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
  RCLONE_CONFIG_RGW_REGION="$AWS_REGION"
rclone mkdir rgw:tcbench

out=$("$shared/serve-corpus.sh" "$corpus" 8089)
eval "$(echo "$out" | tail -n 1)"
nginx_pid=$NGINX_PID
cp "$corpus/urls.txt" "$work/urls.txt"
count=$(wc -l < "$work/urls.txt")
sed 's/.*/url = "&"/' "$work/urls.txt" > "$work/curl-urls.cfg"
python3 "$here/make-results.py" "$work/urls.txt" > "$work/page.json"
mkdir -p "$work/out"
cd "$work"

# A new prefix per run, read by the command from a file the prepare step writes.
fresh() { echo "rm -rf $work/out/$1 && mkdir -p $work/out/$1 && head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n' > $work/prefix-$1 && sync"; }
tc_cmd="$bin fetch $work/page.json --cache $work/out/tc --quiet --tiles none --thumb-sizes '' --store s3://tcbench/tc-\$(cat $work/prefix-tc)"
peer_cmd="curl -sS --no-progress-meter --fail --parallel --parallel-max 16 --remote-name-all --config $work/curl-urls.cfg --output-dir $work/out/peer && rclone copy --transfers $transfers $work/out/peer rgw:tcbench/peer-\$(cat $work/prefix-peer)"
hyperfine --warmup 2 --runs "$runs" --export-json "$work/store.json" \
  -n 'tweetcache fetch --store' --prepare "$(fresh tc)" "$tc_cmd" \
  -n 'curl --parallel + rclone copy' --prepare "$(fresh peer)" "$peer_cmd"

python3 - "$work/store.json" "$count" "$transfers" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
n, transfers = int(sys.argv[2]), sys.argv[3]
tc, peer = r["tweetcache fetch --store"], r["curl --parallel + rclone copy"]
cpu = lambda x: x["user"] + x["system"]
print(f"[{n} files into RGW] tweetcache median {tc['median']*1000:.0f} ms, curl + rclone copy (--transfers {transfers}) "
      f"median {peer['median']*1000:.0f} ms: ratio {tc['median']/peer['median']:.2f}x (mean ratio {tc['mean']/peer['mean']:.2f}x)")
print(f"cpu (user+sys, mean): tweetcache {cpu(tc)*1000:.0f} ms, curl + rclone {cpu(peer)*1000:.0f} ms")
PY
# The last run's objects are all there, under their SHA-256.
prefix=tc-$(cat "$work/prefix-tc")
echo "objects under the last tweetcache prefix: $(rclone lsf -R --files-only "rgw:tcbench/$prefix/blobs" | wc -l) originals," \
  "$(rclone lsf "rgw:tcbench/$prefix/manifests" | wc -l) manifest; the peer's: $(rclone lsf "rgw:tcbench/peer-$(cat "$work/prefix-peer")" | wc -l) files"
