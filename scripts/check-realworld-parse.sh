#!/bin/sh
# Usage: scripts/check-realworld-parse.sh FILE...   (X, Mastodon or Bluesky responses, e.g. ../shared/realworld/mastodon/*.json)
# Builds a throwaway binary from Sources/TweetModel plus check-realworld-parse.swift
# (no SwiftPM build needed) and runs it on the given saved API responses.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$here/check-realworld-parse.swift" "$out/main.swift"
swiftc -O -package-name tweetcache -module-name CheckParse $(find "$here"/../Sources/TweetModel -name "*.swift") "$out/main.swift" -o "$out/check"
"$out/check" "$@"
