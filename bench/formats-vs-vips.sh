#!/usr/bin/env bash
# WebP, GIF and AVIF originals, and JPEGs carrying a colour profile: TweetCache's
# thumbnails against vipsthumbnail's, for quality (PSNR) and speed, in one run.
#
# Usage: bench/formats-vs-vips.sh [CORPUS_DIR] [RUNS]
#   CORPUS_DIR  made by ../shared/bench/make-corpus.py (default: a fresh full one, ~1.5 min)
#   RUNS        hyperfine runs per command (default 5)
# Needs: hyperfine, libvips-tools (webpsave, gifsave, heifsave), python3 with numpy + Pillow.
#
# From the corpus's 90 JPEGs, vips writes: every one as WebP (Q80), the ten 1200x675
# ones as GIF (256 colours, dithered) and as AVIF (Q60), and every one converted into
# Display P3 with the profile embedded (JPEG Q85), and every one re-encoded by the same
# libjpeg settings without a profile (the untagged twin the P3 set is timed against). Quality: 256 px PNG thumbnails
# from both tools (TweetCache's resampling on sRGB values, as vips does), PSNR per
# image, target >= 35 dB. Speed: `tweetcache thumb` vs `vipsthumbnail` on the WebPs
# (target <= 0.6x), and `tweetcache thumb` on the P3 JPEGs vs the same photos untagged
# (target <= 1.15x); peak RSS of each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
shared=${SHARED_BENCH:-$repo/../shared/bench}
runs=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-formats.XXXXXX")
trap 'rm -rf "$work"' EXIT
corpus=$(shared_corpus "$work" "${1:-}")
bin=$(tweetcache_binary .build-release)
(cd "$repo" && swift build -c release -Xswiftc -enable-testing --scratch-path .build-tests --product tc-colour-set >&2 \
  && swift build -c release -Xswiftc -enable-testing --scratch-path .build-tests --product tc-thumb-export >&2)
tools=$repo/.build-tests/release
jobs=$(nproc)

echo "== the set: WebP, GIF, AVIF and P3 JPEGs from $corpus" >&2
mkdir -p "$work/webp" "$work/gif" "$work/avif" "$work/p3" "$work/plain"
"$tools/tc-colour-set" profile p3 "$work/p3.icc"
ls "$corpus"/*.jpg | xargs -P "$jobs" -I{} sh -c 'f={}; s=$(basename "${f%.*}");
  vips webpsave "$f" "'"$work"'/webp/$s.webp" --Q 80 --strip
  vips copy "$f" "'"$work"'/plain/$s.jpg[Q=85]"
  vips icc_transform "$f" "'"$work"'/p3/$s.jpg[Q=85]" "'"$work"'/p3.icc" --input-profile srgb --intent relative'
ls "$corpus"/photo_1200x675_*.jpg | head -n 10 | xargs -P "$jobs" -I{} sh -c 'f={}; s=$(basename "${f%.*}");
  vips gifsave "$f" "'"$work"'/gif/$s.gif"
  vips heifsave "$f" "'"$work"'/avif/$s.avif" --compression av1 --Q 60 --effort 2'
for d in webp gif avif p3; do echo "$d: $(ls "$work/$d" | wc -l) files, $(du -sh "$work/$d" | cut -f1)" >&2; done

echo "== quality: 256 px PNG thumbnails, PSNR against vipsthumbnail's" >&2
for d in webp gif avif p3; do
  mkdir -p "$work/q/$d/ours" "$work/q/$d/vips"
  "$tools/tc-thumb-export" "$work/$d" "$work/q/$d/ours" --size 256 --linear 0 >&2
  # Only the P3 set carries a profile: for untagged files, --export-profile srgb makes
  # vipsthumbnail 8.14 import them through another sRGB profile and shift them (+8 in red).
  export=(); [ "$d" = p3 ] && export=(--export-profile srgb)
  (cd "$work/$d" && vipsthumbnail -s 256 "${export[@]}" -o "$work/q/$d/vips/%s.png" * 2>/dev/null)
done
python3 - "$work/q" > "$work/quality.txt" <<'PY'
import sys, os, numpy as np
from PIL import Image
root = sys.argv[1]
for d in ["webp", "gif", "avif", "p3"]:
    ps = []
    for name in sorted(os.listdir(f"{root}/{d}/vips")):
        a = np.asarray(Image.open(f"{root}/{d}/ours/{name}").convert("RGB"), dtype=np.float64)
        b = np.asarray(Image.open(f"{root}/{d}/vips/{name}").convert("RGB"), dtype=np.float64)
        h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
        mse = np.mean((a[:h, :w] - b[:h, :w]) ** 2)
        ps.append(99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse))
    print(f"{d:5} {len(ps):3d} images  PSNR vs vipsthumbnail: min {min(ps):.1f} dB, median {np.median(ps):.1f} dB"
          + ("" if min(ps) >= 35 else "  (below the 35 dB target)"))
PY
cat "$work/quality.txt"

echo "== speed" >&2
out=$work/out
hyperfine --warmup 1 --runs "$runs" --export-json "$work/webp.json" \
  -n 'tweetcache thumb (90 WebP)' --prepare "rm -rf $out/a && mkdir -p $out/a" "$bin thumb --size 256 --quality 85 --out $out/a $work/webp/*.webp" \
  -n 'vipsthumbnail (90 WebP)' --prepare "rm -rf $out/b && mkdir -p $out/b" "vipsthumbnail -s 256 -o '$out/b/%s.jpg[Q=85]' $work/webp/*.webp" >&2
hyperfine --warmup 1 --runs "$runs" --export-json "$work/p3.json" \
  -n 'tweetcache thumb (90 JPEG, P3 profile)' --prepare "rm -rf $out/c && mkdir -p $out/c" "$bin thumb --size 256 --quality 85 --out $out/c $work/p3/*.jpg" \
  -n 'tweetcache thumb (90 JPEG, untagged)' --prepare "rm -rf $out/d && mkdir -p $out/d" "$bin thumb --size 256 --quality 85 --out $out/d $work/plain/*.jpg" >&2
rss() { mkdir -p "$out/r"; /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
rss_ours=$(rss "$bin" thumb --size 256 --out "$out/r" "$work"/webp/*.webp)
rss_vips=$(rss vipsthumbnail -s 256 -o "$out/r/%s.jpg" "$work"/webp/*.webp)
python3 - "$work" "$rss_ours" "$rss_vips" <<'PY'
import json, sys
w, rss_ours, rss_vips = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def means(name):
    return [r["mean"] for r in json.load(open(f"{w}/{name}.json"))["results"]]
webp, p3 = means("webp"), means("p3")
print(f"WebP thumbnails: tweetcache {webp[0]:.2f} s, vipsthumbnail {webp[1]:.2f} s: {webp[0] / webp[1]:.2f}x (target <= 0.6x);"
      f" peak RSS {rss_ours // 1024} MB vs {rss_vips // 1024} MB")
print(f"JPEG thumbnails with a P3 profile {p3[0]:.2f} s vs untagged {p3[1]:.2f} s: {p3[0] / p3[1]:.2f}x (target <= 1.15x)")
PY
