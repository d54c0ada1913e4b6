import BlobStore
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

@Suite struct SafetyTests {
    @Test(arguments: [
        "/blob/../index.sqlite",
        "/blob/..%2Findex.sqlite",
        "/dzi/..%2F..%2F..%2Fetc%2Fpasswd.dzi",
        "/thumb/%2e%2e/150",
        "/static/..%2F..%2Fetc%2Fpasswd",
        "/manifests/%00.json",
        "/dzi/abc_files/1/0_0.jpg",
        "/blob/%zz",
    ])
    func traversalAndMalformedPathsAreRefused(path: String) async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let response = try await fetch(server, path)
            #expect([400, 404].contains(response.status), "\(path) → \(response.status)")
            #expect(!response.text.contains("root:"))
            #expect(!response.text.contains("SQLite format"))
        }
    }

    @Test func symlinksInsideTheCacheAreNotFollowed() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            // A planted link under a hash's blob name, pointing outside the cache.
            let outside = ScratchDirectory.path("tc-secret")
            try Data("top secret".utf8).write(to: outside)
            let fake = BlobHash(hashing: Data("top secret".utf8))
            let link = fixture.cache.appendingPathComponent("blobs/sha256/\(fake.shard)/\(fake.hex)")
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
            defer { try? FileManager.default.removeItem(at: link) }
            let response = try await fetch(server, "/blob/\(fake.hex)")
            #expect(response.status == 404)
            #expect(!response.text.contains("top secret"))

            // A linked directory on the way is refused too.
            let dir = fixture.cache.appendingPathComponent("derived/\(fake.shard)/\(fake.hex)")
            try FileManager.default.createDirectory(at: dir.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: dir)
            try FileManager.default.createSymbolicLink(at: dir, withDestinationURL: outside.deletingLastPathComponent())
            defer { try? FileManager.default.removeItem(at: dir) }
            let thumb = try await fetch(server, "/thumb/\(fake.hex)/150")
            #expect(thumb.status == 404)
        }
    }

    @Test func aSymlinkedFolderIsNotWrittenThrough() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            // A real image whose derived folder is a planted link to a folder outside the cache.
            let jpeg = try JPEGEncoder.encode(ServerFixture.quadrants(width: 320, height: 240), quality: 77)
            let hash = try BlobStore(root: fixture.cache).put(jpeg).hash
            let outside = try ScratchDirectory.make("tc-outside")
            let folder = fixture.cache.appendingPathComponent("derived/\(hash.shard)/\(hash.hex)")
            try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: outside)
            defer { try? FileManager.default.removeItem(at: folder) }
            let thumb = try await fetch(server, "/thumb/\(hash.hex)/100")
            #expect(thumb.status == 200, "still served")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty, "nothing written outside the cache")
        }
    }

    @Test func routeParsingIsStrict() throws {
        let hex = String(repeating: "0123456789abcdef", count: 4)
        #expect(try Route.parse(path: "/dzi/\(hex)_files/3/1_2.jpg") == .dziTile(BlobHash(hex: hex)!, level: 3, column: 1, row: 2, format: .jpeg))
        #expect(try Route.parse(path: "/dzi/\(hex)_files/3/1_2.png") == .dziTile(BlobHash(hex: hex)!, level: 3, column: 1, row: 2, format: .png))
        #expect(throws: RouteError.notFound) { try Route.parse(path: "/dzi/\(hex)_files/3/1_2.gif") }
        #expect(try Route.parse(path: "/iiif/3/\(hex)/pct%3A1,2,3,4/max/0/default.jpg")
                == .iiifImage(BlobHash(hex: hex)!, region: "pct:1,2,3,4", size: "max", rotation: "0", qualityFormat: "default.jpg"))
        #expect(throws: RouteError.badRequest("identifier must be a SHA-256 in lowercase hex (64 characters)")) {
            try Route.parse(path: "/blob/\(hex.uppercased())")
        }
        #expect(throws: RouteError.notFound) { try Route.parse(path: "/etc/passwd") }
        #expect(throws: RouteError.badRequest("tile level must be a number")) {
            try Route.parse(path: "/dzi/\(hex)_files/+1/0_0.jpg")
        }
        #expect(throws: RouteError.badRequest("path segment not allowed")) {
            try Route.parse(path: "/iiif/3/\(hex)/full%2Fmax/0/0/default.jpg")
        }
    }
}
