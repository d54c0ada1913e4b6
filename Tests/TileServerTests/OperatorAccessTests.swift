import Foundation
import Testing
import TestSupport
@testable import TileServer

/// The operator's routes (live search, history, metrics, manifests) on a server others
/// reach: for the holder of the operator token, by bearer or by the sign-in page's
/// session; off without a token and with `--read-only`; unchanged on loopback.
@Suite struct OperatorAccessTests {
    static let token = "correct-horse-battery-staple-42"
    static let operatorRoutes = ["/api/history", "/api/search", "/metrics", "/manifests/"]

    /// A loopback server that counts as public: its public URL is another host (as
    /// behind a proxy), so it asks for the operator.
    func publicServer(_ fixture: ServerFixture, token: String? = OperatorAccessTests.token, readOnly: Bool = false)
        async throws -> TileServer {
        try await fixture.start {
            $0.publicBaseURL = "https://archive.example.org"
            $0.operatorToken = try! token.map { try OperatorToken($0) }
            $0.readOnly = readOnly
            $0.clock = ManualClock()
        }
    }

    @Test func theAccessFollowsWhereTheServerIsReached() throws {
        let token = try OperatorToken(Self.token)
        func name(_ host: String, _ url: String? = nil, proxy: Bool = false, token: OperatorToken? = nil, readOnly: Bool = false)
            -> String {
            OperatorAccess.decide(host: host, publicURL: url, trustsProxy: proxy, token: token, readOnly: readOnly).name
        }
        #expect(name("127.0.0.1") == "open")
        #expect(name("::1", token: token) == "open")
        #expect(name("localhost", "http://localhost:8080") == "open")
        #expect(name("0.0.0.0") == "off")
        #expect(name("0.0.0.0", token: token) == "token")
        #expect(name("127.0.0.1", proxy: true, token: token) == "token")
        #expect(name("127.0.0.1", "https://tiles.example.org") == "off")
        #expect(name("127.0.0.1", readOnly: true) == "off")
        #expect(throws: OperatorTokenError.tooShort) { try OperatorToken("short") }
        #expect(throws: OperatorTokenError.notPrintable) { try OperatorToken("with a space in the middle") }
    }

    @Test func theOperatorsRoutesNeedTheTokenAndWorkWithIt() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await publicServer(fixture)) { (server: TileServer) async throws in
            for path in Self.operatorRoutes {
                let refused = try await fetch(server, path)
                #expect(refused.status == 401, "\(path)")
                #expect(refused.header("www-authenticate") == "Bearer realm=\"tweetcache\"", "\(path)")
                let wrong = try await fetch(server, path, headers: ["Authorization": "Bearer not-the-token-at-all"])
                #expect(wrong.status == 401, "\(path)")
                let allowed = try await fetch(server, path, headers: ["Authorization": "Bearer \(Self.token)"])
                #expect(allowed.status == 200, "\(path): \(allowed.status) \(allowed.text)")
            }
            // Starting a search is refused before anything else is looked at.
            let search = try await fetch(server, "/api/search", method: "POST", headers: ["Content-Type": "application/json"],
                                         body: Array(##"{"query":"#cats"}"##.utf8))
            #expect(search.status == 401)
            // The archive itself is every visitor's.
            for path in ["/", "/api/tweets", "/api/operator", "/healthz", "/iiif/3/\(fixture.eager.hex)/info.json"] {
                #expect(try await fetch(server, path).status == 200, "\(path)")
            }
            let feed = try JSONSerialization.jsonObject(with: Data(try await fetch(server, "/api/operator").body)) as? [String: Any]
            #expect(feed?["access"] as? String == "token" && feed?["signed_in"] as? Bool == false)
        }
    }

    @Test func theSignInPageStartsAStrictHttpOnlySession() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await publicServer(fixture)) { (server: TileServer) async throws in
            let page = try await fetch(server, "/signin")
            #expect(page.status == 200 && page.text.contains("<form method=\"post\" action=\"/signin\">"))
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            let wrong = try await fetch(server, "/signin", method: "POST", headers: form, body: Array("token=guess-guess-guess-guess".utf8))
            #expect(wrong.status == 401 && wrong.header("set-cookie") == nil)
            #expect(wrong.text.contains("not the operator"))
            // A form on another site cannot sign the visitor in.
            let foreign = try await fetch(server, "/signin", method: "POST", headers: form.merging(["Origin": "https://evil.example"]) { $1 },
                                          body: Array("token=\(Self.token)".utf8))
            #expect(foreign.status == 403 && foreign.header("set-cookie") == nil)

            let signedIn = try await fetch(server, "/signin", method: "POST",
                                           headers: form.merging(["Origin": "https://archive.example.org"]) { $1 },
                                           body: Array("token=\(Self.token.replacingOccurrences(of: "-", with: "%2D"))".utf8))
            #expect(signedIn.status == 303 && signedIn.header("location") == "/")
            let cookie = try #require(signedIn.header("set-cookie"))
            let attributes = cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            #expect(attributes.contains("httponly") && attributes.contains("samesite=strict") && attributes.contains("secure"))
            #expect(attributes.contains("path=/"))
            #expect(!cookie.contains(Self.token), "the token itself is never the cookie")
            let session = String(cookie.split(separator: ";")[0])
            #expect(session.hasPrefix("tweetcache_session="))

            for path in Self.operatorRoutes {
                #expect(try await fetch(server, path, headers: ["Cookie": session]).status == 200, "\(path)")
            }
            let feed = try JSONSerialization.jsonObject(
                with: Data(try await fetch(server, "/api/operator", headers: ["Cookie": session]).body)) as? [String: Any]
            #expect(feed?["signed_in"] as? Bool == true)
            // A made-up session is nobody's.
            #expect(try await fetch(server, "/api/history", headers: ["Cookie": "tweetcache_session=bm9ib2R5"]).status == 401)

            let out = try await fetch(server, "/signout", method: "POST", headers: ["Cookie": session])
            #expect(out.status == 303)
            #expect(out.header("set-cookie")?.hasPrefix("tweetcache_session=") == true)
            #expect(try await fetch(server, "/api/history", headers: ["Cookie": session]).status == 401)
        }
    }

    @Test func signInAttemptsAreLimitedPerAddress() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await publicServer(fixture)) { (server: TileServer) async throws in
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            var statuses: [Int] = []
            for _ in 0..<11 {
                statuses.append(try await fetch(server, "/signin", method: "POST", headers: form,
                                                body: Array("token=wrong-wrong-wrong-wrong".utf8)).status)
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
            let last = try await fetch(server, "/signin", method: "POST", headers: form, body: Array("token=\(Self.token)".utf8))
            #expect(last.status == 429 && last.header("retry-after") != nil && last.header("set-cookie") == nil)
        }
    }

    @Test func withoutATokenOrReadOnlyTheRoutesAreOffAndThePageIsTold() async throws {
        let fixture = try await ServerFixture.get()
        for (server, reason) in [(try await publicServer(fixture, token: nil), "no operator"),
                                 (try await fixture.start { $0.readOnly = true }, "read-only")] {
            try await withServer(server) { (server: TileServer) async throws in
                for path in Self.operatorRoutes {
                    let refused = try await fetch(server, path, headers: ["Authorization": "Bearer \(Self.token)"])
                    #expect(refused.status == 403 && refused.text.contains(reason), "\(path): \(refused.text)")
                }
                let feed = try JSONSerialization.jsonObject(with: Data(try await fetch(server, "/api/operator").body)) as? [String: Any]
                #expect(feed?["access"] as? String == "off" && (feed?["reason"] as? String)?.contains(reason) == true)
                #expect(try await fetch(server, "/api/tweets").status == 200)
            }
        }
    }

    @Test func onLoopbackNothingChanges() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start { $0.operatorToken = try! OperatorToken(Self.token) }) {
            (server: TileServer) async throws in
            for path in Self.operatorRoutes { #expect(try await fetch(server, path).status == 200, "\(path)") }
            let feed = try JSONSerialization.jsonObject(with: Data(try await fetch(server, "/api/operator").body)) as? [String: Any]
            #expect(feed?["access"] as? String == "open" && feed?["signed_in"] as? Bool == true)
        }
    }
}
