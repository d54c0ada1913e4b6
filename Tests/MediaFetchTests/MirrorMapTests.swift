import Foundation
import Testing
@testable import MediaFetch
import MediaTypes

@Suite struct MirrorMapTests {
    @Test func rewritesOnlyTheMirroredHost() throws {
        let m = try MirrorMap(specs: ["pbs.twimg.com=http://127.0.0.1:9/origin/"])
        #expect(m.resolve("https://pbs.twimg.com/media/A.jpg?x=1") == "http://127.0.0.1:9/origin/media/A.jpg?x=1")
        #expect(m.resolve("https://PBS.twimg.com/a") == "http://127.0.0.1:9/origin/a")
        #expect(m.resolve("https://video.twimg.com/v.mp4") == "https://video.twimg.com/v.mp4")
    }

    @Test func aHostWithAPortMatchesThatPortOnly() throws {
        let m = try MirrorMap(specs: ["media.example:8443=http://127.0.0.1:9/a", "cdn.example=http://127.0.0.1:9/b"])
        #expect(m.resolve("https://media.example:8443/x.jpg") == "http://127.0.0.1:9/a/x.jpg")
        #expect(m.resolve("https://media.example/x.jpg") == "https://media.example/x.jpg", "another port: not mirrored")
        #expect(m.resolve("https://cdn.example:444/y.jpg") == "http://127.0.0.1:9/b/y.jpg", "a bare host mirrors every port")
        #expect(throws: FetchError.self) { try MirrorMap(specs: ["media.example:port=http://x"]) }
        #expect(throws: FetchError.self) { try MirrorMap(specs: ["media.example:70000=http://x"]) }
        #expect(throws: FetchError.self) { try MirrorMap(specs: ["a:b:1=http://x"]) }
    }

    @Test func rejectsBadSpecs() {
        #expect(throws: FetchError.self) { try MirrorMap(specs: ["no-equals"]) }
        #expect(throws: FetchError.self) { try MirrorMap(specs: ["host=file:///tmp"]) }
        #expect(throws: FetchError.self) { try MirrorMap(specs: ["=http://x"]) }
    }
}

@Suite struct ContentKindTests {
    @Test func sniffsByMagicBytes() {
        #expect(ContentKind.sniff([0xFF, 0xD8, 0xFF, 0xDB]) == .jpeg)
        #expect(ContentKind.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ContentKind.sniff(Array("GIF89a....".utf8)) == .gif)
        #expect(ContentKind.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ContentKind.sniff([0, 0, 0, 0x20] + Array("ftypisom".utf8)) == .mp4)
        #expect(ContentKind.sniff(Array("  \n<html>".utf8)) == .html)
        #expect(ContentKind.sniff(Array("{\"error\":1}".utf8)) == .unknown)
        #expect(ContentKind.sniff([]) == .unknown)
    }

    @Test func parsesRetryAfterInBothForms() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.parseRetryAfter("120", now: now) == .seconds(120))
        let later = RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now)
        #expect(later == .seconds(60))
        #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
    }
}
