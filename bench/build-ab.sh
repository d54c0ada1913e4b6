#!/usr/bin/env bash
# Benchmark (issue 53, part 9): the clean test builds of two trees at the same time, each
# pinned to a core of its own, so that both see the same machine. This machine's speed
# moves by a quarter from hour to hour, more than most changes to the build; builds run
# one after another measure the hour. Run it twice with the cores swapped (SWAP=1), since
# the two cores need not be equally fast.
#
# Usage: bench/build-ab.sh OLD_TREE NEW_TREE
#   OLD_TREE, NEW_TREE  clones; each .build-tests is removed first. A tree with
#                       scripts/test-build.sh is built by it; an older one by the command
#                       scripts/test.sh had before it.
#   SWAP=1              the old tree on the second core, the new on the first.
# Prints each side's wall, CPU (user + sys) and peak RSS; logs in a new /tmp folder.
set -euo pipefail
old=$(cd "${1:?usage: bench/build-ab.sh OLD_TREE NEW_TREE}" && pwd)
new=$(cd "${2:?new tree}" && pwd)
cores=(0 1); [ "${SWAP:-0}" = 1 ] && cores=(1 0)
log=$(mktemp -d /tmp/tc-build-ab.XXXXXX)
export TWEETCACHE_TEST_BUILD=1
build() {
    local tree=$1 core=$2 side=$3
    cd "$tree"
    rm -rf .build-tests
    local command=(swift build --build-tests --scratch-path .build-tests --explicit-target-dependency-import-check error
                   -Xswiftc -gnone -Xcc -g0)
    [ -x scripts/test-build.sh ] && command=(scripts/test-build.sh)
    taskset -c "$core" /usr/bin/time -o "$log/$side.time" -f "%e %U %S %M" "${command[@]}" > "$log/$side.log" 2>&1
}
build "$old" "${cores[0]}" old &
build "$new" "${cores[1]}" new &
wait
echo "| side | core | wall | CPU (user + sys) | peak RSS |"
echo "|---|---|---|---|---|"
for side in old new; do
    core=${cores[0]}; [ "$side" = new ] && core=${cores[1]}
    read -r wall user sys rss < "$log/$side.time"
    printf '| %s | %s | %.1f s | %.1f s | %d MB |\n' "$side" "$core" "$wall" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" $(( rss / 1024 ))
done
echo "logs: $log"
