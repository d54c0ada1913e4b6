#!/usr/bin/env bash
# Runs every test. Installs what is missing, builds, then runs the test bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
# Headless Chromium for the viewer's real-browser test; openssl makes the HTTPS tests' certificates
# and nginx serves them (TLS, HTTP/2: Tests/TLSSupport); Ceph's RADOS Gateway is the real S3 server
# the object-storage tests start (scripts/rgw.sh). Only the tests need the browser, nginx and Ceph:
# they install in the background while the build runs (bootstrap_wait below).
export EXTRA_APT_PACKAGES="${EXTRA_APT_PACKAGES:-} openssl time"
export LATER_APT_PACKAGES="${LATER_APT_PACKAGES:-} chromium nginx ceph ceph-mon ceph-osd radosgw"
# The IIIF Presentation tests load every document with a kept validator (iiif-prezi3, PyPI).
# Manifests the tests write are checked against docs/manifest.schema.json by a kept
# JSON Schema validator (jsonschema, PyPI; scripts/check-manifest-schema.py).
bootstrap_later_tasks() {
    python3 -c 'import iiif_prezi3' 2>/dev/null || python3 -m pip install -q iiif-prezi3
    python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
}
source scripts/bootstrap.sh
trap bootstrap_cleanup EXIT
# Nothing in the suite may ask a cloud's instance-metadata address for credentials.
export AWS_EC2_METADATA_DISABLED=true
# Every import is one its target declares (SwiftPM's own check lets a module reached through
# another target pass); then the test build, whose flags scripts/test-build.sh explains.
python3 scripts/check-imports.py
export TWEETCACHE_TEST_BUILD=1
scripts/test-build.sh
# The suite's scratch folders (caches, buckets' disks, browsers' profiles: up to about 450 MB
# at once) go where scripts/suite-tmpdir.sh says: TWEETCACHE_TEST_TMPDIR when set (e.g. /tmp),
# else the caller's TMPDIR when set, else a folder in /dev/shm when there is room (removed at exit).
suite_tmp=""
trap 'rm -rf ${suite_tmp:+"$suite_tmp"} || true; bootstrap_cleanup' EXIT
scratch=$(scripts/suite-tmpdir.sh)
case "$scratch" in
    "made "*) suite_tmp=${scratch#made }; export TMPDIR="$suite_tmp" ;;
    "given "*) export TMPDIR="${scratch#given }" ;;
esac
# Every run of the built binary notes its arguments (Tests/Support/BuiltProduct.swift);
# after the whole suite, OptionCoverageTests checks that every option README's usage
# lines name was run by some test.
# The suite's few dozen `tweetcache demo` runs render the sample's images once, here.
TWEETCACHE_DEMO_ASSETS=$(mktemp -d "${TMPDIR:-/tmp}/tc-demo-assets.XXXXXX")
export TWEETCACHE_DEMO_ASSETS
trap 'rm -rf "$TWEETCACHE_DEMO_ASSETS" ${suite_tmp:+"$suite_tmp"} || true; bootstrap_cleanup' EXIT
bootstrap_wait
option_log="$PWD/.build-tests/option-runs.jsonl"
rm -f "$option_log"
# Swift Testing starts every test case at once unless told a width. On two cores the
# cooperative pool then queues hundreds of tests' work ahead of a test whose answer has
# come in: a 1 s fetch waited 84 s for a thread, and tests that put a time limit on a
# server hit it. Twice the cores keeps both busy while a test's work queues behind a few
# others', not hundreds. The suite took 219-272 s at 4, 250 s at 8 and 269-292 s unbounded.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$(( $(nproc) * 2 ))}"
# The test bundle itself, as `swift test` runs it (Tests/XCTMain.swift): `swift test`
# would first load the package graph again (8 s on a fresh clone). Arguments (`--filter`,
# `--skip`) go to Swift Testing as they would through `swift test`; a filter that matches
# nothing fails (exit 69).
TWEETCACHE_OPTION_LOG="$option_log" \
    .build-tests/debug/TweetCachePackageTests.xctest --testing-library swift-testing "$@"
if [ $# -eq 0 ]; then
    # The run must also say that its tests ran.
    coverage=$(TWEETCACHE_OPTION_LOG_CHECK="$option_log" .build-tests/debug/TweetCachePackageTests.xctest \
        --testing-library swift-testing --filter OptionCoverageTests 2>&1) || { echo "$coverage"; exit 1; }
    grep "Test run with" <<< "$coverage"
    grep -q "Test run with [1-9][0-9]* tests* in 1 suite passed" <<< "$coverage" \
        || { echo "$coverage"; echo "test.sh: OptionCoverageTests did not run" >&2; exit 1; }
fi
# Then each fuzz target whose code changed since it last ran clean (Fuzz/fuzzed.txt),
# briefly, on its corpus (scripts/fuzz.sh; a sanitizer build of its own, made only
# then); unless only some tests were asked for (arguments such as --filter). Every
# target's saved findings and seeds were replayed above (FuzzRegressionTests).
fuzz_seconds=${TWEETCACHE_FUZZ_SECONDS:-3}
if [ $# -eq 0 ] && [ "$fuzz_seconds" -gt 0 ]; then
    scripts/fuzz.sh --changed --debug --seconds "$fuzz_seconds" --jobs 2
fi
