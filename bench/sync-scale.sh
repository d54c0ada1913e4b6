#!/usr/bin/env bash
# Benchmark (issue 26): a second machine over a bucket holding a million posts' runs.
# Puts the runs of a catalog corpus (bench/make-catalog-corpus.py: 100 manifests, a
# million posts) into a bucket on a local Ceph RADOS Gateway (scripts/rgw.sh), then
# on an empty cache directory times `tweetcache sync --store` (every manifest copied,
# URL rows recorded, the catalog read) and the readers after it: `info <id>`,
# `tweets --tag X --limit 20`, `stats` (hyperfine, warm).
#
# Usage: bench/sync-scale.sh CORPUS_DIR
#   TWEETCACHE_BIN=path skips the release build.
# Needs: root (the gateway), ceph ceph-mon ceph-osd radosgw, curl (7.75+, --aws-sigv4), hyperfine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
corpus=$(cd "${1:?usage: bench/sync-scale.sh CORPUS_DIR}" && pwd)
bin=$(tweetcache_binary .build-release)
work=$(mktemp -d /tmp/tc-sync-scale.XXXXXX)
cleanup() {
  "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
"$repo/scripts/rgw.sh" start "$work/rgw" > /dev/null
set -a; . "$work/rgw/env"; set +a
# RGW wants x-amz-content-sha256 on every signed request (../shared/notes/object-storage.md).
sign=(--aws-sigv4 "aws:amz:${AWS_REGION}:s3" --user "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}"
      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
curl -sS --fail "${sign[@]}" -X PUT "$AWS_ENDPOINT_URL/tcsync" > /dev/null
started=$(date +%s.%N)
for f in "$corpus"/cache/manifests/*.json; do
  curl -sS --fail "${sign[@]}" -T "$f" "$AWS_ENDPOINT_URL/tcsync/manifests/$(basename "$f")" > /dev/null
done
echo "uploaded $(ls "$corpus"/cache/manifests/*.json | wc -l) manifests ($(du -sh "$corpus/cache/manifests" | cut -f1)) in $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s" >&2

cache=$work/cache
TWEETCACHE_LOG=debug /usr/bin/time -f "%e %M" -o "$work/sync-time.txt" \
  "$bin" sync --store s3://tcsync --cache "$cache" > "$work/sync.txt" 2> "$work/sync-log.txt"
read -r wall rss_kb < "$work/sync-time.txt"
echo "| step | result |"
echo "|---|---|"
echo "| \`sync\` on an empty cache | ${wall} s, peak RSS $((rss_kb / 1024)) MB ($(tr '\n' ' ' < "$work/sync.txt" | cut -c1-120)) |"
id=$(head -c 4000 "$corpus/posts.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
tag=$(python3 - "$corpus/posts.jsonl" <<'EOF'
import collections, json, sys
counts = collections.Counter()
with open(sys.argv[1]) as f:
    for n, line in enumerate(f):
        if n >= 20000: break
        for t in json.loads(line).get("hashtags", "").split(): counts[t.lower()] += 1
print(counts.most_common(30)[-1][0])
EOF
)
hyperfine -N --warmup 1 --runs 10 --export-json "$work/readers.json" \
  -n info "$bin info $id --cache $cache" \
  -n tweets "$bin tweets --tag $tag --limit 20 --cache $cache" \
  -n stats "$bin stats --cache $cache" > /dev/null
python3 - "$work/readers.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"| `{r['command']}` after sync (median of 10) | {r['median'] * 1000:.1f} ms |")
EOF
