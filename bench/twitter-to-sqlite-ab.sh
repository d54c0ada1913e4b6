#!/usr/bin/env bash
# Benchmark (issue 26): the catalog's ingest side by side with the tool archivists use
# to keep tweets in SQLite, `twitter-to-sqlite` (PyPI), on the same posts, same run.
#
# Fetches the first N posts of a fetch corpus into an empty cache from the shared
# nginx origin (not timed against anything: it makes the manifest), then times
# `tweetcache reindex` of that cache ROUNDS times and `bench/twitter-to-sqlite-peer.py`
# saving the same N posts as its `search` command saves a search's results (its own
# tables, FTS over text and users), then `sqlite-utils rebuild-fts` of its tables (with
# sqlite-utils 4 its FTS triggers are lost, so its index is empty until rebuilt). Last, the same full-text query (two words of one
# post's text) answered by both: ours through `serve`'s `/api/tweets?q=`, the peer's
# through its `tweets_fts` table, with the number of posts each finds.
#
# Usage: bench/twitter-to-sqlite-ab.sh CORPUS_DIR [N]
#   CORPUS_DIR  made by bench/make-fetch-corpus.py (posts.jsonl, media/, profile_images/)
#   N           posts (default 100000; the peer takes about 8 ms a post)
#   ROUNDS=3 reindexes; TWEETCACHE_BIN=path skips the build; PORT=8098 for the origin,
#   SERVE_PORT=8097 for ours; PEER_LIMIT=SECONDS stops the peer then (a million posts take it
#   hours) and reports its pace and a bound on the ratio instead.
# Needs: nginx, /usr/bin/time, twitter-to-sqlite (pip).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
corpus=$(cd "${1:?usage: twitter-to-sqlite-ab.sh CORPUS_DIR [N]}" && pwd)
n=${2:-100000}
port=${PORT:-8098}
serve_port=${SERVE_PORT:-8097}
python3 -c "import twitter_to_sqlite" 2>/dev/null || python3 -m pip install -q twitter-to-sqlite
bin=$(tweetcache_binary .build-release)
work=$(mktemp -d /tmp/tc-t2s-ab.XXXXXX)
chmod -R a+rX "$corpus"
out=$("$shared/serve-corpus.sh" "$corpus" "$port")
eval "$(echo "$out" | tail -1)"
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  kill "$NGINX_PID" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

timed() {  # timed LABEL COMMAND...: one row of wall time and peak RSS
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t.txt" "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt" >&2; exit 1; }
  read -r wall kb < "$work/t.txt"
  echo "| $label | ${wall} s | $((kb / 1024)) MB |"
  echo "$label $wall" >> "$work/walls"
}

head -n $(( (n + 99) / 100 )) "$corpus/posts.jsonl" > "$work/posts.jsonl"
echo "$n posts of $corpus, $(basename "$bin") $("$bin" --version)"
echo
echo "| step | wall | peak RSS |"
echo "|---|---|---|"
timed "tweetcache fetch (makes the cache)" "$bin" fetch "$work/posts.jsonl" --cache "$work/cache" --quiet \
  --mirror "pbs.twimg.com=http://127.0.0.1:$port"
for round in $(seq "${ROUNDS:-3}"); do
  timed "tweetcache reindex" "$bin" reindex --cache "$work/cache"
done
peer=(python3 "$here/twitter-to-sqlite-peer.py" "$work/posts.jsonl" "$n" "$work/peer.db")
if [ -n "${PEER_LIMIT:-}" ]; then
  # Stopped after PEER_LIMIT seconds, it still tells its pace and bounds the ratio.
  rc=0
  timeout "$PEER_LIMIT" /usr/bin/time -f "%e %M" -o "$work/t.txt" "${peer[@]}" > "$work/peer-out.txt" 2>&1 || rc=$?
  if [ "$rc" = 124 ]; then
    cat "$work/peer-out.txt"
    python3 - "$work/walls" "$work/peer-out.txt" "$n" "$PEER_LIMIT" <<'PY'
import statistics, sys
ours = statistics.median(float(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]) if l.startswith("tweetcache reindex "))
saved = [l.split() for l in open(sys.argv[2]) if l.startswith("saved ")]
n, limit = int(sys.argv[3]), float(sys.argv[4])
print(f"twitter-to-sqlite save_tweets stopped after {limit:.0f} s: reindex median {ours:.2f} s, "
      f"ours / peer < {ours / limit:.4f}x")
if saved:
    posts, seconds = int(saved[-1][1]), float(saved[-1][4])
    print(f"its pace: {posts} posts in {seconds:.0f} s, {seconds / posts * 1000:.2f} ms a post; "
          f"all {n} at that pace: {seconds / posts * n:.0f} s, ours / that = {ours / (seconds / posts * n):.4f}x")
PY
    exit 0
  fi
  [ "$rc" = 0 ] || { cat "$work/peer-out.txt" >&2; exit 1; }
  read -r wall kb < "$work/t.txt"
  echo "| twitter-to-sqlite save_tweets | ${wall} s | $((kb / 1024)) MB |"
  echo "twitter-to-sqlite save_tweets $wall" >> "$work/walls"
else
  timed "twitter-to-sqlite save_tweets" "${peer[@]}"
  cp "$work/out.txt" "$work/peer-out.txt"
fi
# With sqlite-utils 4 its tables' FTS triggers are gone by the end of the first save
# (`add_foreign_key` rebuilds `tweets` without them): the index is empty until rebuilt.
timed "sqlite-utils rebuild-fts (its FTS)" sqlite-utils rebuild-fts "$work/peer.db" tweets users
cat "$work/peer-out.txt"

# The same query of both: two words of one post's text that no name holds.
words=$(python3 - "$work/posts.jsonl" <<'PY'
import json, re, sys
line = open(sys.argv[1]).readline()
post = json.loads(line)["statuses"][7]
words = [w.lower() for w in re.findall(r"[A-Za-z]+", post["full_text"]) if len(w) > 2]
print(words[0], words[1])
PY
)
"$bin" serve --cache "$work/cache" --port "$serve_port" > "$work/serve.log" 2>&1 &
server=$!
python3 - "$serve_port" "$words" "$work/peer.db" <<'PY'
import http.client, json, sqlite3, statistics, sys, time, urllib.parse
port, words, peer = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t = time.perf_counter()
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    return r.status, body, time.perf_counter() - t
for _ in range(3000):
    try:
        if get("/api/tweets?limit=1")[0] == 200: break
    except OSError:
        time.sleep(0.01)
path = "/api/tweets?limit=20&q=" + urllib.parse.quote(words)
ours = [get(path) for _ in range(20)]
total = json.loads(ours[-1][1])["total"]
db = sqlite3.connect(peer)
match = " ".join(f'"{w}"' for w in words.split())
def peer_query():
    t = time.perf_counter()
    rows = db.execute("SELECT t.id FROM tweets t JOIN tweets_fts f ON f.rowid = t.rowid WHERE tweets_fts MATCH ? "
                      "ORDER BY t.created_at DESC LIMIT 20", [match]).fetchall()
    count = db.execute("SELECT count(*) FROM tweets_fts WHERE tweets_fts MATCH ?", [match]).fetchone()[0]
    return count, time.perf_counter() - t
theirs = [peer_query() for _ in range(20)]
print()
print(f"query '{words}': tweetcache serve ?q= finds {total} posts, first page median "
      f"{statistics.median(s for _, _, s in ours) * 1000:.1f} ms (HTTP); twitter-to-sqlite's tweets_fts finds "
      f"{theirs[-1][0]}, first 20 and count median {statistics.median(s for _, s in theirs) * 1000:.1f} ms (in process)")
PY

python3 - "$work/walls" <<'PY'
import statistics, sys
walls = {}
for line in open(sys.argv[1]):
    label, wall = line.rsplit(" ", 1)
    walls.setdefault(label, []).append(float(wall))
ours = statistics.median(walls["tweetcache reindex"])
peer = walls["twitter-to-sqlite save_tweets"][0] + walls["sqlite-utils rebuild-fts (its FTS)"][0]
print(f"reindex median {ours:.2f} s / twitter-to-sqlite save + rebuild-fts {peer:.2f} s = {ours / peer:.4f}x")
PY
