#!/usr/bin/env bash
# Builds the libFuzzer binary (Fuzz/: `fuzz TARGET`) with the fuzzer and AddressSanitizer
# (its leak checker included) and runs each target for a given time on its corpus.
#
# Usage: scripts/fuzz.sh [--seconds N] [--jobs N] [--debug] [--changed] [TARGET...]
#   TARGET   fuzz-results, fuzz-iiif, fuzz-decode, fuzz-pack, fuzz-server, fuzz-manifest,
#            fuzz-webp, fuzz-gif, fuzz-heif, fuzz-icc (default: all)
#   --seconds N  how long each target runs (default 10; CI runs a few seconds each)
#   --jobs N     targets run N at a time (default 1)
#   --debug      an unoptimised build (.build-fuzz-debug): slower fuzzing, a build in
#                half the time; for the short runs of scripts/test.sh
#   --changed    only the targets whose code changed since they last ran clean here or
#                in the commit (Fuzz/fuzzed.txt: a digest of each target's files), and
#                no sanitizer build at all when none did; for scripts/test.sh
#
# Each target writes its own seeds (made by the project's encoders, pack writer and
# sample documents) into .build-fuzz/corpus/TARGET, which grows between runs, and
# replays Fuzz/Regressions/TARGET, inputs that once broke something. A finding is
# saved under .build-fuzz/artifacts/TARGET/ and the script exits non-zero; add the
# input to Fuzz/Regressions/TARGET with the fix (FuzzRegressionTests replays them).
# Summary lines: executions, coverage (cov: edges, ft: features), corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
jobs=1
config=release
changed=
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --debug) config=debug; shift ;;
    --changed) changed=1; shift ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-results fuzz-iiif fuzz-decode fuzz-pack fuzz-server fuzz-manifest
                                     fuzz-webp fuzz-gif fuzz-heif fuzz-icc)

# The code each target's checks run through: the modules its checks import and the
# modules those depend on (Package.swift), as they are in the working tree, besides the
# harness all share. A target is fuzzed again when any of it changed; its saved
# findings and seeds are replayed by FuzzRegressionTests in the normal build on every
# test run either way.
# (Fuzz/Checks is one module: a target's check calls others', as the format targets call DecodeCheck.)
# Package.resolved is not in git, so a dependency's update is not seen: run scripts/fuzz.sh after one.
harness=(Package.swift scripts/fuzz.sh Fuzz/Checks Fuzz/Support Fuzz/Main Fuzz/Driver Fuzz/lsan.supp)
imaging=(Sources/Imaging Sources/MediaTypes Sources/CTweetCache Sources/CJPEG Sources/CPNG Sources/CWebP Sources/CGIF
         Sources/CHEIF Sources/CLCMS Sources/CCurl Tests/ImagingFixtures)
covered() {
  case "$1" in
    fuzz-results) echo Sources/TweetModel ;;
    fuzz-iiif) echo "${imaging[@]}" ;;
    fuzz-decode) echo "${imaging[@]}" ;;
    fuzz-webp|fuzz-gif|fuzz-heif|fuzz-icc) echo "${imaging[@]}" ;;
    fuzz-pack) echo "${imaging[@]}" ;;
    fuzz-manifest) echo Sources/Catalog Sources/CZstd Sources/TweetModel Sources/BlobStore Sources/MediaTypes Sources/CTweetCache ;;
    # The server's channel, parsers and routes reach every module TileServer depends on:
    # all of Sources but the pipeline, the sample, the terminal readers and the CLI.
    fuzz-server) ls -d Sources/*/ | grep -vE '^Sources/(Pipeline|Demo|Inspect|tweetcache)/$' | tr '\n' ' ' ;;
    *) echo "unknown fuzz target $1" >&2; return 1 ;;
  esac
}
# A digest of the target's files as they are in the working tree (committed or not), the
# same on every machine: names in byte order, whatever the locale.
digest() {
  local paths path existing=()
  paths=$(covered "$1") || return 1
  for path in "${harness[@]}" $paths; do [ -e "$path" ] && existing+=("$path"); done
  find "${existing[@]}" -type f ! -name '.*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum \
    | sha256sum | cut -c1-16
}
stamps=Fuzz/fuzzed.txt
# Each target's digest before the build: a file edited while the targets build and run
# is not taken as fuzzed.
declare -A digests
for target in "${targets[@]}"; do digests[$target]=$(digest "$target"); done
if [ -n "$changed" ]; then
  wanted=()
  for target in "${targets[@]}"; do
    grep -qx "$target ${digests[$target]}" "$stamps" 2>/dev/null || wanted+=("$target")
  done
  if [ ${#wanted[@]} -eq 0 ]; then
    echo "fuzz: no target's code changed since it last ran clean ($stamps); no sanitizer build." \
         "FuzzRegressionTests replayed every saved finding and seed."
    exit 0
  fi
  echo "fuzz: code changed under ${wanted[*]}" >&2
  targets=("${wanted[@]}")
fi
# Notes a target that ran clean, so --changed skips it until its files change.
record() {
  local target=$1
  (
    flock 9
    { grep -v "^$target " "$stamps" 2>/dev/null || true; echo "$target ${digests[$target]}"; } | LC_ALL=C sort > "$stamps.tmp"
    mv "$stamps.tmp" "$stamps"
  ) 9>"$work/.stamps.lock"
}

# The corpus and findings live in .build-fuzz whichever build runs them.
work=.build-fuzz
scratch=$work
[ "$config" = release ] || scratch=.build-fuzz-$config
export TWEETCACHE_FUZZ=1
# Leaks inside third-party codecs (see the file) are not findings.
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# Optimised (unless --debug), instrumented for coverage (Swift and the C shim alike), with ASan, and
# `@testable` for the server's internal parsers.
# One `-sanitize=fuzzer,address`: given as two flags (as `swift build --sanitize`
# does), swiftc 6.3 keeps only the last and the Swift code gets no coverage at all.
# Linked by lld: gold 2.40 stops with an internal error (format_file_lineno) on this binary.
# No index store and one compiler process per module, as in scripts/test-build.sh.
flags=(-c "$config" --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address
       -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -enable-testing -Xswiftc -parse-as-library
       -Xswiftc -use-ld=lld --disable-index-store -Xswiftc -driver-batch-count -Xswiftc 1)
swift build "${flags[@]}" --product fuzz >&2
fuzz=$(swift build "${flags[@]}" --show-bin-path)/fuzz

run() {
  local target=$1
  local corpus=$work/corpus/$target artifacts=$work/artifacts/$target/ regressions=Fuzz/Regressions/$target
  mkdir -p "$corpus" "$artifacts" "$regressions"
  TWEETCACHE_FUZZ_SEEDS=$corpus "$fuzz" "$target"
  local log=$work/$target.log
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a decode bomb is a finding.
  if "$fuzz" "$target" "$corpus" "$regressions" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1; then
    local stats
    stats=$(grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -n 1 || true)
    echo "$target: ok, $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs in ${seconds}s; ${stats#*	}"
    record "$target"
  else
    echo "$target: FAILED (log: $log, inputs: $artifacts)"
    grep -E 'ERROR|invariant broken|SUMMARY' "$log" | head -n 5
    return 1
  fi
}

failed=0
pids=()
for target in "${targets[@]}"; do
  run "$target" & pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
