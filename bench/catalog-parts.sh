#!/usr/bin/env bash
# Benchmark: what each part of the catalog costs its ingest, against bench/ingest-ab.sh's
# peer (`sqlite-utils insert` of the same posts flattened to one row each, then
# `enable-fts`), in the same rounds. Needs a binary built with
# bench/experiments/catalog-parts-switched-off.patch (see bench/experiments/README.md):
# each round times `BIN reindex` of the corpus into a fresh catalog (the file removed
# first) once whole and once with each part switched off, alternating:
#   full           the catalog as it is
#   no-prefixes    posts_fts without its prefix indexes of 1-3 letters (part 7's typed prefixes)
#   no-tags        no post_tags rows (hashtag lists and facets)
#   no-indexes     of the indexes made at the end, only posts_in_order (the list order)
#   no-refs        no refs rows and no blobs (info, ls, stats, gc's keep list)
#   no-run-pages   no run_pages (a run's IIIF documents)
#   peer-schema    all of the above off: posts, their list order and a words' index
#                  without prefixes, about what the peer builds
# Every manifest is still read and decoded in full.
#
# Usage: bench/catalog-parts.sh CORPUS_DIR PATCHED_BIN [ROUNDS]
#   CORPUS_DIR  made by bench/make-catalog-corpus.py (cache/manifests/*.json, posts.jsonl)
# Needs: sqlite-utils (pip), bc, /usr/bin/time. Replaces CORPUS_DIR/cache's catalog.
set -euo pipefail
corpus=$(cd "${1:?usage: bench/catalog-parts.sh CORPUS_DIR PATCHED_BIN [ROUNDS]}" && pwd)
bin=${2:?a binary built with bench/experiments/catalog-parts-switched-off.patch}
rounds=${3:-3}
command -v sqlite-utils >/dev/null || python3 -m pip install -q sqlite-utils
work=$(mktemp -d /tmp/tc-catalog-parts.XXXXXX)
trap 'rm -rf "$work"' EXIT
parts=("full:" "no-prefixes:TC_EXPERIMENT_NO_PREFIXES=1" "no-tags:TC_EXPERIMENT_NO_TAGS=1"
       "no-indexes:TC_EXPERIMENT_NO_INDEXES=1" "no-refs:TC_EXPERIMENT_NO_REFS=1"
       "no-run-pages:TC_EXPERIMENT_NO_RUN_PAGES=1" "peer-schema:TC_EXPERIMENT_PEER_SCHEMA=1")
timed() {  # prints "wall user sys peakKB" of the command
  /usr/bin/time -f "%e %U %S %M" -o "$work/t.txt" "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt"; exit 1; }
  cat "$work/t.txt"
}
echo "| round | what | wall | user + sys CPU | peak RSS |"
echo "|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for part in "${parts[@]}"; do
    label=${part%%:*}; switch=${part#*:}
    rm -f "$corpus/cache/catalog.sqlite" "$corpus/cache/catalog.sqlite"-* "$corpus/cache/catalog.sqlite".*
    read -r wall user sys kb < <(timed env $switch "$bin" reindex --cache "$corpus/cache")
    echo "| $round | $label | $wall s | $(echo "$user + $sys" | bc) s | $((kb / 1024)) MB |"
  done
  rm -f "$work/peer.db"
  read -r w1 u1 s1 k1 < <(timed sqlite-utils insert "$work/peer.db" posts "$corpus/posts.jsonl" --nl --pk id --replace)
  read -r w2 u2 s2 k2 < <(timed sqlite-utils enable-fts "$work/peer.db" posts text name screen_name hashtags --create-triggers)
  echo "| $round | peer: insert + enable-fts | $w1 + $w2 = $(echo "$w1 + $w2" | bc) s | $(echo "$u1 + $s1 + $u2 + $s2" | bc) s | $(( (k1 > k2 ? k1 : k2) / 1024 )) MB |"
done
