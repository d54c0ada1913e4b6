#!/usr/bin/env bash
# Installs what TweetCache needs to build and test, if it is missing.
# Sourced by demo.sh and test.sh; extra packages may be named in $EXTRA_APT_PACKAGES.
# Packages only a later step needs (the tests' browser, web server and object store) may be
# named in $LATER_APT_PACKAGES instead: they install in the background while the build runs
# (a fresh machine's Chromium and Ceph take most of a minute to unpack), and the caller runs
# `bootstrap_wait` before the step that needs them.
set -euo pipefail

# Image codecs beyond JPEG and PNG (WebP, GIF, HEIF/AVIF), Little CMS for colour profiles,
# Zstandard for manifests (the library, and the `zstd` command a reader pipes them through),
# and OpenSSL's libcrypto for the digests (SHA-256 names, S3's checksums and ETags).
packages=(pkg-config libcurl4-openssl-dev libpng-dev libjpeg62-turbo-dev libsqlite3-dev
          libwebp-dev libgif-dev libheif-dev liblcms2-dev libzstd-dev zstd libssl-dev ${EXTRA_APT_PACKAGES:-})
later_packages=(${LATER_APT_PACKAGES:-})

bootstrap_missing() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
missing=($(bootstrap_missing "${packages[@]}"))
missing_later=($(bootstrap_missing "${later_packages[@]}"))
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
if ((${#missing[@]} + ${#missing_later[@]})); then
  "${sudo_cmd[@]}" apt-get update -qq
fi
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The later packages: one apt-get in the background (apt takes one lock, so never two at once).
# A function the caller defined before sourcing this, `bootstrap_later_tasks`, runs after it in
# the same job (test.sh's PyPI installs).
BOOTSTRAP_LATER_PID=""
BOOTSTRAP_LATER_LOG=""
if ((${#missing_later[@]})) || declare -F bootstrap_later_tasks > /dev/null; then
  BOOTSTRAP_LATER_LOG=$(mktemp "${TMPDIR:-/tmp}/tc-bootstrap-later.XXXXXX")
  (
    if ((${#missing_later[@]})); then
      echo "bootstrap: in the background, for the tests: apt-get install ${missing_later[*]}"
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing_later[@]}"
    fi
    if declare -F bootstrap_later_tasks > /dev/null; then bootstrap_later_tasks; fi
  ) > "$BOOTSTRAP_LATER_LOG" 2>&1 < /dev/null &
  BOOTSTRAP_LATER_PID=$!
fi

# Waits for the background installs; their output is shown, and a failure ends the caller.
bootstrap_wait() {
  [ -n "$BOOTSTRAP_LATER_PID" ] || return 0
  local status=0
  wait "$BOOTSTRAP_LATER_PID" || status=$?
  BOOTSTRAP_LATER_PID=""
  cat "$BOOTSTRAP_LATER_LOG" >&2
  rm -f "$BOOTSTRAP_LATER_LOG"
  if [ "$status" -ne 0 ]; then
    echo "bootstrap: the background installs failed (exit $status)" >&2
    exit "$status"
  fi
}

# For an EXIT trap: a caller that stops early (a failed build) still lets apt finish, so
# that the next run does not meet its lock.
bootstrap_cleanup() {
  if [ -n "$BOOTSTRAP_LATER_PID" ]; then wait "$BOOTSTRAP_LATER_PID" 2>/dev/null || true; fi
  [ -z "$BOOTSTRAP_LATER_LOG" ] || rm -f "$BOOTSTRAP_LATER_LOG"
}

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
  else
    echo "bootstrap: no Swift toolchain found (need Swift 6.1 or later on PATH)" >&2
    exit 1
  fi
fi
