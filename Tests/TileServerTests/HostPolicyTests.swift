import Foundation
import Testing
import TestSupport
@testable import TileServer

/// The server answers only for its own hosts: DNS rebinding gets 421 on every route,
/// the hot path for cached tiles included; two Host headers get 400.
@Suite struct HostPolicyTests {
    @Test func itsOwnHostsAndNoOther() {
        let policy = HostPolicy(publicURL: "https://Archive.Example.org/tiles", allowed: ["tc.lan", "Other.Example."],
                                interfaceAddresses: ["192.0.2.7", "2001:db8::7"])
        for host in ["localhost", "localhost:8080", "LOCALHOST.", "app.localhost:1", "127.0.0.1", "127.9.9.9:80", "[::1]",
                     "[::1]:8080", "archive.example.org", "archive.example.org:443", "tc.lan", "other.example",
                     "192.0.2.7:8080", "[2001:db8::7]:80"] {
            #expect(policy.allows(host), "\(host)")
        }
        for host in ["attacker.example", "localhost.attacker.example", "128.0.0.1", "192.0.2.8", "[::2]", "", "a b",
                     "example.org", "127.0.0.1.nip.io", "[::1", "localhost:80:80", "tc.lan/x"] {
            #expect(!policy.allows(host), "\(host)")
        }
        #expect(!HostPolicy.interfaceAddresses().isEmpty)
    }

    @Test func aReboundNameReadsNothingCachedOrNot() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let port = server.port
            let tile = "/iiif/3/\(fixture.eager.hex)/0,0,512,512/256,256/0/default.jpg"
            let answers = try await onOwnThread { () -> [Int] in
                let connection = try RawHTTPConnection(port: port)
                // Its own name: served, and the tile kept in the hot cache.
                var statuses = [try connection.get(tile, host: "localhost:\(port)").status,
                                try connection.get(tile, host: "localhost:\(port)").status]
                // A name rebound to this address: refused on every route, the cached tile too.
                for target in [tile, "/api/tweets", "/api/history", "/healthz", "/metrics", "/"] {
                    statuses.append(try connection.get(target, host: "attacker.example:\(port)").status)
                }
                return statuses
            }
            #expect(answers[0] == 200 && answers[1] == 200)
            #expect(answers.dropFirst(2).allSatisfy { $0 == 421 }, "\(answers)")
            let twice = try await onOwnThread { () -> RawHTTPClient.Response in
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(twice.status == 400)
        }
    }
}
