#!/bin/sh
# Builds the tests into .build-tests: scripts/test.sh and scripts/check-realworld-images.sh
# build with the same flags, so each reuses the other's build. Arguments go to `swift build`.
#
# A debug build (TWEETCACHE_TEST_BUILD, read by Package.swift): the dependencies (SwiftNIO,
# GRDB) and most of this package compile unoptimised, in about half their optimised time;
# the imaging code, its fixtures, the demo's painters and the C shim are optimised, as the
# suite's pixel loops are 20-50x slower without. The variable is
# set only here and by the scripts that run this build, so packages that depend on these
# libraries never see the unsafe flags. A build folder of its own: the demo and benchmarks
# build release.
#
# What a test run does not need is left out (docs/benchmarks.md, "a newcomer's test run"):
# - debug information (`-debug-info-format none`: `-gnone` for Swift, `-g0` for C): failures
#   report their own file and line;
# - the index store: the bundle's entry point is Tests/XCTMain.swift, so SwiftPM does not
#   read the index for XCTest cases (there are none);
# - one compiler process per module (`-driver-batch-count 1`) rather than one per 25 files,
#   each of which parses the whole module again; the two cores stay busy with other modules;
# - gold: lld links the test bundle in half gold's time (`-use-ld=lld`).
# A target that imports a module it does not depend on is a build error here; SwiftPM's
# check lets a module reached through another target pass, so scripts/check-imports.py
# (run by scripts/test.sh) reads every import first.
set -eu
cd "$(dirname "$0")/.."
TWEETCACHE_TEST_BUILD=1 exec swift build --build-tests --scratch-path .build-tests \
    --explicit-target-dependency-import-check error --disable-index-store \
    -debug-info-format none -Xswiftc -driver-batch-count -Xswiftc 1 \
    -Xswiftc -use-ld=lld "$@"
