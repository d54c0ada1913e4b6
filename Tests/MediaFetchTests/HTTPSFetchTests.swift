import Foundation
import Testing
import TLSTestSupport
@testable import MediaFetch

/// Fetching over HTTPS with HTTP/2 from a real TLS server on loopback, whose certificate
/// is signed by a CA only the test knows.
@Suite struct HTTPSFetchTests {
    static func trusting(_ origin: TLSOrigin) -> FetchConfiguration {
        var c = testConfiguration()
        c.certificateAuthorities = CertificateAuthorities(bundleFile: origin.caFile)
        return c
    }

    @Test func multiplexesOnOneConnectionBeyondThePerHostCap() async throws {
        // Every response but the first waits until 12 requests are in flight at once: a
        // client that counted streams as connections (2 per host here) would never get
        // there, and the origin would give up waiting after 60 s and fail the test below.
        // (10 s, counted from the origin's start, ran out now and then on a loaded
        // machine before a correct client had its 12 streams open; a correct client
        // ends the wait as soon as it has.)
        let origin = try await TLSOrigin.start(holdUntil: 12, maxHold: .seconds(60)) { path in
            fakeJPEG(4_000, seed: UInt8(path.utf8.count % 200))
        }
        var config = Self.trusting(origin)
        config.maxConcurrentTransfers = 16
        config.maxTransfersPerHost = 2
        // Held responses must not time out and come back as new requests, and a loaded
        // machine (every suite starting at once) may take long over the handshake: the
        // claim here is one connection and 12 streams, not the test configuration's 10 s.
        config.lowSpeedTime = .seconds(60)
        config.totalTimeout = .seconds(90)
        config.connectTimeout = .seconds(30)
        config.maxAttempts = 1
        let fetcher = try HTTPFetcher(configuration: config)
        let failures = await withTaskGroup(of: String?.self) { group in
            for i in 0..<24 {
                group.addTask {
                    switch await fetchMemory(fetcher, origin.baseURL + "/m/\(i).jpg") {
                    case .success: nil
                    case let .failure(failure): "\(i): \(failure)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { if let f = $1 { $0.append(f) } }
        }
        #expect(failures.isEmpty, "failed: \(failures)")
        #expect(origin.allHTTP2)
        #expect(origin.maxInFlight >= 12, "in flight at once: \(origin.maxInFlight)")
        #expect(origin.requests == 24)
        // One connection, one TLS handshake: transfers wait for it rather than open more.
        #expect(origin.connections == 1)
        await origin.stop()
    }

    @Test func refusesACertificateFromACANotTrusted() async throws {
        let origin = try await TLSOrigin.start { _ in fakeJPEG(1_000) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let result = await fetchMemory(fetcher, origin.baseURL + "/a.jpg")
        await origin.stop()
        guard case let .failure(failure) = result, case .untrustedCertificate = failure else {
            Issue.record("expected an untrusted certificate, got \(result)")
            return
        }
        #expect(failure.code == "untrusted_certificate")
        #expect(!failure.isTransient)
        #expect(origin.requests == 0)
    }

    @Test func trustsTheCAItIsGiven() async throws {
        let body = fakeJPEG(50_000)
        let origin = try await TLSOrigin.start { _ in body }
        // Stall limits of a loaded machine, not of the tests' fast ones. The claim is the
        // success: an untrusted certificate is never retried (the test above), so the bytes
        // arriving means the CA was trusted; a stall retried under a loaded CI run is not
        // a failure of trust, so the attempts are not counted here.
        var configuration = Self.trusting(origin)
        configuration.connectTimeout = .seconds(10)
        configuration.lowSpeedTime = .seconds(10)
        let fetcher = try HTTPFetcher(configuration: configuration)
        let result = await fetchMemory(fetcher, origin.baseURL + "/a.jpg")
        await origin.stop()
        let fetched = try result.get()
        #expect(fetched.output == body)
    }

    @Test func anUnusableCABundleStopsTheFetcherBeforeAnyTransfer() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tc-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let notPEM = dir.appendingPathComponent("not.pem")
        try Data("hello".utf8).write(to: notPEM)
        for (bundle, problem) in [(dir.appendingPathComponent("missing.pem").path, "is not a file"),
                                  (dir.path, "is not a file"), (notPEM.path, "holds no PEM certificate")] {
            var config = testConfiguration()
            config.certificateAuthorities = CertificateAuthorities(bundleFile: bundle)
            #expect {
                _ = try HTTPFetcher(configuration: config)
            } throws: { error in
                guard case let .unusableCertificateAuthorities(why) = error as? FetchError else { return false }
                return why.contains(problem) && why.contains(bundle)
            }
        }
        var config = testConfiguration()
        config.certificateAuthorities = CertificateAuthorities(directory: notPEM.path)
        #expect(throws: FetchError.self) { _ = try HTTPFetcher(configuration: config) }
    }

    @Test func theEnvironmentNamesCAsTheWayCurlReadsIt() {
        #expect(CertificateAuthorities.fromEnvironment([:]) == .system)
        #expect(CertificateAuthorities.fromEnvironment(["CURL_CA_BUNDLE": ""]) == .system)
        #expect(CertificateAuthorities.fromEnvironment(["CURL_CA_BUNDLE": "/a.pem", "SSL_CERT_FILE": "/b.pem"])
            == CertificateAuthorities(bundleFile: "/a.pem"))
        #expect(CertificateAuthorities.fromEnvironment(["SSL_CERT_FILE": "/b.pem", "SSL_CERT_DIR": "/certs"])
            == CertificateAuthorities(bundleFile: "/b.pem", directory: "/certs"))
    }

    @Test func aBundleOfOurOwnIsPassedAsGiven() throws {
        for bundle in ["/nonexistent/but/not/the/system/bundle.pem", "/another/missing.pem"] {
            // Two paths that do not resolve are not "the same" as the system bundle either.
            let options = CurlGlobal.trustOptions(for: CertificateAuthorities(bundleFile: bundle))
            #expect(options.bundleFile == bundle)
            #expect(!options.clearsBundle)
        }
        let directory = CurlGlobal.trustOptions(for: CertificateAuthorities(directory: "/some/where"))
        #expect(directory.directory == "/some/where")
        #expect(!directory.clearsBundle)
    }

    @Test func theSystemStoreIsLookedUpByHashWhereTheSystemHasOne() throws {
        let system = CurlGlobal.trustOptions(for: .system)
        guard system.clearsBundle else { return }  // no hashed system directory: the bundle as built
        #expect(system.bundleFile == nil)
        let directory = try #require(system.directory)
        // Naming libcurl's own bundle (as CURL_CA_BUNDLE often does) is the system store too.
        for name in ["/etc/ssl/certs/ca-certificates.crt"] where FileManager.default.fileExists(atPath: name) {
            let named = CurlGlobal.trustOptions(for: CertificateAuthorities(bundleFile: name))
            #expect(named.clearsBundle)
            #expect(named.directory == directory)
        }
    }
}
