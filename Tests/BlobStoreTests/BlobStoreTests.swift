@testable import BlobStore
import TestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("BlobStore")
struct BlobStoreTests {
    @Test func createsTheLayout() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("nested/cache")
        _ = try BlobStore(root: root)
        var isDirectory: ObjCBool = false
        for sub in ["blobs/sha256", "tmp"] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(sub).path, isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
        }
    }

    @Test func putThenReadRoundTripsUnderTheSHA256Name() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let bytes = TestBytes.pattern(seed: 1, count: 100_000)
        let expected = TestBytes.sha256Hex(bytes)

        let stored = try store.put(bytes)

        #expect(stored.hash.hex == expected)
        #expect(stored.size == bytes.count)
        #expect(!stored.alreadyPresent)
        let relative = "blobs/sha256/\(expected.prefix(2))/\(expected)"
        #expect(stored.path.path == directory.url.appendingPathComponent(relative).standardizedFileURL.path)
        #expect(store.path(for: stored.hash) == stored.path)
        #expect(try Data(contentsOf: stored.path) == Data(bytes))
        #expect(try store.read(stored.hash) == bytes)
        #expect(store.contains(stored.hash))
        #expect(try store.verify(stored.hash))
    }

    @Test func putAcceptsDataAndEmptyContent() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let empty = try store.put(Data())
        #expect(empty.hash.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(empty.size == 0)
        #expect(try store.read(empty.hash).isEmpty)
        let data = Data("some bytes".utf8)
        #expect(try store.read(store.put(data).hash) == Array(data))
    }

    @Test func putIsIdempotent() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let bytes = TestBytes.pattern(seed: 2, count: 5_000)
        let first = try store.put(bytes)
        let second = try store.put(bytes)
        #expect(!first.alreadyPresent)
        #expect(second.alreadyPresent)
        #expect(first.hash == second.hash)
        #expect(Array(store.allBlobs()) == [first.hash])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appending("tmp").path).isEmpty)
    }

    @Test func concurrentPutsOfTheSameContentPublishOnce() async throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let bytes = TestBytes.pattern(seed: 3, count: 300_000)
        let results = try await withThrowingTaskGroup(of: StoredBlob.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    // Streaming writers skip put's fast path, so all eight race to link.
                    let writer = try store.makeWriter()
                    try writer.write(bytes)
                    return try writer.finish()
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.hash)).count == 1)
        #expect(results.filter { !$0.alreadyPresent }.count == 1)
        #expect(try store.verify(results[0].hash))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appending("tmp").path).isEmpty)
    }

    @Test func readAndVerifyOfAMissingBlobSayNotFound() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let hash = BlobHash(hashing: Array("never stored".utf8))
        #expect(!store.contains(hash))
        #expect(throws: BlobStoreError.blobNotFound(hash, path: store.path(for: hash).path)) {
            try store.read(hash)
        }
        #expect(throws: BlobStoreError.blobNotFound(hash, path: store.path(for: hash).path)) {
            try store.verify(hash)
        }
        let message = BlobStoreError.blobNotFound(hash, path: store.path(for: hash).path).description
        #expect(message.contains(hash.hex) && message.contains("not in the cache"))
    }

    @Test func verifyDetectsBytesAlteredOnDisk() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let bytes = TestBytes.pattern(seed: 4, count: 3 * 1024 * 1024 + 17)
        let stored = try store.put(bytes)
        #expect(try store.verify(stored.hash))

        var altered = bytes
        altered[2 * 1024 * 1024 + 5] ^= 0x01
        try Data(altered).write(to: stored.path)
        #expect(try store.verify(stored.hash) == false)
    }

    @Test func putRepairsACopyWhoseSizeCannotMatchItsName() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let bytes = TestBytes.pattern(seed: 5, count: 10_000)
        let stored = try store.put(bytes)
        try Data(bytes.prefix(100)).write(to: stored.path)  // truncated on disk

        let again = try store.put(bytes)
        #expect(!again.alreadyPresent)
        #expect(try store.verify(stored.hash))
        #expect(try store.read(stored.hash) == bytes)
    }

    @Test func allBlobsListsExactlyTheStoredHashes() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        var expected: [BlobHash] = []
        for seed in 0..<40 {
            expected.append(try store.put(TestBytes.pattern(seed: UInt64(seed), count: 64 + seed)).hash)
        }
        // Junk a listing must not mistake for blobs.
        let shard = directory.appending("blobs/sha256/\(expected[0].shard)")
        try Data("x".utf8).write(to: shard.appendingPathComponent("notes.txt"))
        try Data("x".utf8).write(to: shard.appendingPathComponent(expected[0].hex.uppercased()))
        let misplaced = BlobHash(hashing: Array("misplaced".utf8))
        let wrongShard = expected.first { $0.shard != misplaced.shard }!.shard
        try Data("x".utf8).write(to: directory.appending("blobs/sha256/\(wrongShard)/\(misplaced.hex)"))
        try FileManager.default.createDirectory(at: directory.appending("blobs/sha256/zz"), withIntermediateDirectories: true)

        #expect(Array(store.allBlobs()) == expected.sorted())
    }

    @Test func removeDeletesOnlyThatBlob() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        let a = try store.put(Array("a".utf8)).hash
        let b = try store.put(Array("b".utf8)).hash
        #expect(try store.remove(a))
        #expect(try store.remove(a) == false)
        #expect(!store.contains(a))
        #expect(store.contains(b))
        #expect(Array(store.allBlobs()) == [b])
    }

    @Test func staleTemporaryFilesAreSweptOnOpen() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url, allowUnnamedFiles: false)
        let tmp = directory.appending("tmp")

        let deadPID = try Self.pidOfAnExitedProcess()
        let dead = tmp.appendingPathComponent("tc-\(deadPID)-abc.part")
        let mine = tmp.appendingPathComponent("tc-\(getpid())-def.part")
        let oldMine = tmp.appendingPathComponent("tc-\(getpid())-old.part")
        let foreign = tmp.appendingPathComponent("unrelated.bin")
        for url in [dead, mine, oldMine, foreign] {
            try Data("partial".utf8).write(to: url)
        }
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: oldMine.path)

        let live = try store.makeWriter()
        try live.write(Array("in progress".utf8))

        _ = try BlobStore(root: directory.url)  // a second open, as another run would

        let left = Set(try FileManager.default.contentsOfDirectory(atPath: tmp.path))
        #expect(!left.contains(dead.lastPathComponent))
        #expect(!left.contains(oldMine.lastPathComponent))
        #expect(left.contains(mine.lastPathComponent))
        #expect(left.contains(foreign.lastPathComponent))
        #expect(left.count == 3)  // plus the live writer's file
        let stored = try live.finish()
        #expect(try store.read(stored.hash) == Array("in progress".utf8))
    }

    @Test func openingOverAFileReportsThePathAndReason() throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("not-a-directory")
        try Data("x".utf8).write(to: file)
        do {
            _ = try BlobStore(root: file)
            Issue.record("opening a store over a regular file succeeded")
        } catch {
            #expect(error.description.contains(file.path))
            #expect(error.description.contains("Not a directory"))
            #expect(error.systemErrorCode == ENOTDIR)
        }
    }

    /// A PID that certainly belongs to no running process.
    static func pidOfAnExitedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
