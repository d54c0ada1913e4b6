@testable import BlobStore
import TestSupport
import Foundation
import Testing

/// Real processes, real SIGKILLs: the guarantees a unit test cannot fake.
/// Serialized because each test already keeps both cores busy.
@Suite("Crash safety and concurrent processes", .serialized)
struct CrashSafetyTests {
    static let blobSize = 2 * 1024 * 1024
    static let seed: UInt64 = 7_000

    @Test func killingAWriterAtRandomInstantsNeverPublishesABadBlob() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("cache")
        var generator = SystemRandomNumberGenerator()
        var leftoverTemporaryFiles = 0
        var killedMidBlob = 0
        var publishedBeforeKill = 0

        for iteration in 0..<20 {
            let child = try ChildProcess(
                arguments: ["slow-writer", root.path, String(Self.seed), String(Self.blobSize), "49999", "1500"],
                logDirectory: directory.url, label: "slow-\(iteration)", announces: true
            )
            // Killed at a random instant once it is writing: a blob takes it about 80 ms to
            // write (42 pieces, 1.5 ms apart) and 50 ms to publish and record, so 0-250 ms
            // spans its first two blobs and the moments between them. Counted from its start
            // instead, the instants once all fell before its first blob on the suite's busy
            // cores (killedMidBlob 0).
            #expect(await child.firstLine() == "ready", "\(child.standardError)")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &generator)))
            child.kill()
            let exit = try await child.waitForExit()
            #expect(exit.reason == .uncaughtSignal, "child ended on its own: \(child.standardError)")

            // Between a kill and the next open, whatever the child left must be
            // in tmp/ only, and every published name must match its bytes.
            // A kill between the open's probe link and its unlink (microseconds) leaves the
            // probe: named like a writer's file, swept by the next open (checked below).
            leftoverTemporaryFiles += Self.temporaryFiles(root).filter { !$0.contains("-probe") }.count
            if child.standardError.split(separator: "\n").last?.hasPrefix("writing") == true { killedMidBlob += 1 }
            let report = try Self.checkEveryBlob(root)
            #expect(report.bad.isEmpty, "blobs whose content does not match their name: \(report.bad)")
            publishedBeforeKill = report.good
        }

        #expect(killedMidBlob > 0, "no kill landed mid-blob; the test proved nothing")
        // Where blobs in progress are unnamed files (O_TMPFILE), a kill leaves nothing behind.
        if try BlobStore(root: root).writesUnnamedFiles { #expect(leftoverTemporaryFiles == 0) }
        #expect(publishedBeforeKill > 0, "no child ever finished a blob; the test proved nothing")

        // A later open sweeps the dead writers' files and the work can be redone.
        let store = try BlobStore(root: root)
        #expect(Self.temporaryFiles(root).isEmpty)
        let content = TestBytes.pattern(seed: Self.seed, count: Self.blobSize)
        let stored = try store.put(content)
        #expect(stored.hash.hex == TestBytes.sha256Hex(content))
        #expect(try store.verify(stored.hash))
        let next = try store.put(TestBytes.pattern(seed: Self.seed + 1_000, count: Self.blobSize))
        #expect(try store.read(next.hash).count == Self.blobSize)

        // The index survived the kills, and each row points at a real blob.
        let index = try CacheIndex(store: store)
        let rows = try index.allURLRecords()
        #expect(!rows.isEmpty)
        for row in rows {
            #expect(try store.verify(row.hash), "index row \(row.url) points at a bad or missing blob")
        }
    }

    /// Pyramid packs are published like blobs (tmp/, fsync, rename): a kill at any
    /// instant leaves the previous pack or the next one under the name, never part.
    @Test func killingAPackWriterNeverLeavesAHalfPack() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("cache")
        var generator = SystemRandomNumberGenerator()
        let size = 24 * 1024 * 1024
        let owner = BlobHash(hashing: Data(TestBytes.pattern(seed: Self.seed, count: 64)))
        let packPath = root.appendingPathComponent(CacheLayout.pack(owner)).path
        let whole = [[UInt8](repeating: 0xA1, count: size), [UInt8](repeating: 0xB2, count: size)]
        var leftovers = 0
        var found = 0
        for iteration in 0..<16 {
            let child = try ChildProcess(
                arguments: ["pack-writer", root.path, String(Self.seed), String(size)],
                logDirectory: directory.url, label: "pack-\(iteration)", announces: iteration == 0)
            if iteration == 0 {
                // One pack is published before any kill, however loaded the machine, so
                // every later kill meets a pack under its final name to check.
                #expect(await child.firstLine() == "published pack 0")
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...300, using: &generator)))
            child.kill()
            let exit = try await child.waitForExit()
            #expect(exit.reason == .uncaughtSignal, "child ended on its own: \(child.standardError)")
            leftovers += Self.temporaryFiles(root).count
            if let data = FileManager.default.contents(atPath: packPath) {
                found += 1
                #expect(whole.contains([UInt8](data)), "a pack under its final name is one whole version")
            }
        }
        #expect(leftovers > 0, "no kill landed mid-write; the test proved nothing")
        #expect(found > 0, "no pack was ever published; the test proved nothing")
        _ = try BlobStore(root: root)
        #expect(Self.temporaryFiles(root).isEmpty, "the next open sweeps what the dead writers left")
    }

    @Test func twoProcessesWritingOverlappingContentBothSucceed() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("cache")
        let count = 60
        let children = try [11, 22].map { seed in
            try ChildProcess(
                arguments: ["writer", root.path, String(seed), String(count)],
                logDirectory: directory.url, label: "writer-\(seed)"
            )
        }
        for child in children {
            let exit = try await child.waitForExit()
            #expect(exit.reason == .exit && exit.status == 0, "writer failed: \(child.standardError)")
        }

        let store = try BlobStore(root: root)
        let report = try Self.checkEveryBlob(root)
        #expect(report.bad.isEmpty)
        // Even-numbered blobs are shared, odd-numbered ones differ per process.
        let expectedBlobs = count / 2 + 2 * (count / 2)
        #expect(report.good == expectedBlobs)
        #expect(Array(store.allBlobs()).count == expectedBlobs)
        #expect(Self.temporaryFiles(root).isEmpty)

        let index = try CacheIndex(store: store)
        let rows = try index.allURLRecords()
        #expect(rows.count == count / 2 + 2 * (count / 2))
        for row in rows {
            #expect(store.contains(row.hash), "index row \(row.url) points at a missing blob")
            #expect(FileManager.default.fileExists(atPath: store.path(for: row.hash).path))
        }
        #expect(try Set(index.allBlobRecords().map(\.hash)) == Set(store.allBlobs()))
        #expect(try index.allFailures().allSatisfy { $0.attempts == 2 })
        #expect(try index.allFailures().count == count / 3)
    }

    /// Walks blobs/ by hand (not through the store under test) and hashes
    /// every regular file with Hashing directly.
    static func checkEveryBlob(_ root: URL) throws -> (good: Int, bad: [String]) {
        let base = root.appendingPathComponent("blobs/sha256")
        var good = 0
        var bad: [String] = []
        guard FileManager.default.fileExists(atPath: base.path) else { return (0, []) }
        for shard in try FileManager.default.contentsOfDirectory(atPath: base.path) {
            let shardURL = base.appendingPathComponent(shard)
            for name in try FileManager.default.contentsOfDirectory(atPath: shardURL.path) {
                let data = try Data(contentsOf: shardURL.appendingPathComponent(name))
                if TestBytes.sha256Hex(data) == name && name.hasPrefix(shard) {
                    good += 1
                } else {
                    bad.append("\(shard)/\(name)")
                }
            }
        }
        return (good, bad)
    }

    static func temporaryFiles(_ root: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("tmp").path)) ?? []
    }
}
