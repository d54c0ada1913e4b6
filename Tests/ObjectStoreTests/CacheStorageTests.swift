import BlobStore
import Foundation
import ObjectStore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What every ``CacheStorage`` must do, run against each one: a folder and a real
/// RADOS Gateway bucket. The code above the seam (publishing, syncing, serving,
/// verify/gc) relies on exactly these behaviours.
@Suite struct CacheStorageTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case folder, bucket
        var testDescription: String { rawValue }
    }

    /// A fresh, empty store of `backend`, and a scratch folder.
    static func make(_ backend: Backend, _ hint: String) async throws -> (any CacheStorage, URL) {
        let scratch = try ScratchDirectory.make("tc-storage-\(hint)")
        switch backend {
        case .folder:
            let root = scratch.appendingPathComponent("store")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            return (try LocalStorage(root: root), scratch)
        case .bucket:
            return (try await S3ClientTests.client(hint), scratch)
        }
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test(arguments: Backend.allCases)
    func readsWholeRangesAndSizesAndListsByFolder(_ backend: Backend) async throws {
        let (storage, scratch) = try await Self.make(backend, "read")
        defer { storage.shutdown(); try? FileManager.default.removeItem(at: scratch) }
        let body = Self.bytes(10_000)
        #expect(try await storage.store("derived/ab/one.thumb-150.jpg", bytes: body, sha256: nil,
                                        contentType: "image/jpeg", replace: false) == .stored)
        _ = try await storage.store("manifests/run.json", bytes: Array("{}".utf8), sha256: nil,
                                    contentType: "application/json", replace: false)
        #expect(try await storage.get("derived/ab/one.thumb-150.jpg") == body)
        let part = try #require(try await storage.read("derived/ab/one.thumb-150.jpg", range: 100..<250, maxBytes: 1 << 20))
        #expect(part.bytes == Array(body[100..<250]))
        #expect(part.objectSize == 10_000)
        // A range past the end is cut at the end.
        let tail = try #require(try await storage.read("derived/ab/one.thumb-150.jpg", range: 9_990..<20_000, maxBytes: 1 << 20))
        #expect(tail.bytes == Array(body[9_990...]))
        #expect(try await storage.size("derived/ab/one.thumb-150.jpg") == 10_000)
        #expect(try await storage.get("derived/ab/missing.jpg") == nil)
        #expect(try await storage.size("derived/ab/missing.jpg") == nil)
        #expect(try await storage.list("derived/").map(\.key) == ["derived/ab/one.thumb-150.jpg"])
        #expect(try await storage.list("derived/").first?.size == 10_000)
        #expect(try await storage.list("derived/").first?.lastModified != nil)
        #expect(Set(try await storage.list("").map(\.key)) == ["derived/ab/one.thumb-150.jpg", "manifests/run.json"])
        #expect(try await storage.list("blobs/").isEmpty)
        // Larger than the caller accepts is an error, not a silent cut.
        await #expect(throws: StoreError.self) { _ = try await storage.read("derived/ab/one.thumb-150.jpg", maxBytes: 1_000) }

        let copy = scratch.appendingPathComponent("copy")
        #expect(try await storage.download("derived/ab/one.thumb-150.jpg", to: copy))
        #expect(try [UInt8](Data(contentsOf: copy)) == body)
        #expect(try await storage.download("derived/ab/missing.jpg", to: copy) == false)

        try await storage.delete("derived/ab/one.thumb-150.jpg")
        try await storage.delete("derived/ab/one.thumb-150.jpg")  // absent: not an error
        #expect(try await storage.get("derived/ab/one.thumb-150.jpg") == nil)
    }

    @Test(arguments: Backend.allCases)
    func putIfAbsentTrustsOnlyWhatItCanCheck(_ backend: Backend) async throws {
        let (storage, scratch) = try await Self.make(backend, "put")
        defer { storage.shutdown(); try? FileManager.default.removeItem(at: scratch) }
        let good = Self.bytes(5_000)
        let hash = BlobHash(hashing: good)
        let path = CacheLayout.blob(hash)
        let file = scratch.appendingPathComponent("good")
        try Data(good).write(to: file)
        #expect(try await storage.store(path, file: file, sha256: hash.hex, contentType: "image/jpeg") == .stored)
        #expect(try await storage.store(path, file: file, sha256: hash.hex, contentType: "image/jpeg") == .alreadyStored)

        // Other bytes under the name (a damaged or replaced object): "already there"
        // is not taken on its word; the right bytes are put back.
        _ = try await storage.store(path, bytes: Self.bytes(5_000, seed: 9), sha256: nil, contentType: "image/jpeg", replace: true)
        #expect(try await storage.get(path) != good)
        #expect(try await storage.store(path, file: file, sha256: hash.hex, contentType: "image/jpeg") == .replaced)
        #expect(try await storage.get(path) == good)
        // Truncated: the same.
        _ = try await storage.store(path, bytes: Array(good.prefix(100)), sha256: nil, contentType: "image/jpeg", replace: true)
        #expect(try await storage.store(path, bytes: good, sha256: hash.hex, contentType: "image/jpeg", replace: false) == .replaced)
        #expect(try await storage.get(path) == good)

        // Bytes that are not what the name says never become visible.
        let other = CacheLayout.blob(BlobHash(hashing: [1, 2, 3]))
        await #expect(throws: StoreError.self) {
            _ = try await storage.store(other, file: file, sha256: BlobHash(hashing: [1, 2, 3]).hex, contentType: "image/jpeg")
        }
        #expect(try await storage.get(other) == nil)
    }

    @Test(arguments: Backend.allCases)
    func refusesPathsOutsideTheLayout(_ backend: Backend) async throws {
        let (storage, scratch) = try await Self.make(backend, "paths")
        defer { storage.shutdown(); try? FileManager.default.removeItem(at: scratch) }
        for path in ["../escape", "derived/../../escape", "/etc/passwd", "derived//x", "derived/a b", ""] {
            await #expect(throws: StoreError.self, "\(path)") {
                _ = try await storage.store(path, bytes: [1], sha256: nil, contentType: "text/plain", replace: true)
            }
            await #expect(throws: StoreError.self, "\(path)") { _ = try await storage.get(path) }
        }
    }

    /// A symlink planted in a shared folder (another machine's user, a mistake) is
    /// never followed: not to read, list, write or delete.
    @Test func aFolderStoreNeverFollowsASymlink() async throws {
        let scratch = try ScratchDirectory.make("tc-storage-link")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("store")
        let outside = scratch.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("derived"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: outside.appendingPathComponent("x.thumb-150.jpg"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("derived/ab"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("derived/cd.jpg"),
                                                   withDestinationURL: outside.appendingPathComponent("x.thumb-150.jpg"))
        let storage = try LocalStorage(root: root)
        await #expect(throws: StoreError.self) { _ = try await storage.get("derived/ab/x.thumb-150.jpg") }
        await #expect(throws: StoreError.self) { _ = try await storage.get("derived/cd.jpg") }
        #expect(try await storage.list("derived/").isEmpty)
        await #expect(throws: StoreError.self) {
            _ = try await storage.store("derived/ab/new.jpg", bytes: [1], sha256: nil, contentType: "image/jpeg", replace: true)
        }
        await #expect(throws: StoreError.self) { try await storage.delete("derived/ab/x.thumb-150.jpg") }
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("x.thumb-150.jpg").path))
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("new.jpg").path))
    }

    /// A write is all or nothing: the temporary file a crash leaves is never listed
    /// or read as an object.
    @Test func aFolderStoreHidesTemporaryFiles() async throws {
        let scratch = try ScratchDirectory.make("tc-storage-tmp")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("blobs/sha256/ab"), withIntermediateDirectories: true)
        try Data([1, 2]).write(to: root.appendingPathComponent("blobs/sha256/ab/.tc-tmp-1234"))
        let storage = try LocalStorage(root: root)
        #expect(try await storage.list("").isEmpty)
        await #expect(throws: StoreError.self) { _ = try await storage.get("blobs/sha256/ab/.tc-tmp-1234") }
    }
}
