// The test bundle's entry point (SwiftPM takes `Tests/XCTMain.swift` as it is).
//
// Every test in this package is a Swift Testing test. Without this file SwiftPM on
// Linux writes its own runner, whose XCTest half lists test cases read from the index
// store; every test build would then have to index every file it compiles, and
// `scripts/test-build.sh` builds with `--disable-index-store` (docs/benchmarks.md, "the
// test build without the index store").
//
// With an entry point of its own, a plain `swift test` starts the bundle once, with no
// arguments, as it would start XCTest: that runs the Swift Testing tests too. What
// only XCTest could answer (`swift test --filter` lists XCTest's cases first) fails with
// the way to do it instead, never a pass of nothing.
import Foundation
import Testing

@main
struct TestEntryPoint {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var library: String?
        if let named = arguments.firstIndex(of: "--testing-library"), named + 1 < arguments.count {
            library = arguments[named + 1].lowercased()
        }
        if library == "swift-testing" || (library == nil && arguments.isEmpty) {
            await Testing.__swiftPMEntryPoint() as Never
        }
        FileHandle.standardError.write(Data("""
            This package's tests are Swift Testing tests; there is no XCTest case to list or run.
            Run some with `scripts/test.sh --filter NAME` (or `swift test --disable-xctest \
            --enable-swift-testing --filter NAME`).

            """.utf8))
        exit(EXIT_FAILURE)
    }
}
