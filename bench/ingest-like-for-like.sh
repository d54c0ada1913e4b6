#!/usr/bin/env bash
# Benchmark: a like-for-like peer of the catalog's ingest. bench/ingest-ab.sh's peer
# inserts one flat table and an FTS index over it; the catalog builds more: posts,
# post_tags, refs and blobs, five secondary indexes, and an FTS5 index with prefix
# indexes of 1-3 letters. This peer builds that same schema with sqlite-utils, from the
# same posts as JSON Lines (made untimed by bench/ingest-like-for-like.py, cached in
# CORPUS_DIR/like/), into a fresh database:
#   a. `sqlite-utils insert --nl --replace` of each table (and of `fts`, the words to index)
#   b. `sqlite-utils create-index` of the catalog's indexes on those tables
#   c. `posts_fts` made as the catalog makes it (PostCatalog.fullTextTable), filled from
#      `fts` joined to posts' rowids, then 'optimize' (as FullTextBuilder ends)
# With BIN, `BIN reindex` of the same cache is timed before and after the peer, and the
# ratio reindex / peer printed. Not built by the peer: runs, searches, authors,
# blob_uses, tag_counts, run_pages, images_pdq (the catalog's, so the ratio flatters
# the peer a little); refs.blob is the hex hash, not a blobs rowid.
#
# Usage: bench/ingest-like-for-like.sh CORPUS_DIR [BIN]
#   CORPUS_DIR  made by bench/make-catalog-corpus.py (cache/manifests/*.json)
# Needs: python3, sqlite-utils (pip), /usr/bin/time. Reindexes CORPUS_DIR/cache in place.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "${1:?usage: bench/ingest-like-for-like.sh CORPUS_DIR [BIN]}" && pwd)
bin=${2:-}
command -v sqlite-utils >/dev/null || python3 -m pip install -q sqlite-utils
python3 "$here/ingest-like-for-like.py" "$corpus"
like=$corpus/like
work=$(mktemp -d /tmp/tc-like-for-like.XXXXXX)
trap 'rm -rf "$work"' EXIT
db=$work/peer.db
peer=0
reindex=()
echo "| step | wall | peak RSS |"
echo "|---|---|---|"
timed() {  # LABEL COMMAND...: one row; the wall in $wall
  local label=$1 kb; shift
  /usr/bin/time -f "%e %M" -o "$work/t.txt" "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt"; exit 1; }
  read -r wall kb < "$work/t.txt"
  echo "| $label | ${wall} s | $((kb / 1024)) MB |"
}
step() {  # LABEL COMMAND...: a row of the peer, added to its sum
  timed "$@"
  peer=$(python3 -c "print(round($peer + $wall, 2))")
}
if [ -n "$bin" ]; then
  timed "reindex (before)" "$bin" reindex --cache "$corpus/cache"; reindex+=("$wall")
fi
step "a. insert posts" sqlite-utils insert "$db" posts "$like/posts.jsonl" --nl --pk id --replace
step "a. insert post_tags" sqlite-utils insert "$db" post_tags "$like/post_tags.jsonl" --nl --pk post --pk tag --replace
step "a. insert refs" sqlite-utils insert "$db" refs "$like/refs.jsonl" --nl --pk post --pk slot --replace
step "a. insert blobs" sqlite-utils insert "$db" blobs "$like/blobs.jsonl" --nl --pk sha256 --replace
step "a. insert fts" sqlite-utils insert "$db" fts "$like/fts.jsonl" --nl --pk post --replace
step "b. index posts_in_order" sqlite-utils create-index "$db" posts included created id_order
step "b. index posts_by_user" sqlite-utils create-index "$db" posts included user created id_order
step "b. index posts_by_query" sqlite-utils create-index "$db" posts included query created id_order
step "b. index post_tags_in_order" sqlite-utils create-index "$db" post_tags tag created id_order
step "b. index refs_by_blob" sqlite-utils create-index "$db" refs blob kind
step "c. create posts_fts" sqlite-utils query "$db" "CREATE VIRTUAL TABLE posts_fts USING fts5(text, name, handle, tags, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3', detail = none, columnsize = 0)"
step "c. fill posts_fts" sqlite-utils query "$db" "INSERT INTO posts_fts(rowid, text, name, handle, tags) SELECT p.rowid, f.text, f.name, f.handle, f.tags FROM fts f JOIN posts p ON p.id = f.post"
step "c. optimize posts_fts" sqlite-utils query "$db" "INSERT INTO posts_fts(posts_fts) VALUES ('optimize')"
echo "| **peer total** | **${peer} s** | |"
if [ -n "$bin" ]; then
  timed "reindex (after)" "$bin" reindex --cache "$corpus/cache"; reindex+=("$wall")
fi
echo
counts=$(sqlite-utils query "$db" "SELECT (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM post_tags) AS post_tags, (SELECT count(*) FROM refs) AS refs, (SELECT count(*) FROM blobs) AS blobs, (SELECT count(*) FROM posts_fts) AS posts_fts")
echo "peer rows: $counts; peer db $(( $(stat -c %s "$db") / 1048576 )) MB (with the staging table fts)"
[ -f "$corpus/cache/catalog.sqlite" ] && echo "catalog db $(( $(stat -c %s "$corpus/cache/catalog.sqlite") / 1048576 )) MB"
if [ -n "$bin" ]; then
  python3 - "$peer" "${reindex[@]}" <<'EOF'
import sys
peer, runs = float(sys.argv[1]), [float(x) for x in sys.argv[2:]]
mean = sum(runs) / len(runs)
print(f"peer {peer:.2f} s; reindex {' / '.join(f'{r:.2f}' for r in runs)} s (mean {mean:.2f}); "
      f"ratio reindex/peer {mean / peer:.3f} ({' / '.join(f'{r / peer:.3f}' for r in runs)})")
EOF
fi
