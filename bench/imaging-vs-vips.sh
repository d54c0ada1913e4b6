#!/usr/bin/env bash
# Benchmark: thumbnails, tile pyramids and full JPEG decode, side by side with
# vipsthumbnail, `vips dzsave` and djpeg on the ../shared/bench corpus, in one run.
#
# Usage: bench/imaging-vs-vips.sh [CORPUS_DIR] [RUNS]
#   CORPUS_DIR  made by ../shared/bench/make-corpus.py (default: a fresh one in $TMPDIR)
#   RUNS        hyperfine runs per command (default 5)
# Needs: hyperfine, libvips-tools, libjpeg-turbo-progs, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
runs=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-imaging-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
corpus=$(shared_corpus "$work" "${1:-}")
# TC_SCRATCH: another build folder (e.g. .build-release), as in serve-vs-nginx.sh.
bin=$(tweetcache_binary .build)
out=$work/out
mkdir -p "$out"
cd "$corpus"
jobs=$(nproc)

echo "== thumbnails, 256 px, Q85, all 100 files" >&2
hyperfine --warmup 1 --runs "$runs" --export-json "$work/thumb.json" \
  -n tweetcache --prepare "rm -rf $out/t && mkdir -p $out/t" "$bin thumb --size 256 --quality 85 --out $out/t *.jpg *.png" \
  -n vipsthumbnail --prepare "rm -rf $out/v && mkdir -p $out/v" "vipsthumbnail -s 256 -o '$out/v/%s.jpg[Q=85]' *.jpg *.png"

echo "== tile pyramids, dz, 256, overlap 0, Q85, all 100 files" >&2
hyperfine --warmup 1 --runs "$runs" --export-json "$work/dz.json" \
  -n tweetcache --prepare "rm -rf $out/tt && mkdir -p $out/tt" "$bin tile --layout dz --tile-size 256 --overlap 0 --quality 85 --out $out/tt *.jpg *.png" \
  -n 'vips dzsave' --prepare "rm -rf $out/vv && mkdir -p $out/vv" \
    "for f in *.jpg *.png; do vips dzsave \"\$f\" $out/vv/\"\${f%.*}\" --layout dz --tile-size 256 --overlap 0 --suffix '.jpg[Q=85]'; done"

echo "== full decode of the 90 JPEGs, both cores" >&2
hyperfine --warmup 1 --runs "$runs" --export-json "$work/decode.json" \
  -n tweetcache "$bin decode --jobs $jobs *.jpg" \
  -n 'djpeg xargs -P' "printf '%s\n' *.jpg | xargs -P $jobs -I{} djpeg -outfile /dev/null {}"

echo "== peak memory of one 4096x3072 pyramid" >&2
big=$(ls photo_4096x3072_*.jpg | head -1)
rm -rf "$out/mem" && mkdir -p "$out/mem"
/usr/bin/time -v "$bin" tile --layout dz --out "$out/mem" "$big" 2> "$work/mem.txt" >/dev/null
rm -rf "$out/mem2" && mkdir -p "$out/mem2"
/usr/bin/time -v vips dzsave "$big" "$out/mem2/x" --layout dz --tile-size 256 --overlap 0 --suffix '.jpg[Q=85]' 2> "$work/mem2.txt" >/dev/null

python3 - "$work" <<'PY'
import json, sys, re
w = sys.argv[1]
def pair(name, a, b):
    r = {x["command"]: x for x in json.load(open(f"{w}/{name}.json"))["results"]}
    A, B = r[a], r[b]
    print(f"{name:7s} {a} {A['median']:.3f} s (cpu {A['user']+A['system']:.2f} s) vs {b} {B['median']:.3f} s "
          f"(cpu {B['user']+B['system']:.2f} s): ratio {A['median']/B['median']:.2f}x")
pair("thumb", "tweetcache", "vipsthumbnail")
pair("dz", "tweetcache", "vips dzsave")
pair("decode", "tweetcache", "djpeg xargs -P")
def rss(f): return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(f).read()).group(1)) / 1024
print(f"peak RSS, one 4096x3072 pyramid: tweetcache {rss(f'{w}/mem.txt'):.0f} MiB, vips dzsave {rss(f'{w}/mem2.txt'):.0f} MiB "
      f"(decoded RGB image: {4096*3072*3/2**20:.0f} MiB)")
PY
