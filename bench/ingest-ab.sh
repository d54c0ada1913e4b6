#!/usr/bin/env bash
# Benchmark (issue 26): same-run A/B of the catalog's ingest, `tweetcache reindex` of
# a catalog corpus's cache with two binaries (e.g. before and after a change), and
# the peer in the same run: `sqlite-utils insert` of the same posts as JSON Lines plus
# `sqlite-utils enable-fts` over the same columns (as bench/catalog-scale.sh does).
#
# Usage: bench/ingest-ab.sh CORPUS_DIR OLD_BIN NEW_BIN
#   CORPUS_DIR  made by bench/make-catalog-corpus.py (cache/manifests/*.json, posts.jsonl)
#   ROUNDS="1 2" runs each side once per round.
# Needs: sqlite-utils (pip), /usr/bin/time. Reindexes CORPUS_DIR/cache in place.
set -euo pipefail
corpus=$(cd "${1:?usage: bench/ingest-ab.sh CORPUS_DIR OLD_BIN NEW_BIN}" && pwd)
old=${2:?old binary}; new=${3:?new binary}
command -v sqlite-utils >/dev/null || python3 -m pip install -q sqlite-utils
work=$(mktemp -d /tmp/tc-ingest-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "| round | side | wall | peak RSS |"
echo "|---|---|---|---|"
timed() {  # LABEL COMMAND...: one row
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t.txt" "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt"; exit 1; }
  read -r wall kb < "$work/t.txt"
  echo "| $round | $label | ${wall} s | $((kb / 1024)) MB |"
}
for round in ${ROUNDS:-1}; do
  timed "old reindex" "$old" reindex --cache "$corpus/cache"
  timed "new reindex" "$new" reindex --cache "$corpus/cache"
  rm -f "$work/peer.db"
  timed "peer: sqlite-utils insert" sqlite-utils insert "$work/peer.db" posts "$corpus/posts.jsonl" --nl --pk id --replace
  timed "peer: sqlite-utils enable-fts" sqlite-utils enable-fts "$work/peer.db" posts text name screen_name hashtags --create-triggers
done
