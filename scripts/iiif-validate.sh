#!/usr/bin/env bash
# Runs the IIIF Image API validator (iiif-validator from PyPI, API 3.0, level 2)
# against `tweetcache serve`, with its validation image served through the cache:
# the image is drawn from the validator's own colour table (10x10 squares of 100 px),
# fetched into a fresh cache like any tweet photo (so it gets a pyramid pack), and
# validated under its SHA-256 id.
#
# Usage: scripts/iiif-validate.sh [TWEETCACHE_BIN]   (default: a release build)
# Exit status: the validator's (0 when every test passes).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python3 -c 'import iiif_validator, PIL, lxml' 2>/dev/null || pip install -q iiif-validator pillow lxml >&2
bin=${1:-}
if [ -z "$bin" ]; then
  (cd "$repo" && swift build -c release --static-swift-stdlib --product tweetcache --scratch-path .build-release >&2)
  bin=$repo/.build-release/release/tweetcache
fi
work=$(mktemp -d /tmp/tc-iiif-validate.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
mkdir -p "$work/origin/media"
python3 - "$work/origin/media/VALIDATION" <<'PY'
import sys
from PIL import Image
from iiif_validator.validator import ValidationInfo
colors = ValidationInfo().colorInfo
img = Image.new("RGB", (1000, 1000))
px = img.load()
for x in range(1000):
    for y in range(1000):
        px[x, y] = colors[x // 100][y // 100]
img.save(sys.argv[1], "PNG")
PY
cat > "$work/page.json" <<'JSON'
{"statuses":[{"id_str":"1","created_at":"Sun Nov 22 06:00:00 +0000 2026","full_text":"validation image",
 "extended_entities":{"media":[{"id_str":"2","type":"photo","media_url_https":"https://pbs.twimg.com/media/VALIDATION.png"}]},
 "user":{"id_str":"3","screen_name":"iiif","name":"IIIF"}}]}
JSON
origin_port=${ORIGIN_PORT:-8197}
serve_port=${SERVE_PORT:-8198}
(cd "$work/origin" && exec python3 -m http.server "$origin_port" --bind 127.0.0.1 >/dev/null 2>&1) &
pids+=($!)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$origin_port/media/VALIDATION" -o /dev/null && break; sleep 0.1; done
"$bin" fetch "$work/page.json" --cache "$work/cache" --quiet --mirror "pbs.twimg.com=http://127.0.0.1:$origin_port" >&2
hash=$(sha256sum "$work/origin/media/VALIDATION" | cut -c1-64)
ls "$work/cache/derived/${hash:0:2}/$hash.pack" >&2
"$bin" serve --cache "$work/cache" --port "$serve_port" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$serve_port/healthz" -o /dev/null && break; sleep 0.1; done
validator=$(python3 -c 'import os, iiif_validator; print(os.path.dirname(os.path.dirname(iiif_validator.__file__)))')
script=$(command -v iiif-validate.py) || { echo "iiif-validate.py not on PATH" >&2; exit 1; }
"$script" -s "127.0.0.1:$serve_port" -p iiif/3 -i "$hash" --version=3.0 --level 2
