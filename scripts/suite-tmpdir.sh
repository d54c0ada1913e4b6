#!/usr/bin/env bash
# Says where the test suite's scratch folders go (scripts/test.sh reads it), as one line:
#   given PATH   TWEETCACHE_TEST_TMPDIR names it (the caller keeps it);
#   made PATH    a new folder in /dev/shm (the caller removes it at exit);
#   nothing      the default: TMPDIR as the caller has it.
# In that order: TWEETCACHE_TEST_TMPDIR when set, else the caller's TMPDIR when set, else
# /dev/shm when it is a tmpfs with 2 GiB free and 4 GiB of memory are available. The suite
# is CPU-bound on two cores, and the disk's journal and writeback took 11-15 s of its CPU
# (docs/benchmarks.md, twenty-first session). What the tests check does not change: crash
# tests kill processes, none cuts the power.
# Arguments, for SuiteScratchScriptTests only: the folder to use for /dev/shm, and the file
# to read for /proc/meminfo.
set -u
shm=${1:-/dev/shm}
meminfo=${2:-/proc/meminfo}
if [ -n "${TWEETCACHE_TEST_TMPDIR:-}" ]; then
    echo "given $TWEETCACHE_TEST_TMPDIR"
elif [ -z "${TMPDIR:-}" ] && [ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] \
    && [ "$(df -P -k "$shm" 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge $((2 << 20)) ] 2>/dev/null \
    && [ "$(awk '/^MemAvailable:/ { print $2 }' "$meminfo" 2>/dev/null)" -ge $((4 << 20)) ] 2>/dev/null; then
    made=$(mktemp -d "$shm/tc-tests.XXXXXX" 2>/dev/null) && echo "made $made"
fi
exit 0
