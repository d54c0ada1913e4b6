import BlobStore
import Foundation
import MediaFetch
@testable import ObjectStore
import TestSupport
import Synchronization
import Testing

/// S3Client against a real RADOS Gateway on loopback (scripts/rgw.sh).
@Suite struct S3ClientTests {
    static func client(_ hint: String, environment: [String: String]? = nil) async throws -> S3Client {
        let server = try await RGWServer.running()
        let settings = try S3Settings.fromEnvironment(environment ?? server.environment)
        let client = try S3Client(location: S3Location(bucket: RGWServer.bucketName(hint), prefix: "cache"),
                                  settings: settings)
        try await client.createBucket()
        return client
    }

    @Test func putIsIdempotentAndGetReadsRanges() async throws {
        let client = try await Self.client("put")
        defer { client.shutdown() }
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try await client.put("blobs/sha256/ab/one", bytes: bytes) == .stored)
        #expect(try await client.put("blobs/sha256/ab/one", bytes: bytes) == .alreadyStored)
        #expect(try await client.get("blobs/sha256/ab/one") == bytes)
        let part = try #require(try await client.read("blobs/sha256/ab/one", range: 100..<250))
        #expect(part.bytes == Array(bytes[100..<250]))
        #expect(part.objectSize == 10_000)
        // A range running past the end is cut at the end.
        let tail = try #require(try await client.read("blobs/sha256/ab/one", range: 9_990..<20_000))
        #expect(tail.bytes == Array(bytes[9_990...]))
        #expect(try await client.size("blobs/sha256/ab/one") == 10_000)
        #expect(try await client.get("blobs/sha256/ab/missing") == nil)
        #expect(try await client.size("blobs/sha256/ab/missing") == nil)
        try await client.delete("blobs/sha256/ab/one")
        #expect(try await client.get("blobs/sha256/ab/one") == nil)
    }

    @Test func concurrentWritersOfOneKeyAllSucceedAndOneStores() async throws {
        let client = try await Self.client("race")
        defer { client.shutdown() }
        let bytes = [UInt8](repeating: 7, count: 300_000)
        let results = try await withThrowingTaskGroup(of: S3Client.PutResult.self) { group in
            for _ in 0..<12 { group.addTask { try await client.put("blobs/sha256/cd/same", bytes: bytes) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 12)
        #expect(results.filter { $0 == .stored }.count >= 1)
        #expect(try await client.get("blobs/sha256/cd/same") == bytes)
        #expect(try await client.list("blobs/").count == 1)
    }

    @Test func listingFollowsPagesAndStaysBelowThePrefix() async throws {
        let client = try await Self.client("list")
        defer { client.shutdown() }
        for n in 0..<7 { _ = try await client.put("manifests/run-\(n).json", bytes: Array("{}".utf8)) }
        _ = try await client.put("blobs/sha256/00/x", bytes: [1])
        let listed = try await client.list("manifests/", pageSize: 3)
        #expect(listed.map(\.key).sorted() == (0..<7).map { "manifests/run-\($0).json" })
        #expect(listed.allSatisfy { $0.size == 2 && $0.lastModified != nil })
    }

    @Test func largeFilesGoUpInPartsAndAreReadBack() async throws {
        let client = try await Self.client("multipart")
        defer { client.shutdown() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        var bytes = [UInt8](repeating: 0, count: 12 << 20)
        for i in stride(from: 0, to: bytes.count, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i >> 12) }
        try Data(bytes).write(to: file)
        #expect(try await client.putFile("blobs/sha256/ef/video", file: file, partSize: 5 << 20) == .stored)
        #expect(try await client.putFile("blobs/sha256/ef/video", file: file, partSize: 5 << 20) == .alreadyStored)
        #expect(try await client.get("blobs/sha256/ef/video") == bytes)
    }

    @Test func wrongCredentialsNameTheVariablesNotTheirValues() async throws {
        let server = try await RGWServer.running()
        var environment = server.environment
        environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret-0123456789"
        let client = try S3Client(location: S3Location(bucket: RGWServer.bucketName("creds")),
                                  settings: S3Settings.fromEnvironment(environment))
        defer { client.shutdown() }
        do {
            _ = try await client.put("blobs/x", bytes: [1])
            Issue.record("a wrong secret was accepted")
        } catch {
            guard case .accessDenied = error else { Issue.record("expected accessDenied, got \(error)"); return }
            let text = error.description
            #expect(text.contains("AWS_SECRET_ACCESS_KEY"))
            #expect(!text.contains("not-the-secret"))
            #expect(!text.contains(server.environment["AWS_ACCESS_KEY_ID"] ?? "?"))
        }
    }

    @Test func aMissingBucketIsSaidToBeMissing() async throws {
        let server = try await RGWServer.running()
        let client = try S3Client(location: S3Location(bucket: RGWServer.bucketName("nobucket")),
                                  settings: S3Settings.fromEnvironment(server.environment))
        defer { client.shutdown() }
        await #expect(throws: StoreError.noSuchBucket(client.location.bucket)) {
            _ = try await client.put("blobs/x", bytes: [1])
        }
    }

    @Test func anUnreachableEndpointIsRetriedOnTheClockThenNamed() async throws {
        let port = try ClosedPort()
        let clock = VirtualClock()
        var settings = try S3Settings.fromEnvironment([
            "AWS_ENDPOINT_URL": "http://127.0.0.1:\(port.port)", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s",
        ])
        settings.attempts = 3
        let client = try S3Client(location: S3Location(bucket: "some-bucket"), settings: settings, clock: clock)
        defer { client.shutdown() }
        do {
            _ = try await client.get("blobs/x")
            Issue.record("a closed port answered")
        } catch {
            guard case let .unreachable(endpoint, _) = error else { Issue.record("got \(error)"); return }
            #expect(endpoint == "http://127.0.0.1:\(port.port)")
        }
        // Two waits between three attempts: 200 ms then 400 ms, each jittered to half at least.
        #expect(clock.totalSlept >= .milliseconds(300))
        #expect(clock.totalSlept <= .milliseconds(600))
    }

    @Test func settingsFollowTheAWSVariables() async throws {
        let settings = try S3Settings.fromEnvironment([
            "AWS_ENDPOINT_URL": "http://a:1", "AWS_ENDPOINT_URL_S3": "http://b:2/", "AWS_ACCESS_KEY_ID": "k",
            "AWS_SECRET_ACCESS_KEY": "s", "AWS_DEFAULT_REGION": "eu-west-3", "AWS_SESSION_TOKEN": "t",
        ])
        #expect(settings.endpoint == "http://b:2")
        #expect(settings.region == "eu-west-3")
        #expect(try await settings.signature().sessionToken == "t")
        #expect(throws: StoreError.missingCredentials(["AWS_SECRET_ACCESS_KEY"])) {
            try S3Settings.fromEnvironment(["AWS_ACCESS_KEY_ID": "k"])
        }
        #expect(throws: StoreError.self) { try S3Settings.fromEnvironment(["AWS_ENDPOINT_URL": "ftp://x", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]) }
        #expect(throws: StoreError.self) { try S3Location(url: "s3://Bad_Bucket/x") }
        #expect(throws: StoreError.self) { try S3Location(url: "s3://good-bucket/../x") }
        // A trailing slash is spelling; an empty part is refused, not silently read as another prefix.
        #expect(try S3Location(url: "s3://good-bucket/a/b/").description == "s3://good-bucket/a/b")
        #expect(throws: StoreError.self) { try S3Location(url: "s3://good-bucket//a/b/") }
        #expect(throws: StoreError.self) { try S3Location(url: "s3://good-bucket/a//b") }
    }
}

/// Answers no RGW gives on demand, from a loopback server speaking S3's error format.
@Suite struct S3ErrorAnswerTests {
    static func client(_ server: LoopbackHTTPServer, clock: VirtualClock = VirtualClock()) throws -> S3Client {
        var settings = try S3Settings.fromEnvironment([
            "AWS_ENDPOINT_URL": server.baseURL, "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s",
        ])
        settings.attempts = 3
        return try S3Client(location: S3Location(bucket: "some-bucket"), settings: settings, clock: clock)
    }

    static func error(_ status: Int, _ code: String) -> LoopbackHTTPServer.Action {
        .respond(status: status, headers: [("Content-Type", "application/xml")], body: Array("""
            <?xml version="1.0" encoding="UTF-8"?><Error><Code>\(code)</Code><Message>said by the store</Message></Error>
            """.utf8))
    }

    @Test func anEmptyObjectIsHashedAndARepeatedLengthIsReadAsItsLastValue() async throws {
        let server = try LoopbackHTTPServer { request in
            request.path.hasSuffix("/empty") ? .respond(status: 200, body: [])
                : .respond(status: 200, headers: [("Content-Length", "3"), ("Content-Length", "3")], body: [])
        }
        let client = try Self.client(server)
        defer { client.shutdown() }
        // An original truncated to nothing must reach `verify` as bytes (none) to judge,
        // not as an answer it cannot read: its head only ever came with a first byte.
        let empty = try #require(try await client.digest("blobs/sha256/e3/empty", stall: .seconds(5)))
        #expect(empty.size == 0 && empty.hash == BlobHash(hashing: [UInt8]()))
        // Repeats joined as "3, 3" would not parse: a size is the last value sent.
        #expect(try await client.head("blobs/x")?.size == 3)
    }

    @Test func clockSkewIsNamedAsSuch() async throws {
        let server = try LoopbackHTTPServer { _ in Self.error(403, "RequestTimeTooSkewed") }
        let client = try Self.client(server)
        defer { client.shutdown() }
        do {
            _ = try await client.put("blobs/x", bytes: [1])
            Issue.record("accepted")
        } catch {
            #expect(error == .clockSkew("said by the store"))
            #expect(error.description.hasPrefix("RequestTimeTooSkewed"))
        }
        #expect(server.requests.count == 1)
    }

    @Test func slowDownIsRetriedOnTheClockAndThenSucceeds() async throws {
        let answered = Counter()
        let server = try LoopbackHTTPServer { _ in
            answered.next() < 2 ? Self.error(503, "SlowDown") : .respond(status: 200)
        }
        let clock = VirtualClock()
        let client = try Self.client(server, clock: clock)
        defer { client.shutdown() }
        #expect(try await client.put("blobs/x", bytes: [1]) == .stored)
        #expect(server.requests.count == 3)
        #expect(clock.totalSlept >= .milliseconds(300))
        // Every request said what its body hashes to, and signed itself.
        #expect(server.requests.allSatisfy { $0.headers["x-amz-content-sha256"] == "4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a" })
        #expect(server.requests.allSatisfy { $0.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=k/") == true })
        #expect(server.requests.allSatisfy { $0.headers["if-none-match"] == "*" })
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int { value.withLock { n in defer { n += 1 }; return n } }
    }

    /// An endpoint that is not S3 answers HTML: said so, not "NSXMLParserErrorDomain error 68".
    @Test func anHTMLAnswerIsCalledOneNotAParserErrorNumber() {
        for (body, words) in [("<!doctype html><html><body>index</body></html>", "HTML page"),
                              ("\n  <HTML><p>hi</html>", "not an S3 listing")] {
            #expect {
                try S3XML.listing(Array(body.utf8))
            } throws: { error in
                guard case let .malformed(why) = error as? StoreError else { return false }
                return why.contains(words) && why.contains("S3 endpoint") && !why.contains("68")
            }
        }
        #expect {
            try S3XML.uploadID(Array("plain words".utf8))
        } throws: { error in
            guard case let .malformed(why) = error as? StoreError else { return false }
            return why.contains("not XML") && why.contains("S3 endpoint")
        }
    }
}
