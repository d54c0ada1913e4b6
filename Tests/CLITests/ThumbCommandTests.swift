import Foundation
import Imaging
import Testing
import TestSupport

/// `thumb` writes its files as `tile` writes its tiles, without flushing each one, and
/// still says which file it could not write.
@Suite struct ThumbCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    @Test func aThumbnailThatCannotBeWrittenIsNamedAndTheOthersAreMadeWhole() async throws {
        let dir = try ScratchDirectory.make("tc-thumb-write")
        let a = dir.appendingPathComponent("a.jpg"), b = dir.appendingPathComponent("b.jpg")
        try writeImage(a, width: 320, height: 200, seed: 1)
        try writeImage(b, width: 200, height: 320, seed: 2)
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

/// An image file made with the project's own encoders: a PNG when `path` ends in
/// `.png`, else a JPEG, of a pattern that `seed` varies.
func writeImage(_ path: URL, width: Int, height: Int, seed: UInt8 = 0) throws {
    let channels = 3
    var bytes = [UInt8](repeating: 0, count: width * height * channels)
    for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed) &* 77 &+ i / (width * channels)) }
    let buffer = try PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    let encoded = path.pathExtension == "png" ? try PNGEncoder.encode(buffer) : try JPEGEncoder.encode(buffer, quality: 90)
    try Data(encoded).write(to: path)
}
