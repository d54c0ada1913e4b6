#!/usr/bin/env bash
# Builds the libFuzzer binary (Fuzz/: `fuzz TARGET`) with the fuzzer and AddressSanitizer
# (its leak checker included) and runs each target for a given time on its corpus.
#
# Usage: scripts/fuzz.sh [--seconds N] [--jobs N] [--debug] [TARGET...]
#   TARGET   fuzz-results, fuzz-iiif, fuzz-decode, fuzz-pack, fuzz-server, fuzz-manifest,
#            fuzz-webp, fuzz-gif, fuzz-heif, fuzz-icc (default: all)
#   --seconds N  how long each target runs (default 10; CI runs a few seconds each)
#   --jobs N     targets run N at a time (default 1)
#   --debug      an unoptimised build (.build-fuzz-debug): slower fuzzing, a build in
#                half the time; for the short runs of scripts/test.sh
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
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --debug) config=debug; shift ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-results fuzz-iiif fuzz-decode fuzz-pack fuzz-server fuzz-manifest
                                     fuzz-webp fuzz-gif fuzz-heif fuzz-icc)

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
flags=(-c "$config" --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address
       -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -enable-testing -Xswiftc -parse-as-library
       -Xswiftc -use-ld=lld)
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
