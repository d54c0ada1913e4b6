#!/bin/sh
# Usage: scripts/compare-thumbs.sh CORPUS_DIR [SIZE]
#   CORPUS_DIR: JPEG/PNG files, e.g. made by ../shared/bench/make-corpus.py
#   SIZE: thumbnail long edge, default 256
#
# Compares our thumbnails with vipsthumbnail's. For every image, makes a
# SIZE-px thumbnail with `vipsthumbnail -s SIZE` and with Thumbnailer (through
# tc-thumb-export (Tests/ThumbExportTool), once filtering in linear light, once on sRGB
# values as vips does), all saved as PNG so no JPEG re-encoding muddies the
# comparison, then prints the PSNR of each against vips: per image (worst
# first) and min / median / mean per mode.
#
# How images are compared: RGB for opaque images; for images with alpha, the
# colour premultiplied by alpha (what shows over black) plus alpha itself, so
# the invisible colour of fully transparent pixels does not count. When the
# two sizes differ (vips rounds the short edge its own way), the overlapping
# top-left area is compared and the image is counted as a size mismatch.
set -eu
corpus=${1:?usage: $0 CORPUS_DIR [SIZE]}
size=${2:-256}
[ -d "$corpus" ] || { echo "error: $corpus is not a folder" >&2; exit 2; }
command -v vipsthumbnail >/dev/null || { echo "error: vipsthumbnail not found (apt-get install libvips-tools)" >&2; exit 2; }
corpus=$(cd "$corpus" && pwd)
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/vips" "$work/linear" "$work/srgb"

set -- "$corpus"/*.jpg "$corpus"/*.jpeg "$corpus"/*.png
images=""
for f in "$@"; do [ -f "$f" ] && images="$images $f"; done
[ -n "$images" ] || { echo "error: no .jpg/.jpeg/.png files in $corpus" >&2; exit 2; }

start=$(date +%s.%N)
# shellcheck disable=SC2086
vipsthumbnail -s "$size" -o "$work/vips/%s.png" $images
end=$(date +%s.%N)
echo "vipsthumbnail: $(echo "$end - $start" | bc) s wall (one process, PNG output)"

swift build -c release --product tc-thumb-export >&2
tool=$(swift build -c release --show-bin-path)/tc-thumb-export
for mode in linear srgb; do
    linear=1
    [ "$mode" = srgb ] && linear=0
    if ! "$tool" "$corpus" "$work/$mode" --size "$size" --linear $linear; then
        echo "error: tc-thumb-export failed ($mode)" >&2
        exit 1
    fi
done

python3 - "$work" <<'PY'
import math, os, statistics, sys
import numpy as np
from PIL import Image

work = sys.argv[1]

def planes(path):
    im = Image.open(path)
    has_alpha = im.mode in ("RGBA", "LA") or (im.mode == "P" and "transparency" in im.info)
    a = np.asarray(im.convert("RGBA" if has_alpha else "RGB"), dtype=np.float64)
    return a, has_alpha

def comparable(a, alpha):
    if not alpha:
        return a
    rgb = a[..., :3] * a[..., 3:4] / 255.0
    return np.concatenate([rgb, a[..., 3:4]], axis=2)

def psnr(x, y):
    mse = np.mean((x - y) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)

names = sorted(os.listdir(os.path.join(work, "vips")))
for mode in ("linear", "srgb"):
    results, mismatched, missing = [], [], []
    for name in names:
        ours_path = os.path.join(work, mode, name)
        if not os.path.exists(ours_path):
            missing.append(name)
            continue
        v, va = planes(os.path.join(work, "vips", name))
        o, oa = planes(ours_path)
        alpha = va or oa
        if alpha and not va:
            v = np.concatenate([v, np.full(v.shape[:2] + (1,), 255.0)], axis=2)
        if alpha and not oa:
            o = np.concatenate([o, np.full(o.shape[:2] + (1,), 255.0)], axis=2)
        if v.shape != o.shape:
            mismatched.append(f"{name}: vips {v.shape[1]}x{v.shape[0]}, ours {o.shape[1]}x{o.shape[0]}")
            h, w = min(v.shape[0], o.shape[0]), min(v.shape[1], o.shape[1])
            v, o = v[:h, :w], o[:h, :w]
        results.append((psnr(comparable(v, alpha), comparable(o, alpha)), name))
    results.sort()
    values = [r[0] for r in results]
    print(f"\n== ours ({mode} light) vs vipsthumbnail: {len(values)} images")
    for value, name in results[:8]:
        print(f"  {value:6.2f} dB  {name}")
    if len(results) > 8:
        print(f"  ... {len(results) - 8} more, up to {values[-1]:.2f} dB")
    if values:
        print(f"  PSNR min {min(values):.2f}  median {statistics.median(values):.2f}  mean {statistics.mean(values):.2f} dB")
    print(f"  size mismatches: {len(mismatched)}" + "".join(f"\n    {m}" for m in mismatched))
    if missing:
        print(f"  missing (our thumbnail failed): {len(missing)}: {', '.join(missing)}")
PY
