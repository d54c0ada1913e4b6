import Foundation
import Testing
import TestSupport
@testable import Catalog

/// A killed run's unfinished manifest files go as soon as no run holds them, however
/// recent; a live run's stay.
@Suite struct ManifestSweepTests {
    @Test func abandonedPartialsGoAtOnceAndALiveRunsStay() throws {
        let dir = try ScratchDirectory.make("tc-manifest-sweep")
        let live = try ManifestStreamWriter(directory: dir, generatedAt: Date(), tool: "test", cacheRoot: "/c")
        // What a run killed a moment ago left: its manifest and a spill, no lock on them.
        for name in [".partial-dead.json", ".partial-dead.included", ".partial-orphan.failures", ".stdin-recent"] {
            try Data("x".utf8).write(to: dir.appendingPathComponent(name))
        }
        ManifestStreamWriter.sweep(dir)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(left.contains(live.temporaryURL.lastPathComponent), "the live run's manifest stays")
        #expect(!left.contains(".partial-dead.json") && !left.contains(".partial-dead.included"))
        #expect(!left.contains(".partial-orphan.failures"), "a spill whose manifest is gone")
        #expect(left.contains(".stdin-recent"), "a copy of standard input keeps the day's grace")
        withExtendedLifetime(live) {}
    }
}
