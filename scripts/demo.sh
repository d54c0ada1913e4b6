#!/usr/bin/env bash
# The main job on the built-in sample: no internet, no token.
# Installs what is missing, builds (release), runs `tweetcache demo` with any extra arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift build -c release --static-swift-stdlib --product tweetcache >&2
exec .build/release/tweetcache demo "$@"
