import BlobStore
import Foundation
import ObjectStore
import Testing
import TestSupport

/// Temporary credentials from the endpoints a container or an EC2 instance has,
/// played by loopback stand-ins that hand out the real gateway's keys: the S3
/// client gets them through its own HTTP client and signs real requests with them.
@Suite struct MetadataCredentialsTests {
    static func credentialsJSON(_ rgw: RGWServer, token: Bool) -> [UInt8] {
        let expiry = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        let key = rgw.environment["AWS_ACCESS_KEY_ID"] ?? "", secret = rgw.environment["AWS_SECRET_ACCESS_KEY"] ?? ""
        return Array("""
            {"Code":"Success","AccessKeyId":"\(key)","SecretAccessKey":"\(secret)",\(token ? "\"Token\":\"\"," : "")"Expiration":"\(expiry)"}
            """.utf8)
    }

    /// An environment with no keys and no profile files: only the endpoint under test.
    static func bareEnvironment(_ rgw: RGWServer, home: URL) -> [String: String] {
        ["AWS_ENDPOINT_URL": rgw.endpoint, "AWS_REGION": "us-east-1", "HOME": home.path]
    }

    static func roundTrip(_ settings: S3Settings) async throws {
        let client = try S3Client(location: S3Location(bucket: RGWServer.bucketName("metadata")), settings: settings)
        defer { client.shutdown() }
        try await client.createBucket()
        #expect(try await client.put("blobs/x", bytes: [1, 2, 3]) == .stored)
        #expect(try await client.get("blobs/x") == [1, 2, 3])
    }

    @Test func instanceMetadataV2() async throws {
        let rgw = try await RGWServer.running()
        let body = Self.credentialsJSON(rgw, token: false)
        let imds = try LoopbackHTTPServer { request in
            switch (request.method, request.path) {
            case ("PUT", "/latest/api/token"):
                guard request.headers["x-aws-ec2-metadata-token-ttl-seconds"] != nil else { return .respond(status: 400) }
                return .respond(status: 200, body: Array("session-token-1".utf8))
            case ("GET", "/latest/meta-data/iam/security-credentials/"):
                guard request.headers["x-aws-ec2-metadata-token"] == "session-token-1" else { return .respond(status: 401) }
                return .respond(status: 200, body: Array("tweetcache-role\n".utf8))
            case ("GET", "/latest/meta-data/iam/security-credentials/tweetcache-role"):
                guard request.headers["x-aws-ec2-metadata-token"] == "session-token-1" else { return .respond(status: 401) }
                return .respond(status: 200, body: body)
            default: return .respond(status: 404)
            }
        }
        defer { imds.stop() }
        let home = try ScratchDirectory.make("tc-home")
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = Self.bareEnvironment(rgw, home: home)
        environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.baseURL
        let settings = try S3Settings.fromEnvironment(environment)
        #expect(settings.sources["credentials"]?.contains("instance metadata") == true)
        try await Self.roundTrip(settings)
        // Fetched once and kept until they near their expiry: not once per request.
        #expect(imds.requestCount(path: "/latest/api/token") == 1)
    }

    @Test func containerEndpointWithAnAuthorizationToken() async throws {
        let rgw = try await RGWServer.running()
        let body = Self.credentialsJSON(rgw, token: true)
        let container = try LoopbackHTTPServer { request in
            guard request.path == "/v2/credentials/abc" else { return .respond(status: 404) }
            guard request.headers["authorization"] == "secret-pod-token" else { return .respond(status: 403) }
            return .respond(status: 200, body: body)
        }
        defer { container.stop() }
        let home = try ScratchDirectory.make("tc-home")
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = Self.bareEnvironment(rgw, home: home)
        environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container.baseURL + "/v2/credentials/abc"
        environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "secret-pod-token"
        environment["AWS_EC2_METADATA_DISABLED"] = "true"
        let settings = try S3Settings.fromEnvironment(environment)
        #expect(settings.sources["credentials"] == "container credentials endpoint")
        try await Self.roundTrip(settings)

        // A refused token is said as the container endpoint's failure, without the token.
        environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "wrong-token"
        let refused = try S3Client(location: S3Location(bucket: RGWServer.bucketName("refused")),
                                   settings: S3Settings.fromEnvironment(environment))
        defer { refused.shutdown() }
        do {
            try await refused.probe()
            Issue.record("a refused token signed a request")
        } catch {
            #expect(error.code == "store_credentials")
            #expect(!error.description.contains("wrong-token"))
        }
    }
}
