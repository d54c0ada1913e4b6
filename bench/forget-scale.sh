#!/usr/bin/env bash
# Benchmark: `tweetcache forget` at archive scale (issue 48: 10,000 posts out of a
# million in at most 120 s and 300 MB). Over a copy of a catalog corpus (a million
# posts in 100 manifests, bench/make-catalog-corpus.py), in one run:
#   1. `tweetcache reindex`: the catalog made from nothing, the reference the forget is
#      compared with (both read every manifest; the forget also rewrites them);
#   2. `tweetcache forget --compliance FILE` of COUNT posts drawn at random (seeded) as
#      X's compliance job would list them: wall time and peak RSS;
#   3. the byte search: for 50 of the forgotten posts whose text no other post has,
#      `grep -rlF` of the whole cache directory (manifests, catalog.sqlite and its log,
#      index.sqlite) finds nothing; their ids only in tombstones.jsonl.
# Peak RSS with /usr/bin/time.
#
# Usage: bench/forget-scale.sh CORPUS_DIR [COUNT]
#   CORPUS_DIR  made by `python3 bench/make-catalog-corpus.py CORPUS_DIR` (about 5 minutes,
#               2.2 GB); it is copied, never modified. COUNT defaults to 10000.
#   TWEETCACHE_BIN=path skips the release build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
corpus=$(cd "${1:?usage: bench/forget-scale.sh CORPUS_DIR [COUNT]}" && pwd)
count=${2:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-forget-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin=$(tweetcache_binary .build)
cache=$work/cache
cp -r --reflink=auto "$corpus/cache" "$cache"
rm -f "$cache"/catalog.sqlite* "$cache"/tombstones.*
echo "corpus: $(wc -l < "$corpus/posts.jsonl") posts in $(ls "$cache/manifests" | wc -l) manifests, $(du -sh "$cache/manifests" | cut -f1)" >&2

measure() {  # measure NAME COMMAND...: wall seconds and peak RSS (KB) of one run
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || { cat "$work/err" "$work/out" >&2; exit 1; }
  read -r seconds rss < "$work/time"
  echo "$name $seconds $rss" >> "$work/measures"
  echo "$name: ${seconds} s, peak RSS $((rss / 1024)) MB" >&2
}

# The posts to forget, as an X compliance result file, and 50 of them whose text is theirs alone.
python3 - "$corpus/posts.jsonl" "$count" "$work/compliance.jsonl" "$work/texts" "$work/ids" <<'EOF'
import collections, json, random, sys
posts = [json.loads(line) for line in open(sys.argv[1])]
by_text = collections.defaultdict(set)
for p in posts:
    by_text[p["text"]].add(p["id"])
ids = sorted({p["id"] for p in posts})
chosen = random.Random(48).sample(ids, int(sys.argv[2]))
with open(sys.argv[3], "w") as f:
    for i in chosen:
        f.write(json.dumps({"id": i, "action": "delete", "created_at": "2024-01-01T00:00:00.000Z",
                            "redacted_at": "2026-12-01T00:00:00.000Z", "reason": "deleted"}) + "\n")
chosen_set = set(chosen)
alone = [p for p in posts if p["id"] in chosen_set and len(by_text[p["text"]]) == 1]
sample = alone[:50]
open(sys.argv[4], "w").write("\n".join(p["text"] for p in sample) + "\n")
open(sys.argv[5], "w").write("\n".join(p["id"] for p in sample) + "\n")
print(f"{len(chosen)} posts to forget; {len(alone)} of them with a text of their own, 50 searched for", file=sys.stderr)
EOF

measure reindex "$bin" reindex --cache "$cache"
measure forget "$bin" forget --compliance "$work/compliance.jsonl" --cache "$cache" --json
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
print('forgot', len(r['posts']), 'posts;', r['manifests_rewritten'], 'manifests rewritten;', r['blobs_deleted'], 'blobs deleted', file=sys.stderr)" "$work/out"

# The byte search, one pass each: the forgotten texts nowhere, their ids only in the tombstone log.
texts_in=$(grep -rlF -f "$work/texts" "$cache" || true)
sed 's/.*/"&"/' "$work/ids" > "$work/quoted-ids"
ids_in=$(grep -rlF -f "$work/quoted-ids" "$cache" | grep -v '/tombstones.jsonl$' || true)
[ -n "$texts_in" ] && echo "forgotten texts still in: $texts_in" >&2
[ -n "$ids_in" ] && echo "forgotten ids still in: $ids_in" >&2
echo "byte search of $(du -sh "$cache" | cut -f1): files holding any of the 50 texts: $(echo -n "$texts_in" | grep -c . || true); holding any of their ids besides tombstones.jsonl: $(echo -n "$ids_in" | grep -c . || true)" >&2

read -r _ rs rr < <(grep '^reindex ' "$work/measures")
read -r _ fs fr < <(grep '^forget ' "$work/measures")
python3 -c "
import sys; rs,rr,fs,fr=map(float,sys.argv[1:5])
print(f'forget {int(sys.argv[5])} of a million: {fs:.1f} s ({fs/rs:.2f}x a reindex of the same cache, {rs:.1f} s), peak RSS {fr/1024:.0f} MB (reindex {rr/1024:.0f} MB)')
" "$rs" "$rr" "$fs" "$fr" "$count"
[ -z "$texts_in" ] && [ -z "$ids_in" ]
