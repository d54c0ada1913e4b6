import Foundation
import GRDB
import Testing
import TestSupport
import MediaTypes
@testable import Catalog

/// The near-duplicate index kept beside the catalog: mapped back it finds what the
/// index built in memory finds, hashes added since are found one by one, and a file
/// that is damaged, another catalog's, or holds forgotten photos is not believed.
@Suite struct PDQIndexFileTests {
    /// Hashes with planted copies, and the queries they were planted around.
    static func hashes(seed: UInt64, count: Int) -> (hashes: [PDQHash], queries: [PDQHash]) {
        var maker = HashMaker(state: seed)
        var hashes = (0..<count).map { _ in maker.hash() }
        let queries = (0..<30).map { _ in maker.hash() }
        for query in queries {
            for d in [0, 3, 15, 16, 30, 31, 32, 40] { hashes.append(maker.moved(query, bits: d)) }
        }
        return (hashes, queries)
    }

    func path() throws -> String { try ScratchDirectory.make("tc-pdq-file").appendingPathComponent("catalog.sqlite.pdq").path }

    @Test(arguments: [0, 16, 31, 40])
    func aMappedFileFindsWhatTheBuiltIndexFinds(threshold: Int) throws {
        let (hashes, queries) = Self.hashes(seed: 5, count: 2_000)
        let built = PDQIndex(hashes)
        let path = try path()
        try PDQIndexFile.write(built, ids: hashes.indices.map { Int64($0 * 2 + 1) }, generation: 9_999, to: path)
        let kept = try #require(PDQIndexFile.open(path))
        #expect(kept.generation == 9_999 && kept.ids == hashes.indices.map { Int64($0 * 2 + 1) } && kept.index.hashes == hashes)
        for query in queries {
            let found = kept.index.search([query], threshold: threshold)
            #expect(found == built.search([query], threshold: threshold) && !found.isEmpty)
        }
    }

    /// Hashes added after the table was filed are compared one by one, and found.
    @Test func hashesAddedSinceTheFileAreFoundOneByOne() throws {
        let (hashes, queries) = Self.hashes(seed: 6, count: 1_000)
        let old = Array(hashes.prefix(900))
        let path = try path()
        try PDQIndexFile.write(PDQIndex(old), ids: old.indices.map(Int64.init), generation: 900, to: path)
        let kept = try #require(PDQIndexFile.open(path))
        let extended = PDQIndex(hashes: hashes, table: try #require(kept.index.table))
        let full = PDQIndex(hashes)
        for query in queries {
            #expect(extended.search([query], threshold: 31) == full.search([query], threshold: 31))
        }
    }

    /// Wrong sizes and headers are not mapped; a table of garbage of the right size is
    /// read within its bounds (no crash), and every hash it names is at the distance it says.
    @Test func damagedFilesAreNotBelievedOrAreReadWithinBounds() throws {
        let (hashes, queries) = Self.hashes(seed: 7, count: 500)
        let path = try path()
        try PDQIndexFile.write(PDQIndex(hashes), ids: hashes.indices.map(Int64.init), generation: 1, to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let tableStart = PDQIndexFile.headerSize + hashes.count * 40
        try bytes.dropLast(4).write(to: URL(fileURLWithPath: path))
        #expect(PDQIndexFile.open(path) == nil)
        var wrongMagic = bytes
        wrongMagic[0] ^= 0xFF
        try wrongMagic.write(to: URL(fileURLWithPath: path))
        #expect(PDQIndexFile.open(path) == nil)
        var maker = HashMaker(state: 3)
        for i in tableStart..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: maker.next()) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let garbage = try #require(PDQIndexFile.open(path))
        for query in queries {
            for match in garbage.index.search([query], threshold: 31) {
                #expect(match.distance == query.distance(to: hashes[match.slot]) && match.distance <= 31)
            }
        }
        try FileManager.default.removeItem(atPath: path)
        #expect(PDQIndexFile.open(path) == nil)
    }
}

/// The kept index through the catalog.
extension PDQIndexFileTests {
    static func write(_ signatures: [(Int, PDQSignature)], at seconds: Double, name: String, in root: URL) throws {
        try PostCatalogTests.write(signatures.map { n, signature in
            DuplicateQueryTests.post("\(n)", at: Double(n), user: "u\(n)", network: "x", image: n, signature: signature)
        }, at: seconds, name: name, in: root)
    }

    @Test func theCatalogKeepsItsIndexUsesItWithNewHashesAndMakesItAgainWhenItIsNotItsOwn() throws {
        let root = try ScratchDirectory.make("tc-pdq-kept")
        var maker = HashMaker(state: 11)
        let photo = maker.hash()
        var signatures = (1...40).map { ($0, DuplicateQueryTests.signature(maker.hash(), &maker)) }
        let near = maker.moved(photo, bits: 5)
        signatures.append((41, DuplicateQueryTests.signature(near, &maker)))
        try Self.write(signatures, at: 1_000, name: "a.json", in: root)
        let file = root.appendingPathComponent("catalog.sqlite.pdq").path
        do {
            let (catalog, _) = try PostCatalog.open(cacheRoot: root)
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(try catalog.perceptualIndex().index.count == 41)
            let kept = try #require(PDQIndexFile.open(file))
            #expect(kept.ids.count == 41)
        }
        // A new run's photo: the kept file is used, with the new hash one by one (not filed).
        try Self.write([(42, DuplicateQueryTests.signature(maker.moved(photo, bits: 3), &maker))], at: 2_000, name: "b.json", in: root)
        let (catalog, _) = try PostCatalog.open(cacheRoot: root)
        let index = try catalog.perceptualIndex()
        #expect(index.index.count == 42 && index.index.filed == 41)
        #expect(try catalog.matches(of: photo, in: index).map(\.sha256) == [DuplicateQueryTests.sha(42), DuplicateQueryTests.sha(41)])
        // A file whose hash differs from the catalog's where the sample looks: made again.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[PDQIndexFile.headerSize + 41 * 8] ^= 0xFF  // slot 0's hash
        try bytes.write(to: URL(fileURLWithPath: file))
        #expect(try catalog.perceptualIndex().index.filed == 42)
        #expect(PDQIndexFile.open(file)?.ids.count == 42)
        // A hash changed where the sample does not look (photo 41's, now 1 bit from the
        // photo where the catalog says 5): the index finds it, the answer leaves it out.
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let kept = try #require(PDQIndexFile.open(file))
        let slot = try #require(kept.index.hashes.firstIndex(of: near))
        #expect(!(0...16).map { 41 * $0 / 16 }.contains(slot))
        let planted = maker.moved(photo, bits: 1)
        withUnsafeBytes(of: planted.words) { raw in
            for i in 0..<32 { bytes[PDQIndexFile.headerSize + 42 * 8 + slot * 32 + i] = raw[i] }
        }
        try bytes.write(to: URL(fileURLWithPath: file))
        let tampered = try catalog.perceptualIndex()
        #expect(tampered.index.hashes[slot] == planted)
        #expect(tampered.index.search([photo], threshold: 31).contains { $0.slot == slot && $0.distance == 1 })
        #expect(try catalog.matches(of: photo, in: tampered).map(\.sha256) == [DuplicateQueryTests.sha(42)])
    }

    @Test func forgettingPhotosOrMakingTheCatalogAnewRemovesTheKeptIndex() throws {
        let root = try ScratchDirectory.make("tc-pdq-forget")
        var maker = HashMaker(state: 12)
        try Self.write((1...5).map { ($0, DuplicateQueryTests.signature(maker.hash(), &maker)) }, at: 1_000, name: "a.json", in: root)
        let (catalog, _) = try PostCatalog.open(cacheRoot: root)
        _ = try catalog.perceptualIndex()
        let file = root.appendingPathComponent("catalog.sqlite.pdq").path
        #expect(FileManager.default.fileExists(atPath: file))
        // A writer killed mid-write left its temporary: it holds hashes too.
        let left = file + ".tmp-4242"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: left))
        try catalog.forget([], rewritten: [], unused: [])
        #expect(!FileManager.default.fileExists(atPath: file) && !FileManager.default.fileExists(atPath: left))
        // A catalog made anew numbers its photos again: the file goes with the old one.
        _ = try catalog.perceptualIndex()
        #expect(FileManager.default.fileExists(atPath: file))
        try catalog.rebuild()
        #expect(!FileManager.default.fileExists(atPath: file))
        // While another process holds the catalog's lock (a `forget`, an ingest), the
        // index is answered but not written: the lock is not waited for.
        let lock = open(root.appendingPathComponent("catalog.sqlite.lock").path, O_RDWR | O_CREAT, 0o644)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        #expect(try catalog.perceptualIndex().index.count == 5)
        #expect(!FileManager.default.fileExists(atPath: file))
        close(lock)
        _ = try catalog.perceptualIndex()
        #expect(FileManager.default.fileExists(atPath: file))
    }
}
