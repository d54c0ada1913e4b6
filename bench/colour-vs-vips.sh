#!/usr/bin/env bash
# Colour accuracy: TweetCache's thumbnails of photos carrying colour profiles, against
# `vipsthumbnail --export-profile srgb` (libvips uses Little CMS too), in CIEDE2000.
#
# Usage: bench/colour-vs-vips.sh [PHOTOS]
#   PHOTOS  how many of the demo's sample photos to use (default 6), plus a saturated test card
# Needs: libvips-tools, python3 with numpy, and Debian's ICC profiles: icc-profiles-free
# (Adobe RGB compatible) and ghostscript (ROMM/ProPhoto RGB, default CMYK).
#
# The test set, made here from the project's own sample images (`tweetcache demo`):
# each source converted from sRGB by `vips icc_transform` (relative colorimetric) into
#   srgb      JPEG, sRGB profile embedded          p3        JPEG, Display P3 (made by Little CMS)
#   adobe     JPEG, Adobe RGB (1998) compatible    prophoto  JPEG, ROMM RGB (ProPhoto)
#   cmyk      CMYK JPEG, Ghostscript's default CMYK profile
#   ycck      the same inks as a YCCK JPEG (written by tc-colour-set: vips cannot)
#   png16     16-bit PNG, ProPhoto profile         chrm      PNG with gAMA + cHRM of Adobe RGB, no profile
# Three comparisons, CIEDE2000 per image (median and 99th percentile over the pixels):
#   full size   TweetCache's decode (no shrink-on-load, no resampling) against
#               `vips icc_transform FILE srgb --embedded --intent relative`: the colour
#               conversion alone. Target: median <= 1.0, p99 <= 3.0 on every image.
#   thumbnails  256 px PNGs, resampled on sRGB values as vips does (tc-thumb-export
#               --linear 0), against vips's conversion followed by vipsthumbnail, and
#               against `vipsthumbnail --export-profile srgb` itself. These add resampling
#               differences (shrink-on-load, and vips shrinking before converting): the
#               `srgb` row, with no conversion at all, shows their size.
# vipsthumbnail 8.14 refuses the embedded CMYK profile ("profile incompatible with
# image") and uses its own, so its CMYK/YCCK column is not a reference. The reference
# for `chrm` is vips's conversion of the same pixels with the Adobe profile embedded
# (vips does not read cHRM).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"
photos=${1:-6}
adobe=/usr/share/color/icc/compatibleWithAdobeRGB1998.icc
prophoto=/usr/share/color/icc/ghostscript/rommrgb.icc
cmyk=/usr/share/color/icc/ghostscript/default_cmyk.icc
for f in "$adobe" "$prophoto" "$cmyk"; do
  [ -f "$f" ] || { echo "error: $f missing (apt-get install icc-profiles-free ghostscript)" >&2; exit 2; }
done
command -v vipsthumbnail >/dev/null || { echo "error: vipsthumbnail missing (apt-get install libvips-tools)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tc-colour.XXXXXX")
[ -n "${KEEP:-}" ] && echo "work: $work" >&2 || trap 'rm -rf "$work"' EXIT
bin=$(tweetcache_binary .build-release)
(cd "$repo" && swift build -c release -Xswiftc -enable-testing --scratch-path .build-tests \
   --product tc-colour-set >&2 && swift build -c release -Xswiftc -enable-testing --scratch-path .build-tests \
   --product tc-thumb-export >&2)
tools=$repo/.build-tests/release

echo "== sources: the demo's sample photos and a test card" >&2
"$bin" demo --cache "$work/demo" >/dev/null 2>&1
mkdir -p "$work/src" "$work/set" "$work/ref" "$work/ours" "$work/vips"
# The largest JPEG originals the demo fetched (photos, not avatars).
find "$work/demo/blobs" -type f -size +150k | head -n 400 | while read -r f; do
  if [ "$(head -c 3 "$f" | od -An -tx1 | tr -d ' ')" = "ffd8ff" ]; then echo "$(stat -c %s "$f") $f"; fi
done | sort -rn | head -n "$photos" | awk '{print $2}' | nl -w1 -s' ' | while read -r n f; do
  vips copy "$f" "$work/src/photo$n.png"
done
python3 - "$work/src/card.png" <<'PY'
import sys, numpy as np
from PIL import Image
# Saturated patches (primaries, secondaries, skin, sky, foliage) over hue and lightness ramps.
h, w = 512, 768
y, x = np.mgrid[0:h, 0:w]
hue = x / w * 6
c = np.clip(np.stack([abs(hue - 3) - 1, 2 - abs(hue - 2), 2 - abs(hue - 4)], -1), 0, 1)
light = (y / h)[..., None]
img = np.where(light < 0.5, c * light * 2, c + (1 - c) * (light - 0.5) * 2)
patches = [(255,0,0),(0,255,0),(0,0,255),(0,255,255),(255,0,255),(255,255,0),(224,172,138),(90,150,220),(60,120,40),(128,128,128)]
for i, p in enumerate(patches):
    img[400:480, i * 76 + 4:i * 76 + 72] = np.array(p) / 255
Image.fromarray((img * 255 + 0.5).astype(np.uint8)).save(sys.argv[1])
PY

echo "== the test set" >&2
"$tools/tc-colour-set" profile p3 "$work/p3.icc"
for src in "$work"/src/*.png; do
  s=$(basename "$src" .png)
  t() { vips icc_transform "$src" "$2" "$1" --input-profile srgb --intent relative; }
  t srgb "$work/set/$s-srgb.jpg[Q=95]"
  t "$work/p3.icc" "$work/set/$s-p3.jpg[Q=95]"
  t "$adobe" "$work/set/$s-adobe.jpg[Q=95]"
  t "$prophoto" "$work/set/$s-prophoto.jpg[Q=95]"
  t "$cmyk" "$work/set/$s-cmyk.jpg[Q=95]"
  t "$cmyk" "$work/$s-cmyk.v"
  vips rawsave "$work/$s-cmyk.v" "$work/$s-cmyk.raw"
  "$tools/tc-colour-set" cmyk "$work/$s-cmyk.raw" "$(vipsheader -f width "$src")" "$(vipsheader -f height "$src")" \
    "$cmyk" "$work/set/$s-ycck.jpg" --ycck 1
  vips icc_transform "$src" "$work/$s-16.v" "$prophoto" --input-profile srgb --intent relative --depth 16
  vips pngsave "$work/$s-16.v" "$work/set/$s-png16.png"
  t "$adobe" "$work/ref/$s-chrm.png"
  "$tools/tc-colour-set" chrm "$work/ref/$s-chrm.png" adobe "$work/set/$s-chrm.png"
done
ls "$work/set" | wc -l | sed 's/^/images: /' >&2

echo "== thumbnails" >&2
"$tools/tc-thumb-export" "$work/set" "$work/ours" --size 256 --linear 0 >&2
# Full size, no shrink-on-load and no resampling: the colour conversion alone.
"$tools/tc-thumb-export" "$work/set" "$work/full" --size 100000 --linear 0 --shrink-on-load 0 >&2
mkdir -p "$work/vips2" "$work/srgb"
for f in "$work"/set/*; do
  s=$(basename "${f%.*}")
  case "$s" in *-chrm) f=$work/ref/$s.png ;; esac
  vipsthumbnail -s 256 --export-profile srgb -o "$work/vips/$s.png" "$f" 2>/dev/null
  # The same conversion done first, at full size (libvips's float pipeline), then the
  # thumbnail of sRGB pixels: what vipsthumbnail means, in the order TweetCache works.
  vips icc_transform "$f" "$work/srgb/$s.png" srgb --embedded --intent relative
  vipsthumbnail -s 256 -o "$work/vips2/$s.png" "$work/srgb/$s.png"
done

TC_BENCH_DIR="$here" python3 - "$work/ours" "$work/vips" "$work/vips2" "$work/full" "$work/srgb" <<'PY'
import sys, os, numpy as np
from PIL import Image
ours, vips, vips2, full, full_vips = sys.argv[1:6]

sys.path.insert(0, os.environ["TC_BENCH_DIR"])
from colour_difference import lab, ciede2000

def compare(reference, mine=ours):
    rows = []
    for name in sorted(os.listdir(reference)):
        a = np.asarray(Image.open(os.path.join(mine, name)).convert("RGB"), dtype=np.float64)
        b = np.asarray(Image.open(os.path.join(reference, name)).convert("RGB"), dtype=np.float64)
        h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
        d = ciede2000(lab(a[:h, :w]), lab(b[:h, :w])).ravel()
        rows.append((name.rsplit("-", 1)[1][:-4], name, float(np.median(d)), float(np.percentile(d, 99))))
    return rows

direct, first, whole = compare(vips), compare(vips2), compare(full_vips, full)
print("CIEDE2000 per image; each cell: worst image's median / worst image's p99")
print(f"{'variant':9} {'images':>6}  {'full size vs icc_transform':>27}  {'thumb vs icc_transform+thumb':>29}  {'thumb vs vipsthumbnail':>23}")
for kind in ["srgb", "p3", "adobe", "prophoto", "cmyk", "ycck", "png16", "chrm"]:
    cells = []
    for rows in (whole, first, direct):
        r = [x for x in rows if x[0] == kind]
        cells.append(f"{max(x[2] for x in r):.2f} / {max(x[3] for x in r):.2f}" if r else "-")
    print(f"{kind:9} {len([x for x in whole if x[0] == kind]):6d}  {cells[0]:>27}  {cells[1]:>29}  {cells[2]:>23}")
for label, rows in [("full size (colour conversion alone)", whole), ("thumbnails, icc_transform first", first),
                    ("thumbnails, vipsthumbnail --export-profile srgb", direct)]:
    fails = [x[1] for x in rows if x[2] > 1.0 or x[3] > 3.0]
    print(f"{label}: {len(rows)} images, median of medians {np.median([x[2] for x in rows]):.2f}, worst p99 {max(x[3] for x in rows):.2f};"
          f" median <= 1.0 and p99 <= 3.0 per image: " + ("met" if not fails else f"not met by {len(fails)}: " + ", ".join(fails)))
PY
