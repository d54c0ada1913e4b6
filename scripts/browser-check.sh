#!/usr/bin/env bash
# Screenshots of the tile server's viewer in headless Chromium, for people and tests.
#
#   scripts/browser-check.sh BASEURL SHA256 OUTDIR
#
# Writes, for the image SHA256 (which must have a Deep Zoom pyramid):
#   OUTDIR/list.png           BASEURL/                        the tweet list
#   OUTDIR/zoom.png           BASEURL/view/SHA256             fitted to the window ("home")
#   OUTDIR/zoom-native.png    BASEURL/view/SHA256?scale=1     1:1, image centre at the window centre
#   OUTDIR/missing.png        BASEURL/view/000…0              a hash with no image
#   OUTDIR/zoom.dom.html, OUTDIR/zoom-native.dom.html         the DOM once loaded, with ?debug:
#       <body data-ready="1" data-level="L" data-tiles="drawn/needed"> and
#       <pre id="debug"> holding window.__zoom as JSON.
# Viewport SIZE=1000x750 CSS px (env), device scale DPR=1 (env); CHROMIUM=path overrides `chromium`.
# Exit status 0 when every capture worked and both zoom views reported data-ready="1".
#
# --kiosk with --screen-info gives the page its final viewport from the start: without
# them headless Chromium lays the page out 143 px shorter and resizes it only when it
# captures, too late for tiles in the newly shown strip. Virtual time lets tiles load
# before the capture.
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 BASEURL SHA256 OUTDIR" >&2
    exit 2
fi
base=${1%/}
sha=$2
out=$3
chrome=${CHROMIUM:-chromium}
size=${SIZE:-1000x750}
dpr=${DPR:-1}
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

flags=(--headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size="${size/x/,}"
    --kiosk --screen-info="{$size}" --force-device-scale-factor="$dpr" --virtual-time-budget=8000
    --user-data-dir="$profile" --no-first-run --disable-extensions --disable-background-networking)

shot() { # NAME URL
    rm -f "$out/$1.png"
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
    if grep -q 'data-ready="1"' "$out/$1.dom.html"; then
        echo "$out/$1.dom.html (ready)"
    else
        echo "browser-check: $2 never became ready (no data-ready=\"1\" in $out/$1.dom.html)" >&2
        return 1
    fi
}

status=0
shot list "$base/" || status=1
shot zoom "$base/view/$sha" || status=1
shot zoom-native "$base/view/$sha?scale=1" || status=1
shot missing "$base/view/$(printf '0%.0s' {1..64})" || status=1
dom zoom "$base/view/$sha?debug" || status=1
dom zoom-native "$base/view/$sha?scale=1&debug" || status=1
exit $status
