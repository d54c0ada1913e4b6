#!/usr/bin/env bash
# Usage: scripts/realworld-figures.sh DIR [REFDIR]
#   DIR     a folder of images, families as its top-level folders (e.g. ../shared/realworld)
#   REFDIR  optional: reference renderings named NAME.png (else NAME.reference.png beside
#           the file, else Pillow + Little CMS)
# Prints, per family: decoded by TweetCache and vipsthumbnail, by one only, by neither;
# CIEDE2000 of TweetCache's 256 px thumbnails against the reference; peak RSS of both
# tools; thumbnail speed against vipsthumbnail on the files both decode.
# Needs: libvips-tools, python3 with numpy and Pillow, GNU time.
set -euo pipefail
root=${1:?usage: $0 DIR [REFDIR]}
repo=$(cd "$(dirname "$0")/.." && pwd)
(cd "$repo" && swift build -c release --product tweetcache --scratch-path .build >&2)
exec python3 "$repo/scripts/realworld-figures.py" "$repo/.build/release/tweetcache" "$root" "${2:-}"
