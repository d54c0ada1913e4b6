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
