import BlobStore
import Foundation
import Testing
import TestSupport
@testable import Catalog
#if canImport(Glibc)
import Glibc
#endif

/// A manifest that repeats an earlier one names its frames instead of holding them:
/// small, read back the same, checked against the holder, copied whole on demand,
/// and rewritten by `forget` without breaking what others name in it.
@Suite struct ManifestReferencesTests {
    /// Posts as a run writes them: pretty JSON objects, different enough to compress as JSON does.
    static func posts(_ count: Int, from first: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        for n in first..<(first + count) {
            out += Array("""
                    {
                      "id" : "\(1_700_000_000_000 + n * 7919)",
                      "sha256" : "\(BlobHash(hashing: Data("\(n)".utf8)).hex)",
                      "text" : "post number \(n) about the harbour in winter"
                    },

                """.utf8)
        }
        return out
    }

    /// Writes `bytes` as manifest `name` in `folder`, naming the frames of the
    /// folder's manifests when `naming`.
    @discardableResult
    static func write(_ bytes: [UInt8], as name: String, in folder: URL, naming: Bool = true) throws -> URL {
        let url = folder.appendingPathComponent(name)
        var out: [UInt8] = []
        let writer = SeekableZstdWriter(base: naming ? FrameIndex(directory: folder) : nil) { out += $0 }
        try writer.write(bytes)
        try writer.finish()
        try Data(out).write(to: url)
        return url
    }

    static func open(_ url: URL) throws -> (fd: Int32, file: SeekableZstdFile) {
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        return (fd, try SeekableZstdFile(descriptor: fd, directory: url.deletingLastPathComponent().path))
    }

    static func read(_ url: URL) throws -> [UInt8] {
        let (fd, file) = try open(url)
        defer { close(fd) }
        return [UInt8](try file.read(0..<file.table.decompressedSize))
    }

    static func size(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
    }

    @Test func aRepeatedRunNamesTheEarlierFramesAndReadsTheSame() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let body = Self.posts(6_000)
        let first = try Self.write(Array("{ \"generated_at\" : \"one\",\n".utf8) + body + Array("\"summary\" : 1 }".utf8),
                                   as: "20261201T000000Z.json.zst", in: folder)
        // A header of another length, the same posts, another tail.
        let second = Array("{ \"generated_at\" : \"the second run\",\n".utf8) + body + Array("\"summary\" : 22 }".utf8)
        let url = try Self.write(second, as: "20261202T000000Z.json.zst", in: folder)
        #expect(try Self.read(url) == second)
        let (fd, file) = try Self.open(url)
        defer { close(fd) }
        #expect(try file.holderNames() == ["20261201T000000Z.json.zst"])
        // Everything but a frame at each end is named: under 1% of the first file
        // beyond those two frames.
        let sizes = (try Self.size(url), try Self.size(first))
        #expect(sizes.0 < sizes.1 / 5)
        // Any range reads the same, across references and frames.
        for start in stride(from: 0, to: second.count - 5_000, by: 77_777) {
            #expect([UInt8](try file.read(start..<(start + 5_000))) == Array(second[start..<(start + 5_000)]))
        }
        // Plain zstd refuses it, rather than print a manifest with posts missing.
        #expect(throws: SeekableZstd.Problem.self) { try SeekableZstd.decompress(try Data(contentsOf: url)) }
    }

    @Test func aRunRepeatedManyTimesStillNamesOnlyWhereTheBytesAre() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let body = Self.posts(3_000)
        var urls: [URL] = []
        for day in 1...4 {
            let bytes = Array("{ \"day\" : \(day),\n".utf8) + body + Array("}".utf8)
            urls.append(try Self.write(bytes, as: "2026120\(day)T000000Z.json.zst", in: folder))
            #expect(try Self.read(urls[urls.count - 1]) == bytes)
        }
        // The fourth names the first (where the bytes are), never the third's names.
        let (fd, file) = try Self.open(urls[3])
        defer { close(fd) }
        #expect(try file.holderNames() == ["20261201T000000Z.json.zst"])
    }

    /// A collection followed daily: each run repeats the ones before and adds a day of
    /// posts, so the last names every earlier run. More holders than a reader keeps
    /// open still read, in any order.
    @Test func aRunNamingMoreRunsThanAReaderKeepsOpenStillReads() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let days = SeekableZstdFile.holdersKept + 6
        var bytes: [UInt8] = []
        var url = folder
        for day in 1...days {
            bytes += Self.posts(400, from: day * 1_000)
            url = try Self.write(Array("{ \"day\" : \(day),\n".utf8) + bytes, as: String(format: "202612%02dT000000Z.json.zst", day), in: folder)
        }
        let whole = Array("{ \"day\" : \(days),\n".utf8) + bytes
        let (fd, file) = try Self.open(url)
        defer { close(fd) }
        #expect(try file.holderNames().count > SeekableZstdFile.holdersKept)
        #expect([UInt8](try file.read(0..<whole.count)) == whole)
        for start in stride(from: whole.count - 3_000, to: 0, by: -40_009) {
            #expect([UInt8](try file.read(start..<(start + 3_000))) == Array(whole[start..<(start + 3_000)]))
        }
    }

    @Test func aHolderChangedOrMissingIsAnErrorNeverOtherBytes() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let body = Self.posts(4_000)
        let first = try Self.write(Array("{\n".utf8) + body, as: "20261201T000000Z.json.zst", in: folder)
        let url = try Self.write(Array("{ \"again\" : 1,\n".utf8) + body, as: "20261202T000000Z.json.zst", in: folder)
        // Replaced by other posts of the same length: its digests are its own, not the named ones.
        var other = Self.posts(4_000, from: 1)
        other = Array(other.prefix(body.count)) + [UInt8](repeating: 32, count: max(0, body.count - other.count))
        try Self.write(Array("{\n".utf8) + other, as: "20261201T000000Z.json.zst", in: folder, naming: false)
        #expect(throws: SeekableZstd.Problem.self) { try Self.read(url) }
        // Its digests copied over from the original, the frames not: each frame is checked.
        try FileManager.default.removeItem(at: first)
        #expect(throws: SeekableZstd.Problem.self) { try Self.read(url) }
        // Without its folder a reference is never followed.
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let alone = try SeekableZstdFile(descriptor: fd)
        #expect(throws: SeekableZstd.Problem.self) { try alone.read(0..<alone.table.decompressedSize) }
    }

    /// Two runs of the same second write the same first frame: still the second file
    /// starts with a frame of its own, so every reader takes it for zstd.
    @Test func aFileNeverStartsWithAReference() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let bytes = Self.posts(3_000)
        try Self.write(bytes, as: "20261201T000000Z.json.zst", in: folder)
        let url = try Self.write(bytes, as: "20261201T000000Z-2.json.zst", in: folder)
        #expect(SeekableZstd.isCompressed(try Data(contentsOf: url).prefix(4)))
        #expect(try Self.read(url) == bytes)
        let (fd, file) = try Self.open(url)
        defer { close(fd) }
        #expect(try file.reference(0) == nil)
        #expect(try file.holderNames() == ["20261201T000000Z.json.zst"])
    }

    @Test func aFrameWhoseDigestLiesIsNeverNamed() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let body = Self.posts(3_000)
        let first = try Self.write(Array("{\n".utf8) + body, as: "20261201T000000Z.json.zst", in: folder)
        // Every digest of the first file made a lie: the writer compares bytes, not digests.
        var bytes = [UInt8](try Data(contentsOf: first))
        let (fd, file) = try Self.open(first)
        let digestsAt = file.table.compressedSize + 12
        close(fd)
        for i in digestsAt..<(digestsAt + 32 * file.table.frameCount) where i % 32 == 0 { bytes[i] ^= 1 }
        try Data(bytes).write(to: first)
        let url = try Self.write(Array("{ \"again\" : 1,\n".utf8) + body, as: "20261202T000000Z.json.zst", in: folder)
        let (fd2, second) = try Self.open(url)
        defer { close(fd2) }
        #expect(try second.holderNames().isEmpty)
        #expect(try Self.read(url) == Array("{ \"again\" : 1,\n".utf8) + body)
    }

    @Test func aReferenceToAPathIsRefused() throws {
        for name in ["../20261201T000000Z.json.zst", "/etc/passwd", "x/20261201T000000Z.json.zst", "20261201T000000Z.json"] {
            let entry = SeekableZstd.Reference(holder: name, offset: 0, length: 10).encoded()
            #expect(throws: SeekableZstd.Problem.self) { try SeekableZstd.Reference.parse(entry: entry) }
        }
        let good = SeekableZstd.Reference(holder: "20261201T000000Z.json.zst", offset: 65_536, length: 100)
        #expect(try SeekableZstd.Reference.parse(entry: good.encoded()) == good)
        #expect(throws: SeekableZstd.Problem.self) { try SeekableZstd.Reference.parse(entry: good.encoded() + [0]) }
    }

    @Test func copiedWholeItReadsAnywhereAndZstdReadsIt() async throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let body = Self.posts(4_000)
        try Self.write(Array("{\n".utf8) + body, as: "20261201T000000Z.json.zst", in: folder)
        let second = Array("{ \"again\" : 1,\n".utf8) + body
        let url = try Self.write(second, as: "20261202T000000Z.json.zst", in: folder)
        let (fd, file) = try Self.open(url)
        defer { close(fd) }
        var whole: [UInt8] = []
        try file.rewrite(to: { whole += $0 }, materializing: SeekableZstdFile.everything(of: try file.holderNames()))
        #expect(try SeekableZstd.decompress(Data(whole)) == Data(second))
        let copy = try SeekableZstdTests.file(whole)
        let (status, output) = try await SeekableZstdTests.zstd(["-dcq", copy.path])
        #expect(status == 0)
        #expect(output == Data(second))
    }

    @Test func blankingAHolderRewritesWhatNamesItFirstAndEveryFileStillReads() throws {
        let folder = try ScratchDirectory.make("tc-refs")
        let body = Self.posts(5_000)
        let firstBytes = Array("{\n".utf8) + body
        let first = try Self.write(firstBytes, as: "20261201T000000Z.json.zst", in: folder)
        let secondBytes = Array("{ \"again\" : 1,\n".utf8) + body
        let second = try Self.write(secondBytes, as: "20261202T000000Z.json.zst", in: folder)
        let secondSize = try Self.size(second)
        // A post in the middle of the first file is blanked: first what names it, then it.
        let post = firstBytes.count / 2 ..< (firstBytes.count / 2 + 200)
        let shift = secondBytes.count - firstBytes.count
        let changing = [first.lastPathComponent: [post]]
        _ = try ManifestRedaction.rewriteEntries(at: second, blanks: [(post.lowerBound + shift)..<(post.upperBound + shift)],
                                                 materializing: changing)
        _ = try ManifestRedaction.rewriteEntries(at: first, blanks: [post], materializing: [:])
        // Spaces, line breaks kept (as JSONBlanking writes them).
        func blanked(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
            var out = bytes
            for i in range where out[i] != 0x0A { out[i] = 0x20 }
            return out
        }
        let expectedFirst = blanked(firstBytes, post)
        let expectedSecond = blanked(secondBytes, (post.lowerBound + shift)..<(post.upperBound + shift))
        #expect(try Self.read(first) == expectedFirst)
        #expect(try Self.read(second) == expectedSecond)
        // Only the frames around the post were copied in; the rest is still named.
        let (fd, file) = try Self.open(second)
        defer { close(fd) }
        #expect(try file.holderNames() == [first.lastPathComponent])
        let grown = try Self.size(second)
        #expect(grown < secondSize + SeekableZstd.longestFrame)
        // The first's offsets and untouched frames are as they were.
        #expect(try Self.read(first).count == firstBytes.count)
    }

    @Test func framesAreCutByContentSoAShiftedCopyMeetsTheSameCuts() throws {
        let body = Self.posts(8_000)
        func cuts(_ bytes: [UInt8]) throws -> Set<BlobHash> {
            var out: [UInt8] = []
            let writer = SeekableZstdWriter { out += $0 }
            try writer.write(bytes)
            try writer.finish()
            let table = try SeekableZstd.Table.read(size: out.count) { offset, count throws(SeekableZstd.Problem) in
                Array(out[offset..<(offset + count)])
            }
            #expect(table.frameCount > 1)
            #expect((0..<table.frameCount).allSatisfy { table.range(of: $0).count <= SeekableZstd.longestFrame })
            return Set(table.digests)
        }
        let a = try cuts(body), b = try cuts(Array("a header of another length\n".utf8) + body)
        // All but a frame or two in common.
        #expect(a.intersection(b).count >= a.count - 2)
    }
}
