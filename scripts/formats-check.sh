#!/usr/bin/env bash
# End to end in a real browser: WebP, GIF, AVIF and a Display P3 JPEG, fetched from a
# loopback origin like tweet photos, derived (thumbnails and pyramid packs), served,
# and opened in the viewer's zoom page in headless Chromium, which must draw every
# tile it needs (data-tiles="N/N"), with IIIF info.json and a webp rendition checked.
#
# Usage: scripts/formats-check.sh [TWEETCACHE_BIN]   (default: a release build)
# Needs: libvips-tools (to write the originals), chromium, python3.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
  (cd "$repo" && swift build -c release --static-swift-stdlib --product tweetcache --scratch-path .build-release >&2)
  bin=$repo/.build-release/release/tweetcache
fi
work=$(mktemp -d /tmp/tc-formats-check.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
mkdir -p "$work/origin/media"
python3 - "$work/src.png" <<'PY'
import sys, numpy as np
from PIL import Image
h, w = 1500, 2000
y, x = np.mgrid[0:h, 0:w] / 300.0
img = np.stack([np.sin(x) * 0.5 + 0.5, np.sin(y * 1.3 + x * 0.4) * 0.5 + 0.5, np.cos(x * y * 0.2) * 0.5 + 0.5], -1)
alpha = (np.hypot(x - 3.3, y - 2.5) < 2.4).astype(np.float64)
Image.fromarray((np.dstack([img, alpha]) * 255).astype(np.uint8), "RGBA").save(sys.argv[1])
PY
vips webpsave "$work/src.png" "$work/origin/media/A.webp" --Q 85
vips gifsave "$work/src.png" "$work/origin/media/B.gif"
vips flatten "$work/src.png" "$work/flat.v" --background 255
vips heifsave "$work/flat.v" "$work/origin/media/C.avif" --compression av1 --Q 60 --effort 2
# Display P3 is made by Little CMS through the project's ICCProfile (tc-colour-set, a test tool).
if [ -x "$repo/.build-tests/debug/tc-colour-set" ]; then
  "$repo/.build-tests/debug/tc-colour-set" profile p3 "$work/p3.icc"
  vips icc_transform "$work/flat.v" "$work/origin/media/D.jpg[Q=90]" "$work/p3.icc" --input-profile srgb
else
  vips copy "$work/flat.v" "$work/origin/media/D.jpg[Q=90]"
fi
media=""
n=10
for f in A.webp B.gif C.avif D.jpg; do
  media="$media{\"id_str\":\"$n\",\"type\":\"photo\",\"media_url_https\":\"https://pbs.twimg.com/media/$f\"},"
  n=$((n + 1))
done
cat > "$work/page.json" <<JSON
{"statuses":[{"id_str":"1","created_at":"Thu Nov 26 06:00:00 +0000 2026","full_text":"every format",
 "extended_entities":{"media":[${media%,}]},
 "user":{"id_str":"3","screen_name":"formats","name":"Formats"}}]}
JSON
origin_port=${ORIGIN_PORT:-8297}
serve_port=${SERVE_PORT:-8298}
(cd "$work/origin" && exec python3 -m http.server "$origin_port" --bind 127.0.0.1 >/dev/null 2>&1) &
pids+=($!)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$origin_port/media/A.webp" -o /dev/null && break; sleep 0.1; done
"$bin" fetch "$work/page.json" --cache "$work/cache" --quiet --mirror "pbs.twimg.com=http://127.0.0.1:$origin_port" >&2
"$bin" serve --cache "$work/cache" --port "$serve_port" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$serve_port/healthz" -o /dev/null && break; sleep 0.1; done
status=0
for f in A.webp B.gif C.avif D.jpg; do
  hash=$(sha256sum "$work/origin/media/$f" | cut -c1-64)
  if ! ls "$work/cache/derived/${hash:0:2}/$hash.pack" >/dev/null 2>&1; then
    echo "$f: no pyramid pack"; status=1; continue
  fi
  type=$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$serve_port/blob/$hash")
  prefers=$(curl -s "http://127.0.0.1:$serve_port/iiif/3/$hash/info.json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("preferredFormats", ["jpg"])[0])')
  webp=$(curl -s "http://127.0.0.1:$serve_port/iiif/3/$hash/full/400,/0/default.webp" | head -c 12 | tail -c 4 || true)
  "$repo/scripts/browser-check.sh" "http://127.0.0.1:$serve_port" "$hash" "$work/shots-$f" >"$work/browser-$f.log" 2>&1 || tail -n 3 "$work/browser-$f.log" >&2
  tiles=$(grep -o 'data-tiles="[0-9]*/[0-9]*"' "$work/shots-$f/zoom.dom.html" 2>/dev/null | head -1 | cut -d'"' -f2 || true)
  native=$(grep -o 'data-tiles="[0-9]*/[0-9]*"' "$work/shots-$f/zoom-native.dom.html" 2>/dev/null | head -1 | cut -d'"' -f2 || true)
  ok=yes
  for t in "$tiles" "$native"; do [ -n "$t" ] && [ "${t%/*}" = "${t#*/}" ] || ok=no; done
  [ "$webp" = "WEBP" ] || ok=no
  echo "$f: /blob $type, IIIF prefers $prefers, webp rendition ${webp:-missing}, viewer tiles drawn/needed: fitted $tiles, 1:1 $native: $ok"
  [ "$ok" = yes ] || status=1
done
"$bin" info --cache "$work/cache" "$(sha256sum "$work/origin/media/D.jpg" | cut -c1-64)" | grep -E "format|colour" || true
exit $status
