#!/usr/bin/env bash
# Runs every test. Installs what is missing, builds, then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Headless Chromium for the viewer's real-browser test.
export EXTRA_APT_PACKAGES="${EXTRA_APT_PACKAGES:-} chromium"
source scripts/bootstrap.sh
# A target that imports a module it does not depend on is a build error here.
swift build --build-tests --explicit-target-dependency-import-check error
swift test "$@"
