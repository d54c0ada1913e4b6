import BlobStore
import Foundation
import Imaging
import ObjectStore
import Testing
import TestSupport

/// The bucket as an S3-savvy user meets it: the AWS configuration they have, an
/// endpoint that is not S3, keys that may only read, a private CA, a second
/// machine, and objects damaged behind the store's back. Each against the real
/// gateway and the real binary.
@Suite(.serialized) struct StoreTrustTests: BucketCommandTesting {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    @Test func anEndpointThatIsNotS3IsRefusedNotReadAsAnEmptyBucket() async throws {
        let page = Array("<html><body><h1>Index of /</h1><a href=\"x\">x</a></body></html>".utf8)
        let web = try LoopbackHTTPServer { _ in .respond(status: 200, body: page) }
        defer { web.stop() }
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let environment = ["AWS_ENDPOINT_URL": web.baseURL, "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s",
                           "TWEETCACHE_STORE": "s3://some-bucket"]
        for command in ["stats", "sync"] {
            let out = try await CommandRunner.run(bin, [command, "--cache", dir.path], environment: environment)
            #expect(out.status == 2, "\(command): \(out.status) \(out.stderr)")
            #expect(out.stderr.contains("not an S3 listing"), "\(out.stderr)")
        }
    }

    @Test func readOnlyKeysStopTheRunBeforeItStarts() async throws {
        let f = try await fixture("readonly")
        defer { f.close() }
        let rgw = try await RGWServer.running()
        let uid = "reader-\(UUID().uuidString.prefix(8).lowercased())"
        let reader = try await rgw.addUser(uid)
        let bucket = f.client.location.bucket
        let policy = """
            {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/\(uid)"]},
             "Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::\(bucket)","arn:aws:s3:::\(bucket)/*"]}]}
            """
        try await f.client.setBucketPolicy(Array(policy.utf8))
        var environment = f.environment
        environment.merge(reader) { _, new in new }
        let out = try await demo(f.dir.appendingPathComponent("a"), environment)
        #expect(out.status == 2, "\(out.stderr)")
        #expect(out.stderr.contains("may not write"), "\(out.stderr)")
        #expect(!out.stderr.contains(reader["AWS_SECRET_ACCESS_KEY"] ?? "?"))
        // Reading is allowed: such keys serve and sync.
        let sync = try await CommandRunner.run(bin, ["sync", "--cache", f.dir.appendingPathComponent("b").path], environment: environment)
        #expect(sync.status == 0, "\(sync.stderr)")
    }

    @Test func anEndpointOnlyInTheProfileIsUsedNeverAWS() async throws {
        let f = try await fixture("profile")
        defer { f.close() }
        let endpoint = try #require(f.environment["AWS_ENDPOINT_URL"])
        let config = f.dir.appendingPathComponent("aws-config")
        let credentials = f.dir.appendingPathComponent("aws-credentials")
        try """
            [profile archive]
            region = us-east-1
            services = local-store
            [services local-store]
            s3 =
              endpoint_url = \(endpoint)
            """.write(to: config, atomically: true, encoding: .utf8)
        try """
            [archive]
            aws_access_key_id = \(f.environment["AWS_ACCESS_KEY_ID"] ?? "")
            aws_secret_access_key = \(f.environment["AWS_SECRET_ACCESS_KEY"] ?? "")
            """.write(to: credentials, atomically: true, encoding: .utf8)
        var environment = f.environment
        for name in ["AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] { environment[name] = "" }
        environment["AWS_PROFILE"] = "archive"
        environment["AWS_CONFIG_FILE"] = config.path
        environment["AWS_SHARED_CREDENTIALS_FILE"] = credentials.path
        environment["AWS_EC2_METADATA_DISABLED"] = "true"
        environment["TWEETCACHE_LOG"] = "debug"
        let out = try await demo(f.dir.appendingPathComponent("a"), environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try await f.client.list("manifests/").count == 1)
        // Which sources were used, at debug level; never the values.
        #expect(out.stderr.contains("profile archive"), "\(out.stderr)")
        #expect(!out.stderr.contains(f.environment["AWS_SECRET_ACCESS_KEY"] ?? "?"))

        // The keys in the environment and the endpoint only in the profile: still the profile's endpoint.
        var mixed = environment
        mixed["AWS_ACCESS_KEY_ID"] = f.environment["AWS_ACCESS_KEY_ID"]
        mixed["AWS_SECRET_ACCESS_KEY"] = f.environment["AWS_SECRET_ACCESS_KEY"]
        mixed["AWS_SHARED_CREDENTIALS_FILE"] = f.dir.appendingPathComponent("none").path
        try """
            [profile archive]
            endpoint_url = \(endpoint)
            """.write(to: config, atomically: true, encoding: .utf8)
        let stats = try await CommandRunner.run(bin, ["stats", "--cache", f.dir.appendingPathComponent("a").path, "--json"],
                                                environment: mixed)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(!stats.stderr.contains("amazonaws.com"))
    }

    @Test func anHTTPSStoreWithAPrivateCAIsReachedThroughAWSCABundleOrCacert() async throws {
        let f = try await fixture("https")
        defer { f.close() }
        let rgw = try await RGWServer.running()
        let https = try #require(rgw.environment["AWS_ENDPOINT_URL_HTTPS"])
        let ca = try #require(rgw.environment["RGW_CA_BUNDLE"])
        var environment = f.environment
        environment["AWS_ENDPOINT_URL"] = https
        environment["AWS_CA_BUNDLE"] = ""
        environment["CURL_CA_BUNDLE"] = ""
        let untrusted = try await CommandRunner.run(bin, ["sync", "--cache", f.dir.appendingPathComponent("a").path],
                                                    environment: environment)
        #expect(untrusted.status == 2)
        #expect(untrusted.stderr.lowercased().contains("certificate"), "\(untrusted.stderr)")
        #expect(untrusted.stderr.components(separatedBy: "TLS certificate").count == 2, "said once: \(untrusted.stderr)")
        // The server refuses it too, rather than start and fail every request (bounded by
        // timeout(1): a server that started would never end on its own).
        let serve = try await CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            ["60", bin.path, "serve", "--cache", f.dir.appendingPathComponent("s").path, "--port", "0"], environment: environment)
        #expect(serve.status == 2, "\(serve.status) \(serve.stderr)")
        #expect(serve.stderr.contains("TLS certificate"), "\(serve.stderr)")

        var bundled = environment
        bundled["AWS_CA_BUNDLE"] = ca
        let viaBundle = try await demo(f.dir.appendingPathComponent("b"), bundled)
        #expect(viaBundle.status == 0, "\(viaBundle.stderr)")
        #expect(try await f.client.list("manifests/").count == 1)

        let viaFlag = try await CommandRunner.run(
            bin, ["stats", "--cache", f.dir.appendingPathComponent("c").path, "--cacert", ca], environment: environment)
        #expect(viaFlag.status == 0, "\(viaFlag.stderr)")
    }

    @Test func aSecondMachineFetchingTheSameResultsDownloadsNothingFromTheOrigin() async throws {
        let f = try await fixture("second")
        defer { f.close() }
        let first = try await sampleFetched(into: f.dir.appendingPathComponent("a"), f.environment)
        #expect(try summary(first)["downloaded"] as? Int ?? 0 > 0)
        let second = try await demo(f.dir.appendingPathComponent("b"), f.environment)
        #expect(second.status == 0, "\(second.stderr)")
        let run = try summary(second)
        #expect(run["downloaded"] as? Int == 0, "\(run)")
        #expect(run["bytes_downloaded"] as? Int == 0)
        let store = try storeSummary(second)
        #expect((store["copied_from_store"] as? Int ?? 0) > 0, "\(store)")
        #expect(store["failed"] as? Int == 0)
    }

    @Test func anObjectDamagedInTheBucketIsPutBackByTheNextRunAndTyped() async throws {
        let f = try await fixture("putback")
        defer { f.close() }
        let cache = f.dir.appendingPathComponent("a")
        _ = try await sampleFetched(into: cache, f.environment)
        let blobs = try await f.client.list("blobs/")
        let victim = try #require(blobs.max { $0.size < $1.size })
        let good = try #require(try await f.client.get(victim.key))
        // Same size, other bytes: only a checksum tells.
        var bad = good
        bad[bad.count / 2] ^= 0xFF
        try await f.client.delete(victim.key)
        _ = try await f.client.put(victim.key, bytes: bad)
        let rerun = try await demo(cache, f.environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect((try storeSummary(rerun)["replaced"] as? Int ?? 0) >= 1)
        #expect(try await f.client.get(victim.key) == good)

        // What the objects are, for anything that reads the bucket directly.
        #expect(try await f.client.head(victim.key)?.contentType?.hasPrefix("image/") == true)
        let pack = try #require(try await f.client.list("derived/").first { $0.key.hasSuffix(".pack") })
        #expect(try await f.client.head(pack.key)?.contentType == "application/vnd.tweetcache.pyramid-pack")
    }

    @Test func verifyOverABucketChecksThumbnailsTilesAndMissingObjectsAndRepairsFromALocalCopy() async throws {
        let f = try await fixture("verify2")
        defer { f.close() }
        let cache = f.dir.appendingPathComponent("a")
        _ = try await sampleFetched(into: cache, f.environment)
        let derived = try await f.client.list("derived/")
        let thumb = try #require(derived.first { $0.key.contains(".thumb-") }?.key)
        let packKey = try #require(derived.first { $0.key.hasSuffix(".pack") }?.key)
        let goodThumb = try #require(try await f.client.get(thumb))
        var pack = try #require(try await f.client.get(packKey))
        let goodPack = pack
        // A tile's byte, past the header and index: only a check of every tile finds it.
        let parsed = try PyramidPack(pack)
        let entry = try #require(parsed.entries.last)
        pack[entry.offset + entry.length / 2] ^= 0x01
        try await f.client.delete(packKey)
        _ = try await f.client.put(packKey, bytes: pack)
        // A sound image of the right kind, but not the one made.
        var otherThumb = goodThumb
        otherThumb[otherThumb.count - 3] ^= 0x01
        try await f.client.delete(thumb)
        _ = try await f.client.put(thumb, bytes: otherThumb)
        let missing = try #require(try await f.client.list("blobs/").first?.key)
        try await f.client.delete(missing)

        let args = ["verify", "--cache", cache.path, "--store", f.client.location.description]
        let found = try await CommandRunner.run(bin, args, environment: f.environment)
        #expect(found.status == 1)
        #expect(found.stdout.contains(thumb) && found.stdout.contains(packKey) && found.stdout.contains(missing), "\(found.stdout)")
        #expect(found.stdout.contains("named by a manifest but not in the bucket"))

        let repaired = try await CommandRunner.run(bin, args + ["--repair"], environment: f.environment)
        #expect(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")
        #expect(repaired.stdout.contains("put back"))
        #expect(try await f.client.get(thumb) == goodThumb)
        #expect(try await f.client.get(packKey) == goodPack)
        #expect(try await f.client.size(missing) != nil)
        let clean = try await CommandRunner.run(bin, args, environment: f.environment)
        #expect(clean.status == 0, "\(clean.stdout)")
        #expect(clean.stdout.contains("no problems"))
    }
}
