# Shared by the bench scripts (sourced, not run): the binary under test and the corpus.
# Expects $repo (the checkout) and $shared (../shared/bench) to be set.

# Prints the tweetcache binary to time: $TWEETCACHE_BIN when set, else a release build
# with the static Swift runtime (as scripts/demo.sh makes it) in $TC_SCRATCH, default $1.
tweetcache_binary() {
  if [ -n "${TWEETCACHE_BIN:-}" ]; then echo "$TWEETCACHE_BIN"; return; fi
  local scratch=${TC_SCRATCH:-$1}
  (cd "$repo" && swift build -c release --static-swift-stdlib --product tweetcache --scratch-path "$scratch" >&2)
  echo "$repo/$scratch/release/tweetcache"
}

# Prints the absolute path of the corpus $2, or of a fresh full ../shared/bench corpus
# made under $1 when $2 is empty (about 1.5 min).
shared_corpus() {
  local corpus=${2:-}
  if [ -z "$corpus" ]; then
    corpus=$1/corpus
    python3 "$shared/make-corpus.py" --out "$corpus" --scale full >&2
  fi
  (cd "$corpus" && pwd)
}

# Starts a one-machine RADOS Gateway under $1 (scripts/rgw.sh), exports its AWS_*
# variables into this shell, and creates each bucket named after it (curl signs).
rgw_start() {
  local dir=$1; shift
  "$repo/scripts/rgw.sh" start "$dir" > /dev/null
  set -a; . "$dir/env"; set +a
  local bucket
  for bucket in "$@"; do
    curl -sf -X PUT --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
      -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$AWS_ENDPOINT_URL/$bucket"
  done
}
