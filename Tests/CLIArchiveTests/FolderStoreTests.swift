import BlobStore
import Foundation
import ObjectStore
import Testing
import TestSupport

/// `--store file:///PATH`: a folder every machine mounts, through the same seam
/// as a bucket, end to end with the real binary and the built-in sample.
@Suite struct FolderStoreTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    /// Configuration that is wrong says so, naming where it came from; a folder store
    /// not there yet is made.
    @Test func storeSettingsSayWhereTheyCameFromAndAFolderStoreIsMade() async throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("c").path
        // The environment's mistake is the environment's: not "--store".
        let fromEnvironment = try await CommandRunner.run(
            bin, ["stats", "--cache", cache], environment: ["TWEETCACHE_STORE": "s3://Not_A_Bucket"])
        #expect(fromEnvironment.status == 64)
        #expect(fromEnvironment.stderr.contains("$TWEETCACHE_STORE: "), "\(fromEnvironment.stderr)")
        #expect(!fromEnvironment.stderr.contains("--store: "))
        let fromFlag = try await CommandRunner.run(bin, ["stats", "--cache", cache, "--store", "s3://Not_A_Bucket"])
        #expect(fromFlag.status == 64 && fromFlag.stderr.contains("--store: "), "\(fromFlag.stderr)")
        // An empty part in a prefix is refused, not read as another prefix.
        let doubled = try await CommandRunner.run(bin, ["stats", "--cache", cache, "--store", "s3://tweets/archive//2026"])
        #expect(doubled.status == 64)
        #expect(doubled.stderr.contains("empty part") && doubled.stderr.contains("s3://tweets/archive/2026"), "\(doubled.stderr)")
        // A folder store that does not exist yet is made by the first command to use it.
        let folder = dir.appendingPathComponent("new/shared")
        let made = try await CommandRunner.run(bin, ["stats", "--cache", cache, "--store", folder.absoluteString])
        #expect(made.status == 0, "\(made.stderr)")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test func aFolderStoreIsPublishedSyncedVerifiedAndCollectedLikeABucket() async throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        // A filled cache is all this needs: the sample's photos at a quarter of their size.
        let environment = smallDemo.merging(["TWEETCACHE_STORE": shared.absoluteString]) { _, new in new }
        let first = dir.appendingPathComponent("first"), second = dir.appendingPathComponent("second")

        let fetched = try await CommandRunner.run(bin, ["demo", "--cache", first.path, "--json", "--quiet"], environment: environment)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let store = try #require(try summary(fetched)["store"] as? [String: Any])
        #expect(store["failed"] as? Int == 0)
        #expect(store["location"] as? String == shared.absoluteString)
        let manifestKey = try #require(store["manifest_key"] as? String)
        #expect(FileManager.default.fileExists(atPath: shared.appendingPathComponent(manifestKey).path))
        #expect(try await ManifestSchema.problems([shared.appendingPathComponent(manifestKey)]) == "")

        let stats = try await CommandRunner.run(bin, ["stats", "--cache", second.path, "--json"], environment: environment)
        #expect(stats.status == 0, "\(stats.stderr)")
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect((counts["originals"] as? Int ?? 0) > 0)
        #expect(counts["manifests"] as? Int == 1)
        // The first machine's own cache, counted by `stats` as `stats --store` counts the
        // folder: the same originals, the same bytes, the same manifest.
        let local = try await CommandRunner.run(bin, ["stats", "--cache", first.path, "--json"])
        #expect(local.status == 0, "\(local.stderr)")
        let own = try #require((try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])?["objects"]
            as? [String: Any])
        for key in ["originals", "original_bytes", "manifests"] {
            #expect(own[key] as? Int == counts[key] as? Int, "\(key): \(own) against \(counts)")
        }

        let sync = try await CommandRunner.run(bin, ["sync", "--cache", second.path], environment: environment)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: CacheLayout(root: second).path(manifestKey)))

        // A garbage original in the shared folder is found and put back from the
        // first machine's verified copy.
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: shared.appendingPathComponent("blobs").path)
            .filter { $0.count > 64 }
        let damaged = shared.appendingPathComponent("blobs").appendingPathComponent(try #require(blobs.first))
        let good = try Data(contentsOf: damaged)
        try Data("garbage".utf8).write(to: damaged)
        let found = try await CommandRunner.run(bin, ["verify", "--cache", first.path, "--store", shared.absoluteString],
                                                environment: [:])
        #expect(found.status == 1)
        #expect(found.stdout.contains("not to its name"), "\(found.stdout)")
        let repaired = try await CommandRunner.run(bin, ["verify", "--repair", "--cache", first.path, "--store", shared.absoluteString],
                                                   environment: [:])
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
        #expect(try Data(contentsOf: damaged) == good)

        let collected = try await CommandRunner.run(bin, ["gc", "--cache", first.path, "--store", shared.absoluteString, "--dry-run"],
                                                    environment: [:])
        #expect(collected.status == 0, "\(collected.stderr)")
        #expect(collected.stdout.contains("would remove 0"), "\(collected.stdout)")

        let bad = try await CommandRunner.run(bin, ["stats", "--cache", second.path, "--store", "file://relative/path"], environment: [:])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("file:///ABSOLUTE/PATH"), "\(bad.stderr)")
    }
}
