#!/usr/bin/env bash
# Benchmark: `tweetcache fetch` (download + SHA-256 + durable store + index + manifest)
# against `curl --parallel --parallel-max 16` on the same URLs, in the same run, and
# against that curl followed by `sync -f` (the same durability: tweetcache fsyncs every
# blob before its name exists). A fourth command, the same curl writing every body to
# /dev/null, shows what downloading alone costs here.
#
# Usage: bench/fetch-vs-curl.sh [--mode loopback|h2|h2-small] [CORPUS_DIR] [RUNS]
#   loopback  (default) HTTP/1.1 from nginx on 127.0.0.1; CORPUS_DIR from
#             ../shared/bench/make-corpus.py (default: a fresh one). 20 runs.
#   h2        HTTPS with HTTP/2 from nginx in a network namespace over a veth link, as
#             the media CDN serves it (../shared/bench/serve-corpus-h2.sh; needs root).
#             Same corpus as loopback. 20 runs.
#   h2-small  The same origin, 10,000 photos of ~20 KB each (the first 10,000 of
#             CORPUS_DIR/media from bench/make-scale-corpus.py), where per-request cost
#             dominates; reports files per second too. 5 runs. Every run writes to a
#             fresh ext4 file system (see FRESH_FS).
# Needs: nginx, hyperfine, curl, python3 (+numpy, Pillow to make a corpus), openssl and
# iproute2 for the h2 modes.
# Environment: TC_SCRATCH (build folder, default .build), SHARED_BENCH.
#   TC_EXPERIMENT_BIN  A tweetcache built with bench/experiments/store-switched-off.patch:
#             adds two commands, that binary with nothing flushed to disk and with nothing
#             stored at all (see bench/experiments/README.md).
#   FRESH_FS=1|0  Write every run's files to a file system made for it: ext4 on a loop
#             device over a file in the work folder, with direct I/O, so its flushes
#             reach the disk as the cache's own would (needs root, losetup, mkfs.ext4).
#             Default 1 for h2-small, 0 otherwise. Without it, 10,000-file runs on a
#             long-used file system swung 2x for both tools (curl alone 0.73-5 s for the
#             same files) with what earlier runs left behind: freed inodes ext4 scans
#             past for minutes after a deletion, pages not yet written back.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
mode=loopback
if [ "${1:-}" = "--mode" ]; then mode=${2:?--mode needs loopback, h2 or h2-small}; shift 2; fi
case "$mode" in
  loopback|h2) default_runs=20 ;;
  h2-small) default_runs=5 ;;
  *) echo "unknown mode $mode (loopback, h2, h2-small)" >&2; exit 2 ;;
esac
runs=${2:-$default_runs}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-fetch-bench.XXXXXX")
corpus=${1:-}
if [ -z "$corpus" ]; then
  corpus=$work/corpus
  if [ "$mode" = h2-small ]; then
    python3 "$here/make-scale-corpus.py" "$corpus" >&2
  else
    python3 "$shared/make-corpus.py" --out "$corpus" --scale full >&2
  fi
fi
corpus=$(cd "$corpus" && pwd)

bin=$(tweetcache_binary .build)

cleanup() { :; }
cleanup_fs() { :; }
trap 'cleanup; cleanup_fs; rm -rf "$work"' EXIT
case "$mode" in
  loopback)
    out=$("$shared/serve-corpus.sh" "$corpus" 8089)
    eval "$(echo "$out" | tail -n 1)"
    cleanup() { kill "$NGINX_PID" 2>/dev/null || true; }
    cp "$corpus/urls.txt" "$work/urls.txt"
    ;;
  h2)
    "$shared/serve-corpus-h2.sh" start "$corpus" >&2
    cleanup() { "$shared/serve-corpus-h2.sh" stop >&2 || true; }
    sed 's#^http://127.0.0.1:8089/#https://10.200.0.2/media/#' "$corpus/urls.txt" > "$work/urls.txt"
    ;;
  h2-small)
    "$shared/serve-corpus-h2.sh" start "$corpus/media" >&2
    cleanup() { "$shared/serve-corpus-h2.sh" stop >&2 || true; }
    # awk, not head: head stops reading early and, under pipefail, sort's SIGPIPE ends the script.
    (cd "$corpus/media" && ls | sort | awk 'NR <= 10000 { print "https://10.200.0.2/media/" $0 }') > "$work/urls.txt"
    ;;
esac
count=$(wc -l < "$work/urls.txt")
sed 's/.*/url = "&"/' "$work/urls.txt" > "$work/curl-urls.cfg"
# The same transfers with every body thrown away: what downloading alone costs, the
# floor under any tool that also stores what it fetched.
sed 's#.*#url = "&"\noutput = "/dev/null"#' "$work/urls.txt" > "$work/curl-null.cfg"
python3 "$here/make-results.py" "$work/urls.txt" > "$work/page.json"
mkdir -p "$work/out" "$work/trash"
cd "$work"
fresh_fs=${FRESH_FS:-$([ "$mode" = h2-small ] && echo 1 || echo 0)}
if [ "$fresh_fs" = 1 ]; then
  for tool in losetup mkfs.ext4 mountpoint; do
    command -v $tool >/dev/null || { echo "FRESH_FS=1 needs $tool (or set FRESH_FS=0)" >&2; exit 2; }
  done
  [ "$(id -u)" -eq 0 ] || { echo "FRESH_FS=1 needs root to mount a file system (or set FRESH_FS=0)" >&2; exit 2; }
  # Four times the bytes fetched, at least 1 GiB.
  bytes=$(cd "$corpus" && { [ "$mode" = h2-small ] && du -sb media || du -sb .; } | cut -f1)
  size=$(( bytes * 4 > 1073741824 ? bytes * 4 : 1073741824 ))
  # Written out, not sparse: direct I/O into holes would allocate the image's blocks on
  # the file system beneath during the runs, and time that rather than the tools.
  dd if=/dev/zero of="$work/fs.img" bs=1M count=$(( size / 1048576 )) conv=fsync status=none
  cat > "$work/fresh-fs.sh" <<EOF
#!/bin/sh
# Unmounts the last run's file system and makes a new one at $work/out.
set -e
if mountpoint -q $work/out; then umount $work/out; fi
for dev in \$(losetup -j $work/fs.img -O NAME -n); do losetup -d \$dev; done
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $work/fs.img
dev=\$(losetup --direct-io=on --show -f $work/fs.img)
mount \$dev $work/out
EOF
  chmod +x "$work/fresh-fs.sh"
  cleanup_fs() {
    if mountpoint -q "$work/out"; then umount "$work/out"; fi
    for dev in $(losetup -j "$work/fs.img" -O NAME -n); do losetup -d "$dev"; done
  }
else
  cleanup_fs() { :; }
fi
# Between runs the last output goes (with FRESH_FS, the whole file system). Otherwise,
# with 10,000 files it is moved aside, not deleted,
# until the end: ext4 avoids reusing inodes freed in the last few seconds, and after
# `rm -rf` of 10,000 files every new file scanned past them (most of a run's CPU, for
# whichever tool ran next). With 100 files deleting costs little, and keeps the page
# cache and the disk as the issue's baseline had them.
aside() {
  if [ "$fresh_fs" = 1 ]; then
    echo "$work/fresh-fs.sh && sync"
  elif [ "$mode" = h2-small ]; then
    echo "[ ! -e $work/out/$1 ] || mv $work/out/$1 \$(mktemp -d -p $work/trash)/; sync"
  else
    echo "rm -rf $work/out/$1 && sync"
  fi
}
curl_parallel="curl -sS --no-progress-meter --fail --parallel --parallel-max 16"
curl_cmd="$curl_parallel --remote-name-all --config $work/curl-urls.cfg"
experiments=()
if [ -n "${TC_EXPERIMENT_BIN:-}" ]; then
  for what in NO_FLUSH NO_STORE; do
    experiments+=(-n "tweetcache, experiment $what" --prepare "$(aside x$what)"
      "env TC_EXPERIMENT_$what=1 $TC_EXPERIMENT_BIN fetch $work/page.json --cache $work/out/x$what --quiet --tiles none --thumb-sizes ''")
  done
fi
hyperfine --warmup 2 --runs "$runs" --export-json "$work/fetch-vs-curl.json" "${experiments[@]}" \
  -n tweetcache --prepare "$(aside tc)" \
    "$bin fetch $work/page.json --cache $work/out/tc --quiet --tiles none --thumb-sizes ''" \
  -n 'curl --parallel' --prepare "$(aside curl); mkdir -p $work/out/curl" \
    "$curl_cmd --output-dir $work/out/curl" \
  -n 'curl --parallel + sync' --prepare "$(aside curls); mkdir -p $work/out/curls" \
    "$curl_cmd --output-dir $work/out/curls && sync -f $work/out/curls" \
  -n 'curl --parallel to /dev/null' --prepare sync \
    "$curl_parallel --config $work/curl-null.cfg"

python3 - "$work/fetch-vs-curl.json" "$mode" "$count" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
mode, n = sys.argv[2], int(sys.argv[3])
tc, cu, cs = r["tweetcache"], r["curl --parallel"], r["curl --parallel + sync"]
cn = r["curl --parallel to /dev/null"]
cpu = lambda x: x["user"] + x["system"]
print(f"[{mode}, {n} files] tweetcache median {tc['median']*1000:.1f} ms, curl median {cu['median']*1000:.1f} ms, "
      f"ratio {tc['median']/cu['median']:.2f}x (mean ratio {tc['mean']/cu['mean']:.2f}x)")
print(f"with the same durability (curl, then sync -f of its files' file system): curl+sync median "
      f"{cs['median']*1000:.1f} ms, ratio {tc['median']/cs['median']:.2f}x (mean ratio {tc['mean']/cs['mean']:.2f}x)")
print(f"cpu (user+sys, mean): tweetcache {cpu(tc)*1000:.0f} ms, curl {cpu(cu)*1000:.0f} ms, "
      f"ratio {cpu(tc)/cpu(cu):.2f}x; curl+sync {cpu(cs)*1000:.0f} ms")
print(f"files per second (median): tweetcache {n/tc['median']:.0f}, curl {n/cu['median']:.0f} "
      f"({(n/tc['median'])/(n/cu['median']):.2f}x), curl+sync {n/cs['median']:.0f} ({(n/tc['median'])/(n/cs['median']):.2f}x)")
print(f"downloading alone (curl, every body to /dev/null): median {cn['median']*1000:.1f} ms, cpu {cpu(cn)*1000:.0f} ms; "
      f"curl's writing adds {(cu['median']-cn['median'])*1000:.0f} ms, tweetcache's parsing, storing, indexing and manifest "
      f"{(tc['median']-cn['median'])*1000:.0f} ms")
for what in ("NO_FLUSH", "NO_STORE"):
    x = r.get(f"tweetcache, experiment {what}")
    if x:
        print(f"experiment {what}: median {x['median']*1000:.1f} ms, {n/x['median']:.0f} files/s, "
              f"{(n/x['median'])/(n/cu['median']):.2f}x curl's, cpu {cpu(x)*1000:.0f} ms")
PY
if [ "$mode" = h2-small ] && [ "$fresh_fs" != 1 ]; then
  echo "note: the 60,000+ files of these runs are deleted on exit; on ext4, files created in the next few" \
       "minutes scan past the freed inodes, so time other file-creating benchmarks after that (or before this one)." >&2
fi
# Check the cache is complete and correct after the last run (on a fresh file system the
# last command's preparation removed it: fetch once more first).
if [ "$fresh_fs" = 1 ]; then
  "$work/fresh-fs.sh"
  "$bin" fetch "$work/page.json" --cache "$work/out/tc" --quiet --tiles none --thumb-sizes '' > /dev/null
fi
"$bin" fetch "$work/page.json" --cache "$work/out/tc" --json --quiet | python3 -c '
import json,sys; s=json.load(sys.stdin)["summary"]; print("second run over the same results:", s["cached"], "cached,", s["downloaded"], "downloaded,", s["failed"], "failed")'
