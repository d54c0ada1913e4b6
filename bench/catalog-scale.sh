#!/usr/bin/env bash
# Benchmark: the catalog at archive scale. Over a cache whose manifests hold a million
# posts (bench/make-catalog-corpus.py), in one run:
#   1. ingest: `tweetcache reindex` (every manifest read into catalog.sqlite, FTS5
#      included) against the peer archivists use, `sqlite-utils insert` of the same
#      posts as JSON Lines plus `sqlite-utils enable-fts` over the same columns;
#   2. readers: `info <id>`, `tweets --tag X --limit 20`, `stats` (hyperfine, warm);
#      the same full-text query answered by `sqlite-utils search` and by the server;
#   3. serve: the first /api/tweets page after start, 1,000 pages walked by cursor
#      (median, p99), `?q=two words`, facets, the first page after a new small run,
#      and the server's peak RSS.
# Peak RSS of every command is measured with /usr/bin/time.
#
# Usage: bench/catalog-scale.sh CORPUS_DIR
#   CORPUS_DIR  made by `bench/make-catalog-corpus.py CORPUS_DIR` (1,000,000 posts by
#               default; about 5 minutes and 2.2 GB); the script does not modify its
#               manifests, and it rebuilds CORPUS_DIR/cache/catalog.sqlite
#   TWEETCACHE_BIN=path skips the release build; TC_PORT (default 8097); ROUNDS of ingest (default
#   2; 0 keeps the catalog there is and measures the readers only).
# Needs: hyperfine, curl, python3, sqlite-utils (pip), /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
corpus=$(cd "${1:?usage: bench/catalog-scale.sh CORPUS_DIR}" && pwd)
cache=$corpus/cache
port=${TC_PORT:-8097}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-catalog-bench.XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -f "$cache/manifests/zz-bench-new-run.json"
  rm -rf "$work"
}
trap cleanup EXIT
command -v sqlite-utils >/dev/null || python3 -m pip install -q sqlite-utils
bin=$(tweetcache_binary .build)
posts=$(wc -l < "$corpus/posts.jsonl")
echo "corpus: $posts posts in $(ls "$cache/manifests" | wc -l) manifests, $(du -sh "$cache/manifests" | cut -f1)" >&2

measure() {  # measure NAME COMMAND...: wall seconds and peak RSS (KB) of one run, appended to $work/measures
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r seconds rss < "$work/time"
  echo "$name $seconds $rss" >> "$work/measures"
  echo "$name: ${seconds} s, peak RSS $((rss / 1024)) MB" >&2
}

# 1. Ingest, ours and the peer's, alternating, twice.
for round in $(seq "${ROUNDS:-2}"); do
  rm -f "$cache"/catalog.sqlite*
  measure "reindex" "$bin" reindex --cache "$cache"
  rm -f "$work/peer.db"
  measure "sqlite-utils-insert" sqlite-utils insert "$work/peer.db" posts "$corpus/posts.jsonl" --nl --pk id --replace
  measure "sqlite-utils-fts" sqlite-utils enable-fts "$work/peer.db" posts text name screen_name hashtags --create-triggers
done
ls -la "$cache/catalog.sqlite" >&2
[ -f "$work/peer.db" ] && ls -la "$work/peer.db" >&2


# 2. Readers over the million posts.
id=$(python3 -c "import json,sys; lines=open(sys.argv[1]).readlines(); print(json.loads(lines[len(lines)//2])['id'])" "$corpus/posts.jsonl")
tag=$(python3 -c "
import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); print(db.execute('SELECT display FROM tag_counts ORDER BY posts DESC LIMIT 1 OFFSET 20').fetchone()[0])" "$cache/catalog.sqlite")
words=$(python3 -c "
import json,sys; t=json.loads(open(sys.argv[1]).readlines()[4321])['text'].split(); print(t[1].lower(), t[3].lower())" "$corpus/posts.jsonl")
echo "post $id, tag #$tag, words '$words'" >&2
peer_search=()
[ -f "$work/peer.db" ] && peer_search=(-n "sqlite-utils search" "sqlite-utils search $work/peer.db posts '$words' --limit 20")
measure "info" "$bin" info "$id" --cache "$cache"
measure "tweets-tag" "$bin" tweets --tag "$tag" --limit 20 --cache "$cache"
measure "stats" "$bin" stats --cache "$cache"
hyperfine --warmup 2 --runs 10 --export-json "$work/readers.json" \
  -n info "$bin info $id --cache $cache" \
  -n "tweets --tag --limit 20" "$bin tweets --tag $tag --limit 20 --cache $cache" \
  -n stats "$bin stats --cache $cache" "${peer_search[@]}" >&2

# 3. The server.
start=$(date +%s.%N)
"$bin" serve --cache "$cache" --port "$port" > "$work/serve.log" 2>&1 &
server=$!
python3 - "$port" "$start" "$words" "$tag" "$server" "$work/serve-results.json" "$cache" "$corpus" <<'PY'
import http.client, json, os, statistics, sys, time, urllib.parse
port, start, words, tag, pid, out, cache, corpus = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8]

def get(path):
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
    t = time.perf_counter()
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    return r.status, body, time.perf_counter() - t

while True:
    try:
        status, body, _ = get("/api/tweets?limit=100")
        if status == 200: break
    except OSError:
        time.sleep(0.01)
first_after_start = time.time() - start
first = json.loads(body)
cursor, times = first.get("next"), []
for _ in range(1000):
    status, body, seconds = get("/api/tweets?limit=100&cursor=" + urllib.parse.quote(cursor))
    assert status == 200
    times.append(seconds)
    cursor = json.loads(body).get("next")
    if not cursor: break
q = [get("/api/tweets?limit=100&q=" + urllib.parse.quote(words))[2] for _ in range(20)]
qtotal = json.loads(get("/api/tweets?limit=100&q=" + urllib.parse.quote(words))[1])["total"]
tagged = [get("/api/tweets?limit=100&tag=" + urllib.parse.quote(tag))[2] for _ in range(20)]
status = dict(l.split(":\t") for l in open(f"/proc/{pid}/status").read().splitlines() if ":\t" in l)
# A new small run (100 posts, as a file the catalog has not seen, as `sync` brings one):
# the server reads it into the catalog on the next request.
runs = sorted(os.listdir(os.path.join(cache, "manifests")))
run = json.load(open(os.path.join(cache, "manifests", runs[-1])))
run["tweets"] = run["tweets"][:100]
run["generated_at"] = "2030-01-01T00:00:00Z"
json.dump(run, open(os.path.join(cache, "manifests", "zz-bench-new-run.json"), "w"), indent=2, sort_keys=True)
new_run = get("/api/tweets?limit=100")[2]
again = get("/api/tweets?limit=100")[2]
os.remove(os.path.join(cache, "manifests", "zz-bench-new-run.json"))
result = {
    "first_page_after_start_s": first_after_start, "total": first["total"],
    "pages_walked": len(times), "page_median_ms": statistics.median(times) * 1000,
    "page_p99_ms": sorted(times)[int(len(times) * 0.99) - 1] * 1000,
    "q_median_ms": statistics.median(q) * 1000, "q_total": qtotal,
    "tag_first_page_median_ms": statistics.median(tagged) * 1000,
    "first_page_after_new_run_ms": new_run * 1000, "next_page_after_that_ms": again * 1000,
    "rss_mb": int(status["VmRSS"].split()[0]) / 1024, "peak_rss_mb": int(status["VmHWM"].split()[0]) / 1024,
}
json.dump(result, open(out, "w"), indent=1)
PY
kill "$server"; wait "$server" 2>/dev/null || true; server=

python3 - "$work" "$posts" <<'PY'
import json, sys
work, posts = sys.argv[1], int(sys.argv[2])
m = {}
for line in open(f"{work}/measures"):
    name, s, rss = line.split()
    m.setdefault(name, []).append((float(s), int(rss) / 1024))
print(f"posts: {posts:,}")
if "reindex" in m:
    ours = [s for s, _ in m["reindex"]]
    peer = [a[0] + b[0] for a, b in zip(m["sqlite-utils-insert"], m["sqlite-utils-fts"])]
    print("ingest (seconds per round): reindex " + ", ".join(f"{s:.1f}" for s in ours)
          + " | sqlite-utils insert + enable-fts " + ", ".join(f"{s:.1f}" for s in peer))
    print(f"ingest ratio (median of rounds): {sorted(o / p for o, p in zip(ours, peer))[len(ours) // 2]:.2f}x sqlite-utils; "
          f"reindex peak RSS {max(r for _, r in m['reindex']):.0f} MB, sqlite-utils insert {max(r for _, r in m['sqlite-utils-insert']):.0f} MB")
for name in ["info", "tweets-tag", "stats"]:
    s, r = m[name][0]
    print(f"{name}: one cold-process run {s * 1000:.0f} ms, peak RSS {r:.0f} MB")
for x in json.load(open(f"{work}/readers.json"))["results"]:
    print(f"hyperfine {x['command']}: median {x['median'] * 1000:.1f} ms")
serve = json.load(open(f"{work}/serve-results.json"))
for k, v in serve.items():
    print(f"serve {k}: {v:.1f}" if isinstance(v, float) else f"serve {k}: {v}")
PY
