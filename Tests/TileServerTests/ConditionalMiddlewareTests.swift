import BlobStore
import Foundation
import TestSupport
import Testing
@testable import TileServer

/// HTTP's validator, range and HEAD rules are one middleware for every answer:
/// the same on an original, a JSON document and an error.
@Suite struct ConditionalMiddlewareTests {
    @Test func validatorsRangesAndHeadHoldForEveryKindOfAnswer() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.eager.hex
            let whole = try await fetch(server, "/blob/\(hex)")
            #expect(whole.status == 200 && whole.header("accept-ranges") == "bytes")
            let etag = try #require(whole.header("etag"))

            // A range of an original, and its HEAD: the head says the part's length.
            let part = try await fetch(server, "/blob/\(hex)", headers: ["Range": "bytes=10-19"])
            #expect(part.status == 206 && part.body == Array(whole.body[10..<20]))
            #expect(part.header("content-range") == "bytes 10-19/\(whole.body.count)")
            let partHead = try await fetch(server, "/blob/\(hex)", method: "HEAD", headers: ["Range": "bytes=10-19"])
            #expect(partHead.status == 206 && partHead.body.isEmpty && partHead.header("content-length") == "10")
            let past = try await fetch(server, "/blob/\(hex)", headers: ["Range": "bytes=\(whole.body.count)-"])
            #expect(past.status == 416 && past.header("content-range") == "bytes */\(whole.body.count)" && past.header("etag") == nil)

            // A JSON document's validator: 304 with its ETag, no body, no type.
            let info = try await fetch(server, "/iiif/3/\(hex)/info.json")
            let infoTag = try #require(info.header("etag"))
            let same = try await fetch(server, "/iiif/3/\(hex)/info.json", headers: ["If-None-Match": infoTag])
            #expect(same.status == 304 && same.body.isEmpty && same.header("content-type") == nil && same.header("etag") == infoTag)
            #expect(try await fetch(server, "/blob/\(hex)", headers: ["If-None-Match": etag]).status == 304)

            // HEAD of an error: the GET's status and length, no body.
            let missing = try await fetch(server, "/blob/\(String(repeating: "0", count: 64))")
            let missingHead = try await fetch(server, "/blob/\(String(repeating: "0", count: 64))", method: "HEAD")
            #expect(missing.status == 404 && missingHead.status == 404)
            #expect(missingHead.body.isEmpty && missingHead.header("content-length") == String(missing.body.count))
        }
    }
}
