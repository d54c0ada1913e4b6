#!/usr/bin/env bash
# Benchmark (issue 26): the catalog's ingest side by side with the tool archivists use
# to keep tweets in SQLite, `twitter-to-sqlite` (PyPI), on the same posts, same run.
#
# Fetches the first N posts of a fetch corpus into an empty cache from the shared
# nginx origin (not timed against anything: it makes the manifest), then times
# `tweetcache reindex` of that cache ROUNDS times and `bench/twitter-to-sqlite-peer.py`
# saving the same N posts as its `search` command saves a search's results (its own
# tables, FTS over text and users), then `sqlite-utils rebuild-fts` of its tables: with
# sqlite-utils 4 the triggers that keep `tweets_fts` current are lost (see below), so
# that index is empty until rebuilt. Last, the same full-text query (two words of one
# post's text, the last one a prefix, as `?q=` reads it) answered by both: ours through
# `serve`'s `/api/tweets?q=`, the peer's through its `tweets_fts` table, with the
# number of posts each finds.
#
# Usage: bench/twitter-to-sqlite-ab.sh CORPUS_DIR [N]
#   CORPUS_DIR  made by bench/make-fetch-corpus.py (posts.jsonl of 100 posts a line,
#               media/, profile_images/)
#   N           posts, a multiple of 100 (default 100000; the peer takes 6-8 ms a post)
#   ROUNDS=3 reindexes; TWEETCACHE_BIN=path skips the build; PORT=8098 for the origin,
#   SERVE_PORT=8097 for ours; PEER_LIMIT=SECONDS stops the peer then (a million posts
#   take it hours) and reports its pace and a bound on the ratio instead (as it does
#   when its process group is stopped by hand: `kill -- -PID` of its /usr/bin/time).
# Needs: nginx, /usr/bin/time, twitter-to-sqlite (pip).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
usage="usage: twitter-to-sqlite-ab.sh CORPUS_DIR [N]"
corpus=$(cd "${1:?$usage}" && pwd)
n=${2:-100000}
rounds=${ROUNDS:-3}
port=${PORT:-8098}
serve_port=${SERVE_PORT:-8097}
[[ "$n" =~ ^[1-9][0-9]*$ && $((n % 100)) = 0 ]] || { echo "N must be a positive multiple of 100 (a corpus line holds 100 posts): $n" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive count: $rounds" >&2; exit 2; }
[[ -z "${PEER_LIMIT:-}" || "$PEER_LIMIT" =~ ^[1-9][0-9]*$ ]] || { echo "PEER_LIMIT must be whole seconds: $PEER_LIMIT" >&2; exit 2; }
lines=$((n / 100))
[ "$(head -n "$lines" "$corpus/posts.jsonl" | wc -l)" = "$lines" ] || { echo "$corpus/posts.jsonl has fewer than $n posts" >&2; exit 2; }
python3 -c "import twitter_to_sqlite" 2>/dev/null || python3 -m pip install -q twitter-to-sqlite
bin=$(tweetcache_binary .build-release)

work=$(mktemp -d /tmp/tc-t2s-ab.XXXXXX)
server= peer_pid= NGINX_PID= NGINX_CONF_DIR=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  [ -n "$peer_pid" ] && kill -- -"$peer_pid" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  [ -n "$NGINX_CONF_DIR" ] && rm -rf "$NGINX_CONF_DIR" || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod -R a+rX "$corpus"
out=$("$shared/serve-corpus.sh" "$corpus" "$port")
eval "$(echo "$out" | tail -1)"

timed() {  # timed LABEL COMMAND...: one row of wall time and peak RSS
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t.txt" "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt" >&2; exit 1; }
  read -r wall kb < "$work/t.txt"
  echo "| $label | ${wall} s | $((kb / 1024)) MB |"
  echo "$label $wall" >> "$work/walls"
}

head -n "$lines" "$corpus/posts.jsonl" > "$work/posts.jsonl"
echo "$n posts of $corpus, $(basename "$bin") $("$bin" --version)"
echo
echo "| step | wall | peak RSS |"
echo "|---|---|---|"
timed "tweetcache fetch (makes the cache)" "$bin" fetch "$work/posts.jsonl" --cache "$work/cache" --quiet \
  --mirror "pbs.twimg.com=http://127.0.0.1:$port"
for _ in $(seq "$rounds"); do
  timed "tweetcache reindex" "$bin" reindex --cache "$work/cache"
done

# The peer runs in a process group of its own, so a stop (PEER_LIMIT, ^C) ends all of it.
rc=0
peer_start=$(date +%s)
set -m
/usr/bin/time -f "%e %M" -o "$work/t.txt" python3 "$here/twitter-to-sqlite-peer.py" \
  "$work/posts.jsonl" "$n" "$work/peer.db" > "$work/peer-out.txt" 2>&1 &
peer_pid=$!
set +m
if [ -n "${PEER_LIMIT:-}" ]; then
  ( sleep "$PEER_LIMIT"; kill -- -"$peer_pid" 2>/dev/null ) &
  watchdog=$!
fi
wait "$peer_pid" || rc=$?
peer_pid=
peer_seconds=$(( $(date +%s) - peer_start ))
[ -n "${PEER_LIMIT:-}" ] && { kill "$watchdog" 2>/dev/null || true; }
if [ "$rc" = 143 ] && ! grep -q '^[0-9]* posts, ' "$work/peer-out.txt"; then  # SIGTERM to its group
  # Stopped (after PEER_LIMIT seconds, or by hand), it still tells its pace and bounds the ratio.
  cat "$work/peer-out.txt"
  python3 - "$work/walls" "$work/peer-out.txt" "$n" "$peer_seconds" <<'PY'
import statistics, sys
ours = statistics.median(float(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]) if l.startswith("tweetcache reindex "))
saved = [l.split() for l in open(sys.argv[2]) if l.startswith("saved ")]
n, limit = int(sys.argv[3]), float(sys.argv[4])
print(f"twitter-to-sqlite save_tweets stopped after {limit:.0f} s, unfinished: reindex median {ours:.2f} s, "
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
# With sqlite-utils 4 the triggers on `tweets` that feed `tweets_fts` are gone by the end
# of the first save (`add_foreign_key` rebuilds `tweets` without them; `users_fts` keeps
# its own): that index is empty until rebuilt.
timed "sqlite-utils rebuild-fts (its FTS)" sqlite-utils rebuild-fts "$work/peer.db" tweets users
cat "$work/peer-out.txt"

# The same query of both: two words of one post's text, no hashtags.
words=$(python3 - "$work/posts.jsonl" <<'PY'
import json, re, sys
post = json.loads(open(sys.argv[1]).readline())["statuses"][7]
text = re.sub(r"[#@]\w+", " ", post["full_text"])
words = [w.lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) > 2]
print(words[0], words[1])
PY
)
"$bin" serve --cache "$work/cache" --port "$serve_port" > "$work/serve.log" 2>&1 &
server=$!
python3 - "$serve_port" "$words" "$work/peer.db" "$server" "$work/serve.log" <<'PY'
import http.client, json, os, sqlite3, statistics, sys, time, urllib.parse
port, words, peer, server, log = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t = time.perf_counter()
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    return r.status, body, time.perf_counter() - t
deadline = time.monotonic() + 60
while True:
    try:
        os.kill(server, 0)
    except OSError:
        sys.exit("tweetcache serve exited:\n" + open(log).read())
    try:
        if get("/api/tweets?limit=1")[0] == 200:
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("tweetcache serve did not answer within 60 s:\n" + open(log).read())
    time.sleep(0.05)
path = "/api/tweets?limit=20&q=" + urllib.parse.quote(words)
ours = [get(path) for _ in range(20)]
if ours[-1][0] != 200:
    sys.exit(f"?q= answered {ours[-1][0]}: {ours[-1][1][:200]!r}")
total = json.loads(ours[-1][1])["total"]
db = sqlite3.connect(peer)
# Ours reads the last word as a prefix (the user may still be typing): the peer's MATCH too.
*head, last = words.split()
match = " ".join([f'"{w}"' for w in head] + [f'"{last}"*'])
def peer_query():
    t = time.perf_counter()
    rows = db.execute("SELECT t.id FROM tweets t JOIN tweets_fts f ON f.rowid = t.rowid WHERE tweets_fts MATCH ? "
                      "ORDER BY t.created_at DESC LIMIT 20", [match]).fetchall()
    count = db.execute("SELECT count(*) FROM tweets_fts WHERE tweets_fts MATCH ?", [match]).fetchone()[0]
    return count, time.perf_counter() - t
theirs = [peer_query() for _ in range(20)]
# Ours also searches names and handles; the peer's tweets_fts holds text only. Say when that differs.
users = db.execute("SELECT count(*) FROM users_fts WHERE users_fts MATCH ?", [match]).fetchone()[0]
print()
print(f"query '{words}': tweetcache serve ?q= finds {total} posts, first page median "
      f"{statistics.median(s for _, _, s in ours) * 1000:.1f} ms (HTTP); twitter-to-sqlite's tweets_fts finds "
      f"{theirs[-1][0]}, first 20 and count median {statistics.median(s for _, s in theirs) * 1000:.1f} ms (in process)"
      + (f"; {users} authors' names or handles also match, which ours counts and its tweets_fts does not" if users else ""))
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
