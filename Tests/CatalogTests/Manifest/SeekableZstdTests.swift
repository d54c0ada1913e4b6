import Foundation
import Testing
import TestSupport
@testable import Catalog

/// Manifests as seekable zstd: what is written reads back whole and at any offset,
/// the `zstd` command reads it, a rewritten tail leaves no trace, and damage is an
/// error rather than other bytes.
@Suite struct SeekableZstdTests {
    /// Text that compresses as JSON does, but not to nothing: numbered lines.
    static func text(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var n = 0
        while bytes.count < count {
            bytes += Array("{\"id\":\"\(n &* 2_654_435_761 % 1_000_003)\",\"text\":\"line \(n)\"},\n".utf8)
            n += 1
        }
        return Array(bytes.prefix(count))
    }

    static func compressed(_ parts: [[UInt8]]) throws -> [UInt8] {
        var out: [UInt8] = []
        let writer = SeekableZstdWriter { out += $0 }
        for part in parts { try writer.write(part) }
        try writer.finish()
        return out
    }

    /// The `zstd` command with `arguments`: its status and what it printed. Waited for
    /// on a thread of its own (``onOwnThread(_:)``), never on the tests' pool.
    static func zstd(_ arguments: [String]) async throws -> (status: Int32, output: Data) {
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["zstd"] + arguments
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let output = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
    }

    static func file(_ bytes: [UInt8]) throws -> URL {
        let url = ScratchDirectory.path("tc-zst", suffix: ".json.zst")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func roundTripsWholeAndByRange() throws {
        let input = Self.text(300_000)
        // Written in uneven pieces: frames are cut by their content, not by the writes.
        let packed = try Self.compressed([Array(input[..<1]), Array(input[1..<70_000]), Array(input[70_000...])])
        #expect(SeekableZstd.isCompressed(packed))
        #expect(packed.count < input.count / 4, "it compresses")
        #expect(try SeekableZstd.decompress(Data(packed)) == Data(input))

        let url = try Self.file(packed)
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        let file = try SeekableZstdFile(descriptor: fd)
        #expect(file.table.frameCount > 1)
        #expect((0..<file.table.frameCount).allSatisfy { file.table.range(of: $0).count <= SeekableZstd.longestFrame })
        #expect(file.table.digests.count == file.table.frameCount)
        #expect(file.table.decompressedSize == input.count)
        let frame = file.table.decompressedStarts[1]
        for range in [0..<10, (frame - 5)..<(frame + 5), (frame - 1)..<(input.count - 1), (input.count - 7)..<input.count, 123..<123] {
            #expect(try file.read(range) == Data(input[range]), "\(range)")
        }
        #expect(throws: SeekableZstd.Problem.self) { try file.read(0..<(input.count + 1)) }
    }

    /// The point of the format: anyone's `zstd -dc` gives the JSON (the table is a
    /// skippable frame).
    @Test func theZstdCommandReadsIt() async throws {
        let input = Self.text(150_000)
        let url = try Self.file(try Self.compressed([input]))
        let (status, bytes) = try await Self.zstd(["-dc", url.path])
        #expect(status == 0)
        #expect(bytes == Data(input))
    }

    @Test func aRewoundTailLeavesNoTrace() throws {
        var out: [UInt8] = []
        let writer = SeekableZstdWriter { out += $0 }
        let head = Self.text(100_000)
        try writer.write(head)
        let mark = try writer.mark()
        #expect(mark.compressedOffset == out.count)
        try writer.write(Array("a tail written first, then taken back".utf8))
        writer.rewind(to: mark)
        out.removeSubrange(mark.compressedOffset...)
        try writer.write(Array("the tail".utf8))
        try writer.finish()
        #expect(try SeekableZstd.decompress(Data(out)) == Data(head + Array("the tail".utf8)))
    }

    @Test func damageIsAnErrorNotOtherBytes() throws {
        let input = Self.text(200_000)
        let good = try Self.compressed([input])
        // A byte changed inside the second frame: its checksum (or its structure) fails.
        var flipped = good
        let fd0 = open(try Self.file(good).path, O_RDONLY)
        let table = try SeekableZstd.Table.read(fd0, size: good.count)
        close(fd0)
        flipped[table.compressedStarts[1] + (table.compressedStarts[2] - table.compressedStarts[1]) / 2] ^= 0x55
        #expect(throws: SeekableZstd.Problem.self) { try SeekableZstd.decompress(Data(flipped)) }
        let fd = open(try Self.file(flipped).path, O_RDONLY)
        defer { close(fd) }
        let file = try SeekableZstdFile(descriptor: fd)
        #expect(try file.read(0..<100) == Data(input[0..<100]), "the frames around it still read")
        let second = file.table.decompressedStarts[1]
        #expect(throws: SeekableZstd.Problem.self) { try file.read(second..<(second + 10)) }

        // Cut short, the table is gone or no longer adds up.
        #expect(throws: SeekableZstd.Problem.self) { try SeekableZstd.decompress(Data(good.dropLast(3))) }
        var lying = good
        lying[good.count - 9] &+= 1  // one more frame than there are
        #expect(throws: SeekableZstd.Problem.self) { try SeekableZstd.decompress(Data(lying)) }
    }

    /// A stranger's frame sizes are not believed: a frame over the limit is refused
    /// before anything is allocated for it.
    @Test func refusesAFrameOverTheLimit() throws {
        var table = SeekableZstd.Table()
        table.append(compressed: 20, decompressed: SeekableZstd.largestFrame + 1)
        let bytes = [UInt8](repeating: 0, count: 20) + table.encoded()
        #expect(throws: SeekableZstd.Problem("a frame of \(SeekableZstd.largestFrame + 1) bytes, over \(SeekableZstd.largestFrame)")) {
            try SeekableZstd.decompress(Data(bytes))
        }
    }

    /// A frame without its checksum (`zstd --no-check`), or a table entry no zstd frame
    /// could be, is refused: what a reader takes it can check.
    @Test func framesMustCarryTheirChecksum() async throws {
        let input = Self.text(5_000)
        let plain = ScratchDirectory.path("tc-nocheck", suffix: ".json")
        try Data(input).write(to: plain)
        #expect(try await Self.zstd(["-q", "-f", "--no-check", plain.path, "-o", plain.path + ".zst"]).status == 0)
        let frame = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain.path + ".zst")))
        var table = SeekableZstd.Table()
        table.append(compressed: frame.count, decompressed: input.count)
        #expect(throws: SeekableZstd.Problem("a frame that is not zstd with a checksum")) {
            try SeekableZstd.decompress(Data(frame + table.encoded()))
        }
        var tiny = SeekableZstd.Table()
        tiny.append(compressed: 4, decompressed: 10)
        tiny.append(compressed: 14, decompressed: 10)
        #expect(throws: SeekableZstd.Problem("a frame of 4 compressed bytes")) {
            try SeekableZstd.decompress(Data([UInt8](repeating: 0, count: 18) + tiny.encoded()))
        }
    }

    /// A table claiming more frames than its file could hold is refused before
    /// anything is sized by its count.
    @Test func refusesATableLongerThanItsFile() throws {
        var footer: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { footer.append(contentsOf: $0) } }
        // A skippable frame of 2,000 bytes of entries: 250 frames, with no room for their bytes.
        u32(0x184D_2A5E); u32(2_000 + 9)
        footer += [UInt8](repeating: 9, count: 2_000)
        u32(250); footer.append(0); u32(0x8F92_EAB1)
        #expect(throws: SeekableZstd.Problem("a seek table longer than its file")) {
            try SeekableZstd.decompress(Data([UInt8](repeating: 0, count: 100) + footer))
        }
    }

    /// A plain zstd stream (`zstd file.json`) has no table: said so, not misread.
    @Test func aStreamWithoutATableIsNamed() async throws {
        let plain = ScratchDirectory.path("tc-plain", suffix: ".json")
        try Data(Self.text(10_000)).write(to: plain)
        #expect(try await Self.zstd(["-q", "-f", plain.path, "-o", plain.path + ".zst"]).status == 0)
        let url = URL(fileURLWithPath: plain.path + ".zst")
        #expect(throws: ManifestFile.Problem(description: "a zstd file without a seek table (written by another tool?)")) {
            try ManifestFile(url: url)
        }
    }

    /// A run's manifest as the writer leaves it: compressed, read by ``ManifestFile``
    /// at the JSON's offsets, the tail rewritten once as a run publishing to a store does.
    @Test func aManifestWrittenCompressedReadsBack() throws {
        let dir = try ScratchDirectory.make("tc-zst-manifest")
        let writer = try ManifestStreamWriter(directory: dir, generatedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                              tool: "test", cacheRoot: "/c")
        #expect(writer.temporaryURL.lastPathComponent.hasSuffix(".json.zst"))
        let posts = (0..<3000).map { i in
            ManifestTweet(
                id: "\(i)", createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), text: "post number \(i) #tag",
                lang: "en", author: .init(id: "u\(i % 7)", screenName: "user\(i % 7)", name: "User \(i % 7)"),
                entities: .init(hashtags: [], cashtags: [], mentions: [], urls: [], media: []), media: [],
                referencedTweets: [], query: "#tag", sourceFormat: "v2Search", source: "page.json")
        }
        for post in posts { try writer.append(post) }
        let summary = RunSummary()
        try writer.writeTail(sources: [], summary: summary)
        try writer.writeTail(extraFailures: [Manifest.Failure(url: "https://x/1.jpg", role: "media", error: MediaError(code: "http", message: "gone"))],
                             sources: [], summary: summary)
        let url = dir.appendingPathComponent("run.json.zst")
        try writer.commit(to: url)

        let file = try ManifestFile(url: url)
        #expect(file.isCompressed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["run.json.zst"],
                "its JSON, being read, has no name")
        #expect(file.fileSize == (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int))
        #expect(file.fileSize * 5 < file.bytes.count, "at least fivefold smaller than its JSON")
        #expect(file.tweetCount == 3000)
        // The catalog sizes its read by the JSON (a small read keeps its indexes).
        #expect(PostCatalog.jsonBytes(url.path, size: file.fileSize) == file.bytes.count)
        var ids: [String] = []
        try file.forEachPost { _, range in ids.append(try file.post(at: range).id) }
        #expect(ids == posts.map(\.id))
        #expect(try file.failures().map(\.url) == ["https://x/1.jpg"], "the second tail, not the first")
        #expect(try ManifestFile.failures(at: url) == file.failures(), "read from the last frames alone")
        let json = try JSONSerialization.jsonObject(with: SeekableZstd.decompress(Data(contentsOf: url))) as? [String: Any]
        #expect((json?["tweets"] as? [Any])?.count == 3000)
        #expect(try Manifest.read(from: url).tweets.count == 3000)
    }
}
