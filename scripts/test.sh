#!/usr/bin/env bash
# Runs every test. Installs what is missing, builds, then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift build --build-tests
swift test "$@"
