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

    /// A run's manifest has its name only once locked: a sweep at any moment of another
    /// run's start leaves it, and nothing of its making is left beside it.
    @Test func aRunsManifestIsLockedBeforeItHasItsName() throws {
        let dir = try ScratchDirectory.make("tc-manifest-locked")
        let url = dir.appendingPathComponent(".partial-starting.json.zst")
        let file = try ManifestStreamWriter.createLocked(url)
        #expect(!ManifestStreamWriter.abandoned(url))
        ManifestStreamWriter.sweep(dir)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [url.lastPathComponent])
        try file.close()
        #expect(ManifestStreamWriter.abandoned(url))
    }

    /// A file a process killed between making its manifest and naming it left goes
    /// once a day old, like a copy of standard input.
    @Test func aManifestKilledBeforeItsNameGoesOnceADayOld() throws {
        let dir = try ScratchDirectory.make("tc-manifest-creating")
        let name = ManifestStreamWriter.creatingPrefix + "1"
        try Data().write(to: dir.appendingPathComponent(name))
        ManifestStreamWriter.sweep(dir, now: Date().addingTimeInterval(3_600))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [name])
        ManifestStreamWriter.sweep(dir, now: Date().addingTimeInterval(2 * 86_400))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
