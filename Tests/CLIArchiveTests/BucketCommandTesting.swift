import Foundation
import ObjectStore
import Testing
import TestSupport

/// What the bucket suites (`StoreCommandTests`, `StoreTrustTests`) share: a bucket of
/// their own on the one gateway, and the built-in sample fetched into it.
protocol BucketCommandTesting {
    /// The built `tweetcache` these tests run.
    var bin: URL { get }
}

/// A new bucket (see ``BucketCommandTesting/bucket(_:endpoint:)``) and a temporary folder; `close()` ends both.
struct BucketFixture {
    let client: S3Client
    let environment: [String: String]
    let dir: URL
    func close() {
        client.shutdown()
        try? FileManager.default.removeItem(at: dir)
    }
}

extension BucketCommandTesting {
    /// A new bucket on the shared gateway, reached directly or through `endpoint`.
    ///
    /// The demos draw the sample's photos at a quarter of their width and height
    /// (`TWEETCACHE_DEMO_SHRINK`): these tests are about the bucket, and a demo then
    /// derives a sixteenth of the pixels (the suite took 105 s of CPU less).
    func bucket(_ hint: String, endpoint: String? = nil) async throws -> (S3Client, [String: String]) {
        let server = try await RGWServer.running()
        var environment = server.environment.merging(smallDemo) { _, new in new }
        if let endpoint { environment["AWS_ENDPOINT_URL"] = endpoint }
        let client = try S3Client(location: S3Location(bucket: RGWServer.bucketName(hint), prefix: "tc"),
                                  settings: S3Settings.fromEnvironment(server.environment))
        try await client.createBucket()
        environment["TWEETCACHE_STORE"] = client.location.description
        return (client, environment)
    }

    func fixture(_ hint: String, endpoint: String? = nil) async throws -> BucketFixture {
        let (client, environment) = try await bucket(hint, endpoint: endpoint)
        return BucketFixture(client: client, environment: environment, dir: try tempDir())
    }

    /// The built-in sample fetched into `cache` and the bucket: the first machine.
    func sampleFetched(into cache: URL, _ environment: [String: String]) async throws -> CommandOutput {
        let out = try await demo(cache, environment)
        #expect(out.status == 0, "\(out.stderr)")
        return out
    }

    func demo(_ cache: URL, _ environment: [String: String], extra: [String] = []) async throws -> CommandOutput {
        try await CommandRunner.run(bin, ["demo", "--cache", cache.path, "--json", "--quiet"] + extra, environment: environment)
    }

    func storeSummary(_ out: CommandOutput) throws -> [String: Any] {
        try #require(try summary(out)["store"] as? [String: Any], "no store summary: \(out.stdout) \(out.stderr)")
    }
}
