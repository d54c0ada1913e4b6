#!/usr/bin/env bash
# Installs what TweetCache needs to build and test, if it is missing.
# Sourced by demo.sh and test.sh; extra packages may be named in $EXTRA_APT_PACKAGES.
set -euo pipefail

# Image codecs beyond JPEG and PNG (WebP, GIF, HEIF/AVIF), Little CMS for colour profiles,
# and Zstandard for manifests (the library, and the `zstd` command a reader pipes them through).
packages=(pkg-config libcurl4-openssl-dev libpng-dev libjpeg62-turbo-dev libsqlite3-dev
          libwebp-dev libgif-dev libheif-dev liblcms2-dev libzstd-dev zstd ${EXTRA_APT_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
  else
    echo "bootstrap: no Swift toolchain found (need Swift 6.1 or later on PATH)" >&2
    exit 1
  fi
fi
