import Foundation
import Testing
import TestSupport
@testable import Catalog

@Suite struct ManifestsAheadTests {
    /// Every file comes out in order, opened once; a file that does not open comes out
    /// unopened (its read tries again alone, and records why), and the files after it
    /// are opened ahead again.
    @Test func handsEachFileOverOpenedOnceAndOneThatDoesNotOpenUnopened() throws {
        let root = try ScratchDirectory.make("tc-ahead")
        for (i, name) in ["a.json", "c.json", "d.json"].enumerated() {
            try PostCatalogTests.write([PostCatalogTests.tweet("\(i)", at: Double(i))], at: Double(i + 1), name: name, in: root)
        }
        try Data("not a manifest".utf8).write(to: root.appendingPathComponent("manifests/b.json"))
        let catalog = try PostCatalog(cacheRoot: root)
        let files = try catalog.manifestFiles()
        let handed = Array(PostCatalog.ManifestsAhead(files: files, cacheRoot: root))
        #expect(handed.map(\.path) == ["manifests/a.json", "manifests/b.json", "manifests/c.json", "manifests/d.json"])
        #expect(handed.map { $0.opened?.tweetCount } == [1, nil, 1, 1])

        // A file already opened is handed over as it is.
        var given = files
        given[2].opened = handed[3].opened
        let again = Array(PostCatalog.ManifestsAhead(files: given, cacheRoot: root))
        #expect(again[2].opened?.header.generatedAt == Date(timeIntervalSince1970: 3))

        // A read of them: the three manifests in, the other recorded as a problem.
        let report = try catalog.refresh()
        #expect(report.added == ["manifests/a.json", "manifests/c.json", "manifests/d.json"])
        #expect(report.problems.count == 1 && report.problems[0].hasPrefix("manifests/b.json: not a TweetCache manifest"))
        #expect(try catalog.count() == 3)
    }
}
