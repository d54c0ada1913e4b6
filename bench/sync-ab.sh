#!/usr/bin/env bash
# Benchmark (issue 26): same-run A/B of `tweetcache sync --store` on an empty cache:
# one bucket on a local RADOS Gateway holding a catalog corpus's runs, two binaries
# (e.g. before and after a change), each run on a fresh cache, alternating.
#
# Usage: bench/sync-ab.sh CORPUS_DIR OLD_BIN NEW_BIN
#   CORPUS_DIR  made by bench/make-catalog-corpus.py (cache/manifests/*.json)
#   ROUNDS="1 2" runs each binary once per round.
# Needs: root (the gateway), ceph ceph-mon ceph-osd radosgw, curl (7.75+), sqlite3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
corpus=$(cd "${1:?usage: bench/sync-ab.sh CORPUS_DIR OLD_BIN NEW_BIN}" && pwd)
old=${2:?old binary}; new=${3:?new binary}
work=$(mktemp -d /tmp/tc-sync-ab.XXXXXX)
cleanup() { "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
rgw_start "$work/rgw" tcsync
# RGW wants x-amz-content-sha256 on every signed request (../shared/notes/object-storage.md).
sign=(--aws-sigv4 "aws:amz:${AWS_REGION}:s3" --user "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}"
      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
for f in "$corpus"/cache/manifests/*.json; do
  curl -sS --fail "${sign[@]}" -T "$f" "$AWS_ENDPOINT_URL/tcsync/manifests/$(basename "$f")" > /dev/null
done
echo "| round | binary | wall | peak RSS | URL rows |"
echo "|---|---|---|---|---|"
for round in ${ROUNDS:-1}; do
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    rm -rf "$work/cache"; sync
    /usr/bin/time -f "%e %M" -o "$work/t.txt" "$bin" sync --store s3://tcsync --cache "$work/cache" > "$work/out.txt" 2>&1
    read -r wall kb < "$work/t.txt"
    rows=$(sqlite3 "$work/cache/index.sqlite" "SELECT count(*) FROM urls")
    echo "| $round | $side | ${wall} s | $((kb / 1024)) MB | $rows |"
  done
done
