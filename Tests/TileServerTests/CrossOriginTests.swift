import Foundation
import Testing
import TestSupport
@testable import TileServer

/// Other sites may read the public media a IIIF viewer loads, and nothing else: not the
/// app's JSON, the manifests, the metrics, nor any error.
@Suite struct CrossOriginTests {
    @Test func onlyPublicMediaIsReadableFromOtherOrigins() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hash = fixture.eager.hex
            for path in ["/iiif/3/\(hash)/info.json", "/iiif/3/\(hash)/full/64,/0/default.jpg", "/dzi/\(hash).dzi",
                         "/blob/\(hash)", "/view/\(hash)", "/iiif/presentation/collection.json"] {
                let response = try await fetch(server, path)
                #expect(response.status == 200, "\(path): \(response.status)")
                #expect(response.header("access-control-allow-origin") == "*", "\(path)")
            }
            for path in ["/api/tweets", "/api/history", "/api/search", "/manifests/", "/metrics", "/healthz", "/",
                         "/iiif/3/\(String(repeating: "0", count: 64))/info.json", "/nowhere"] {
                let response = try await fetch(server, path)
                #expect(response.header("access-control-allow-origin") == nil, "\(path): \(response.status)")
            }
            // A preflight for the app's JSON gets no permission either.
            let json = try await fetch(server, "/api/tweets", method: "OPTIONS")
            #expect(json.header("access-control-allow-origin") == nil)
            let info = try await fetch(server, "/iiif/3/\(hash)/info.json", method: "OPTIONS")
            #expect(info.status == 204 && info.header("access-control-allow-origin") == "*")
        }
    }
}
