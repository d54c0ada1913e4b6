import Foundation
import Imaging
import Testing
import TestSupport

/// A damaged image is shown and said to be damaged by `thumb`, `fetch`'s manifest and `info`.
@Suite struct DamagedImageCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    /// A 400x300 JPEG cut at 60%: its top rows arrive, the rest does not.
    static func truncatedJPEG() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 400 * 300 * 3)
        for i in 0..<(400 * 300) {
            bytes[3 * i] = UInt8(i % 400 * 255 / 399)
            bytes[3 * i + 1] = UInt8(i / 400 * 255 / 299)
            bytes[3 * i + 2] = UInt8(truncatingIfNeeded: i % 400 ^ i / 400)
        }
        let whole = try JPEGEncoder.encode(PixelBuffer(width: 400, height: 300, channels: 3, bytes: bytes), quality: 90)
        return Array(whole.prefix(whole.count * 3 / 5))
    }

    @Test func thumbWritesTheThumbnailAndWarns() async throws {
        let dir = try ScratchDirectory.make("tc-damaged-thumb")
        let input = dir.appendingPathComponent("cut.jpg")
        try Data(try Self.truncatedJPEG()).write(to: input)
        let out = dir.appendingPathComponent("out")
        let run = try await CommandRunner.run(bin, ["thumb", input.path, "--out", out.path, "--size", "100"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: \(input.path): damaged JPEG: the data ends after row"), "\(run.stderr)")
        let thumb = try [UInt8](Data(contentsOf: out.appendingPathComponent("cut.jpg")))
        #expect(try ImageDecoder.info(of: thumb).width == 100)
    }

    @Test func fetchAndInfoSayWhatIsWrong() async throws {
        let body = try Self.truncatedJPEG()
        let server = try LoopbackHTTPServer { req in
            req.path.contains("AAA") ? .respond(status: 200, body: body) : .respond(status: 404)
        }
        defer { server.stop() }
        let (dir, page) = try scratchWithPage("tc-damaged-fetch")
        let cache = dir.appendingPathComponent("c")
        let fetch = try await CommandRunner.run(bin, [
            "fetch", page.path, "--cache", cache.path, "--json", "--mirror", "pbs.twimg.com=\(server.baseURL)",
        ])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let info = try await CommandRunner.run(
            bin, ["info", "https://pbs.twimg.com/media/AAA?format=jpg&name=orig", "--json", "--cache", cache.path])
        #expect(info.status == 0, "\(info.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        let warning = try #require(object?["decode_warning"] as? String, "\(info.stdout)")
        #expect(warning.contains("the data ends after row"))
        #expect(object?["decode_error"] == nil)
        let text = try await CommandRunner.run(
            bin, ["info", "https://pbs.twimg.com/media/AAA?format=jpg&name=orig", "--cache", cache.path],
            environment: ["NO_COLOR": ""])
        #expect(text.stdout.contains("damage      damaged JPEG"), "\(text.stdout)")
    }
}
