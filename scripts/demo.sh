#!/usr/bin/env bash
# The main job on the built-in sample: no internet, no token.
# Installs what is missing, builds (release), runs `tweetcache demo` with any extra arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
BOOTSTRAP_RESOLVE_SCRATCH=.build
source scripts/bootstrap.sh
bootstrap_resolved
swift build -c release --static-swift-stdlib --product tweetcache >&2
exec .build/release/tweetcache demo "$@"
