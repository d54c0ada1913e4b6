import Foundation
import Imaging
import Testing
import TestSupport

/// `thumb` writes its files as `tile` writes its tiles, without flushing each one, and
/// still says which file it could not write.
@Suite struct ThumbCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    static func jpeg(width: Int, height: Int, seed: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            bytes[3 * i] = UInt8(truncatingIfNeeded: i % width * 255 / max(1, width - 1) + seed)
            bytes[3 * i + 1] = UInt8(truncatingIfNeeded: i / width * 255 / max(1, height - 1))
            bytes[3 * i + 2] = UInt8(truncatingIfNeeded: (i % width) ^ (i / width) ^ seed)
        }
        return try JPEGEncoder.encode(PixelBuffer(width: width, height: height, channels: 3, bytes: bytes), quality: 90)
    }

    @Test func aThumbnailThatCannotBeWrittenIsNamedAndTheOthersAreMadeWhole() async throws {
        let dir = try ScratchDirectory.make("tc-thumb-write")
        let a = dir.appendingPathComponent("a.jpg"), b = dir.appendingPathComponent("b.jpg")
        try Data(try Self.jpeg(width: 320, height: 200, seed: 1)).write(to: a)
        try Data(try Self.jpeg(width: 200, height: 320, seed: 2)).write(to: b)
        let out = dir.appendingPathComponent("out")
        // a's thumbnail has a directory in its place; b's an older, longer file, which goes whole.
        try FileManager.default.createDirectory(at: out.appendingPathComponent("a.jpg"), withIntermediateDirectories: true)
        let stale = [UInt8](repeating: 0x5A, count: 200_000)
        try Data(stale).write(to: out.appendingPathComponent("b.jpg"))

        let run = try await CommandRunner.run(bin, ["thumb", a.path, b.path, "--out", out.path, "--size", "64", "--jobs", "1"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("tweetcache: \(a.path): could not create \(out.appendingPathComponent("a.jpg").path)"), "\(run.stderr)")
        #expect(run.stderr.contains("Is a directory"), "\(run.stderr)")
        let thumb = try [UInt8](Data(contentsOf: out.appendingPathComponent("b.jpg")))
        #expect(thumb.count < stale.count)
        let info = try ImageDecoder.info(of: thumb)
        #expect(info.width == 40 && info.height == 64)
    }
}
