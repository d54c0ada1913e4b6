import Foundation
import Testing
import TestSupport
@testable import Pipeline

/// A run's stamp names one run, whichever way an earlier one with it was written.
@Suite struct ManifestNamesTests {
    @Test func aStampTakenUnderEitherNameIsNotTakenAgain() throws {
        let dir = try ScratchDirectory.make("tc-manifest-names")
        let at = Date(timeIntervalSince1970: 1_764_000_000)
        var names = ManifestNames(directory: dir, generatedAt: at, tag: nil)
        let first = names.next()
        #expect(first.lastPathComponent == "20251124T160000Z.json.zst")
        // An older run's plain manifest with that stamp (synced from another machine).
        try Data("{}".utf8).write(to: dir.appendingPathComponent("20251124T160000Z.json"))
        var again = ManifestNames(directory: dir, generatedAt: at, tag: nil)
        #expect(again.next().lastPathComponent == "20251124T160000Z-2.json.zst")
        try Data("{}".utf8).write(to: dir.appendingPathComponent("20251124T160000Z-2.json.zst"))
        #expect(again.next().lastPathComponent == "20251124T160000Z-3.json.zst")
    }
}
