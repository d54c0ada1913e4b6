#!/usr/bin/env bash
# Screenshots of the tile server's viewer in headless Chromium, for people and tests.
#
#   scripts/browser-check.sh BASEURL SHA256 OUTDIR
#
# Writes OUTDIR/list.png (BASEURL/), OUTDIR/zoom.png (BASEURL/view/SHA256, fitted),
# OUTDIR/zoom-deep.png (the same at 8x, centred on the image's middle, so the finest
# levels and several tiles are drawn) and OUTDIR/missing.png (a hash with no image:
# the error message), plus OUTDIR/zoom.dom.html and OUTDIR/zoom-deep.dom.html, the DOM
# after loading: `<body ... data-ready="1">` once the tiles in view are drawn, and
# with ?debug a <pre id="debug"> holding window.__zoom as JSON.
# Window 1000x750 CSS px at device scale 1; virtual time lets tiles load before capture.
# Needs `chromium` (Debian) or CHROMIUM=/path/to/chrome. Exit status 0 when every capture worked.
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 BASEURL SHA256 OUTDIR" >&2
    exit 2
fi
base=${1%/}
sha=$2
out=$3
chrome=${CHROMIUM:-chromium}
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

flags=(--headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,750
    --force-device-scale-factor=1 --virtual-time-budget=8000 --user-data-dir="$profile"
    --no-first-run --disable-extensions --disable-background-networking)

shot() { # NAME URL
    if ! timeout 90 "$chrome" "${flags[@]}" --screenshot="$out/$1.png" "$2" >"$out/$1.log" 2>&1 \
        || [ ! -s "$out/$1.png" ]; then
        echo "browser-check: screenshot of $2 failed, see $out/$1.log" >&2
        return 1
    fi
    echo "$out/$1.png"
}

dom() { # NAME URL
    if ! timeout 90 "$chrome" "${flags[@]}" --dump-dom "$2" >"$out/$1.dom.html" 2>"$out/$1.dom.log"; then
        echo "browser-check: DOM dump of $2 failed, see $out/$1.dom.log" >&2
        return 1
    fi
    echo "$out/$1.dom.html"
}

status=0
shot list "$base/" || status=1
shot zoom "$base/view/$sha" || status=1
shot zoom-deep "$base/view/$sha?zoom=8&x=0.5&y=0.5" || status=1
shot missing "$base/view/$(printf '0%.0s' {1..64})" || status=1
dom zoom "$base/view/$sha?debug" || status=1
dom zoom-deep "$base/view/$sha?zoom=8&x=0.5&y=0.5&debug" || status=1
for f in zoom zoom-deep; do
    if grep -q 'data-ready="1"' "$out/$f.dom.html" 2>/dev/null; then
        echo "$f: ready"
    else
        echo "browser-check: $f view never became ready (data-ready != 1)" >&2
        status=1
    fi
done
exit $status
