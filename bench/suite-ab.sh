#!/usr/bin/env bash
# Benchmark (issue 53, part 9): the whole test suite of two built trees, alternating,
# as scripts/test.sh runs it (the test bundle, a new TWEETCACHE_DEMO_ASSETS folder each
# run, twice the cores wide). Per run: wall, the CPU of the test process and of the
# processes it waited on (`tweetcache`, Chromium), peak RSS, and the whole machine's busy
# CPU from /proc/stat (Ceph's daemons included).
#
# Usage: bench/suite-ab.sh OLD_TREE NEW_TREE
#   OLD_TREE, NEW_TREE  clones whose .build-tests hold a test build (scripts/test.sh, or
#                       scripts/test-build.sh)
#   ROUNDS=2            runs each side once per round.
# Needs: /usr/bin/time, and what scripts/test.sh installs (Chromium, nginx, Ceph).
set -euo pipefail
old=$(cd "${1:?usage: bench/suite-ab.sh OLD_TREE NEW_TREE}" && pwd)
new=$(cd "${2:?new tree}" && pwd)
export AWS_EC2_METADATA_DISABLED=true TWEETCACHE_TEST_BUILD=1
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(( $(nproc) * 2 ))
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
log=$(mktemp -d /tmp/tc-suite-ab.XXXXXX)
echo "| round | tree | wall | CPU (user + sys) | machine busy | peak RSS | tests |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "${ROUNDS:-2}"); do
    for side in old new; do
        tree=$old; [ "$side" = new ] && tree=$new
        TWEETCACHE_DEMO_ASSETS=$(mktemp -d /tmp/tc-demo-assets.XXXXXX)
        export TWEETCACHE_DEMO_ASSETS
        before=$(busy)
        (cd "$tree" && /usr/bin/time -o "$log/time" -f "%e %U %S %M" \
            .build-tests/debug/TweetCachePackageTests.xctest --testing-library swift-testing > "$log/$side-$round.log" 2>&1) || true
        after=$(busy)
        read -r wall user sys rss < <(tail -1 "$log/time")
        result=$(grep -o "Test run with .*" "$log/$side-$round.log" | tail -1 | sed 's/Test run with //')
        printf '| %s | %s | %.1f s | %.1f s | %d s | %d MB | %s |\n' "$round" "$side" "$wall" \
            "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" $(( (after - before) / $(getconf CLK_TCK) )) $(( rss / 1024 )) "$result"
        rm -rf "$TWEETCACHE_DEMO_ASSETS"
    done
done
echo "logs: $log"
