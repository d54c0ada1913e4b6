#!/bin/sh
# Usage: scripts/check-realworld-images.sh PATH
#   PATH: a folder holding pngsuite/ and jpeg/ (e.g. /work/shared/realworld)
# Checks the codecs against third-party reference files that are not
# part of this repository: every PngSuite x* file must be refused and every
# other one decode; the libjpeg-turbo / jpeg-decoder images must decode and
# match their reference PNGs, except the variants and damaged files listed in
# Tests/ImagingTests/RealWorldTests.swift; WebP and GIF first frames must match
# their reference renderings (webp-gif/), and JPEGs with good and broken ICC
# profiles (icc/) must decode. Prints the counts; exits non-zero
# on any mismatch.
set -eu
root=${1:?usage: $0 PATH (a folder with pngsuite/ and jpeg/)}
if [ ! -d "$root/pngsuite" ] || [ ! -d "$root/jpeg" ]; then
    echo "error: $root must contain pngsuite/ and jpeg/" >&2
    exit 2
fi
root=$(cd "$root" && pwd)
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# The test build scripts/test.sh makes (scripts/test-build.sh), so it is reused.
{ scripts/test-build.sh && TWEETCACHE_REALWORLD="$root" .build-tests/debug/TweetCachePackageTests.xctest \
    --testing-library swift-testing --filter RealWorldTests; } >"$log" 2>&1 || status=$?
grep -E "RealWorld (PngSuite|JPEG|WebP|ICC)|✘|error:" "$log" || cat "$log"
exit "$status"
