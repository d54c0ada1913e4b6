@testable import BlobStore
import TestSupport
import Foundation
import Testing

@Suite("BlobWriter")
struct BlobWriterTests {
    static let content = TestBytes.pattern(seed: 42, count: 1_300_000)

    /// Chunk sizes around the 256 KiB buffer edges and libcurl's usual 16 KiB.
    @Test(arguments: [1, 7, 4096, 16_384, 65_536, 262_143, 262_144, 262_145, 600_000, 1_300_000, 2_000_000])
    func streamingEqualsOneShot(chunkSize: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        // Byte-at-a-time over 1.3 MB is slow in debug builds; a prefix keeps the edge.
        let bytes = chunkSize == 1 ? Array(Self.content.prefix(300_000)) : Self.content

        let writer = try store.makeWriter()
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunkSize, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
            #expect(writer.byteCount == offset)
        }
        let streamed = try writer.finish()

        #expect(streamed.hash.hex == TestBytes.sha256Hex(bytes))
        #expect(streamed.size == bytes.count)
        #expect(try store.read(streamed.hash) == bytes)
        #expect(try store.put(bytes).alreadyPresent)
    }

    @Test func irregularChunksEqualOneShot() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let writer = try store.makeWriter()
        var offset = 0
        var step = 0
        let sizes = [0, 3, 262_140, 10, 1, 300_000, 0, 99_999, 262_144, 5]
        while offset < Self.content.count {
            let end = min(offset + sizes[step % sizes.count], Self.content.count)
            try Self.content[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
            step += 1
        }
        let streamed = try writer.finish()
        #expect(streamed.hash == BlobHash(hashing: Self.content))
        #expect(try store.verify(streamed.hash))
    }

    @Test func discardLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url, allowUnnamedFiles: false)
        let writer = try store.makeWriter()
        try writer.write(Array(Self.content.prefix(500_000)))
        #expect(try Self.temporaryFiles(directory).count == 1)

        writer.discard()
        writer.discard()  // harmless twice

        #expect(try Self.temporaryFiles(directory).isEmpty)
        #expect(Array(store.allBlobs()).isEmpty)
        #expect(throws: BlobStoreError.self) { try writer.write(Array("more".utf8)) }
        #expect(throws: BlobStoreError.self) { try writer.finish() }
    }

    @Test func droppingAnUnfinishedWriterRemovesItsFile() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url, allowUnnamedFiles: false)
        do {
            let writer = try store.makeWriter()
            try writer.write(Array("abandoned".utf8))
            #expect(try Self.temporaryFiles(directory).count == 1)
        }
        #expect(try Self.temporaryFiles(directory).isEmpty)
    }

    @Test func aFinishedWriterRefusesMoreWork() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let writer = try store.makeWriter()
        try writer.write(Array("done".utf8))
        let stored = try writer.finish()
        do {
            try writer.write(Array("late".utf8))
            Issue.record("write after finish succeeded")
        } catch {
            guard case .writerClosed = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.description.contains("already finished or discarded"))
        }
        writer.discard()  // must not remove the published blob
        #expect(try store.read(stored.hash) == Array("done".utf8))
        #expect(try Self.temporaryFiles(directory).isEmpty)
    }

    @Test func retryingWithAFreshWriterWorks() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let first = try store.makeWriter()
        try first.write(Array(Self.content.prefix(100_000)))
        first.discard()  // "the download failed half way"
        let second = try store.makeWriter()
        try second.write(Self.content)
        let stored = try second.finish()
        #expect(stored.hash == BlobHash(hashing: Self.content))
        #expect(!stored.alreadyPresent)
    }

    static func temporaryFiles(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appending("tmp").path)
    }

    @Test func deferredDirectoryFlushesWaitForSync() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let pending = PendingDirectories()
        var stored: [StoredBlob] = []
        for seed in 0..<5 {
            let writer = try store.makeWriter(deferringDirectorySync: pending)
            try writer.write(TestBytes.pattern(seed: UInt64(seed), count: 10_000))
            stored.append(try writer.finish())
        }
        // Published and readable at once; only the directories' flush waits.
        for blob in stored {
            #expect(store.contains(blob.hash))
            #expect(try store.verify(blob.hash))
        }
        #expect(!pending.isEmpty)
        try pending.sync()
        #expect(pending.isEmpty)
        // The same bytes again (the name exists): the directories are queued anyway,
        // since another writer's flush of that name may still be pending.
        let again = try store.makeWriter(deferringDirectorySync: pending)
        try again.write(TestBytes.pattern(seed: 0, count: 10_000))
        #expect(try again.finish().alreadyPresent)
        #expect(!pending.isEmpty)
    }
}

@Suite struct UnnamedBlobFileTests {
    @Test func aBlobInProgressHasNoNameAnywhere() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        // Linux with /proc and ext4 or tmpfs, as here and in CI; elsewhere (overlayfs before
        // Linux 6.6, say) the store falls back to named files, tested below.
        try #require(store.writesUnnamedFiles)
        let writer = try store.makeWriter()
        try writer.write(TestBytes.pattern(seed: 3, count: 300_000))
        #expect(try BlobWriterTests.temporaryFiles(directory).isEmpty)
        let stored = try writer.finish()
        #expect(try store.verify(stored.hash))
        #expect(try BlobWriterTests.temporaryFiles(directory).isEmpty)
        let discarded = try store.makeWriter()
        try discarded.write(TestBytes.pattern(seed: 4, count: 1_000))
        discarded.discard()
        #expect(try BlobWriterTests.temporaryFiles(directory).isEmpty)
        #expect(Array(store.allBlobs()).count == 1)
    }

    @Test func aDamagedCopyIsReplacedAndAGoodOneKept() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let bytes = TestBytes.pattern(seed: 9, count: 70_000)
        let first = try store.makeWriter()
        try first.write(bytes)
        let stored = try first.finish()
        let again = try store.makeWriter()
        try again.write(bytes)
        #expect(try again.finish().alreadyPresent)
        // Truncate the published copy behind the store's back: its size cannot match its name.
        try Data(bytes.prefix(100)).write(to: stored.path)
        let repair = try store.makeWriter()
        try repair.write(bytes)
        #expect(try !repair.finish().alreadyPresent)
        #expect(try store.verify(stored.hash))
        #expect(try BlobWriterTests.temporaryFiles(directory).isEmpty)
    }

    @Test func manyWritersFinishingTogetherAreAllFlushedAndPublished() async throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let hashes = try await withThrowingTaskGroup(of: BlobHash.self) { group in
            for seed in 0..<48 {
                group.addTask {
                    try await withCheckedThrowingContinuation { (done: CheckedContinuation<BlobHash, any Error>) in
                        // Real threads, as the fetcher's publishing threads are, so flushes overlap.
                        Thread {
                            done.resume(with: Result {
                                let writer = try store.makeWriter()
                                try writer.write(TestBytes.pattern(seed: UInt64(seed), count: 20_000 + seed))
                                return try writer.finish().hash
                            })
                        }.start()
                    }
                }
            }
            return try await group.reduce(into: Set<BlobHash>()) { $0.insert($1) }
        }
        #expect(hashes.count == 48)
        for hash in hashes { #expect(try store.verify(hash)) }
    }
}

@Suite struct ShardFolderTests {
    @Test(arguments: [true, false])
    func aShardFolderRemovedBehindTheStoresBackIsMadeAgain(unnamed: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url, allowUnnamedFiles: unnamed)
        let bytes = TestBytes.pattern(seed: 21, count: 5_000)
        let first = try store.makeWriter()
        try first.write(bytes)
        let stored = try first.finish()
        // The store remembers the shard folder exists; take it away.
        try FileManager.default.removeItem(at: stored.path.deletingLastPathComponent())
        let again = try store.makeWriter()
        try again.write(bytes)
        #expect(try !again.finish().alreadyPresent)
        #expect(try store.verify(stored.hash))
    }
}
