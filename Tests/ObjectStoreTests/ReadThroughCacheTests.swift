import BlobStore
import Foundation
import ObjectStore
import TestSupport
import Testing

/// The bounded local copy of a bucket, against a real RADOS Gateway.
@Suite struct ReadThroughCacheTests {
    func setUp(_ hint: String) async throws -> (S3Client, URL) {
        let client = try await S3ClientTests.client(hint)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rtc-\(UUID().uuidString)")
        return (client, folder)
    }

    func folderBytes(_ folder: URL) throws -> Int {
        try FileManager.default.subpathsOfDirectory(atPath: folder.path).reduce(0) { total, path in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(path).path)
            return total + ((attributes[.type] as? FileAttributeType) == .typeRegular ? (attributes[.size] as? Int ?? 0) : 0)
        }
    }

    @Test func aSecondReadComesFromDiskAndTheCopyStaysUnderItsBound() async throws {
        let (client, folder) = try await setUp("bound")
        defer { client.shutdown(); try? FileManager.default.removeItem(at: folder) }
        let objects = (0..<40).map { n in (path: "blobs/sha256/aa/\(n)", bytes: [UInt8](repeating: UInt8(n), count: 10_000)) }
        for object in objects { _ = try await client.put(object.path, bytes: object.bytes) }
        let cache = try ReadThroughCache(storage: client, folder: folder, capacity: 100_000)
        #expect(try await cache.object(objects[0].path, limit: 1 << 20) == objects[0].bytes)
        #expect(try await cache.object(objects[0].path, limit: 1 << 20) == objects[0].bytes)
        #expect(cache.statistics.hits == 1)
        for object in objects {
            #expect(try await cache.object(object.path, limit: 1 << 20) == object.bytes)
            #expect(try folderBytes(folder) <= 100_000)
        }
        #expect(cache.statistics.evictions > 0)
        #expect(cache.statistics.bytes <= 100_000)
        // The most recently used are the ones kept.
        let before = cache.statistics.hits
        #expect(try await cache.object(objects[39].path, limit: 1 << 20) == objects[39].bytes)
        #expect(cache.statistics.hits == before + 1)
        // A restart finds the copy on disk, and a smaller bound trims it, oldest first.
        // (File times are coarse: the newest is dated ahead, so no tie decides.)
        let newest = folder.appendingPathComponent(objects[39].path)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: newest.path)
        let reopened = try ReadThroughCache(storage: client, folder: folder, capacity: 30_000)
        #expect(reopened.statistics.bytes <= 30_000)
        #expect(try folderBytes(folder) <= 30_000)
        #expect(try await reopened.object(objects[39].path, limit: 1 << 20) == objects[39].bytes)
        #expect(reopened.statistics.hits == 1)
    }

    /// Each stream holds its object until it is checked: past a few arriving at once,
    /// readers get the one shared whole read instead, so many visitors asking cold
    /// originals cannot multiply the memory.
    @Test func streamsPastAFewAtOnceBecomeOneSharedWholeRead() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rtc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("store"), withIntermediateDirectories: true)
        let storage = HeldStreams(try LocalStorage(root: root.appendingPathComponent("store")))
        let objects = (0..<6).map { n -> (path: String, bytes: [UInt8], hash: BlobHash) in
            let bytes = [UInt8](repeating: UInt8(n), count: 50_000)
            let hash = BlobHash(hashing: bytes)
            return ("blobs/sha256/\(hash.shard)/\(hash.hex)", bytes, hash)
        }
        for object in objects {
            _ = try await storage.store(object.path, bytes: object.bytes, sha256: object.hash.hex, contentType: "image/jpeg", replace: false)
        }
        let cache = try ReadThroughCache(storage: storage, folder: root.appendingPathComponent("copy"), capacity: 1 << 20)
        func open(_ n: Int) async throws -> ObjectStream {
            try #require(try await cache.stream(objects[n].path, limit: 1 << 20, expecting: [objects[n].hash], stall: .seconds(10)))
        }
        func read(_ stream: ObjectStream) async throws -> [UInt8] {
            var bytes: [UInt8] = []
            for try await chunk in stream.chunks { bytes += chunk }
            return bytes
        }
        // Four still arriving from the store: the fifth reader gets a whole, checked read.
        var arriving: [ObjectStream] = []
        for n in 0..<4 { arriving.append(try await open(n)) }
        #expect(storage.opened == 4)
        let fifth = try await open(4)
        #expect(storage.opened == 4, "not streamed")
        #expect(cache.local(objects[4].path) == objects[4].bytes, "read whole, checked and kept first")
        #expect(try await read(fifth) == objects[4].bytes)
        // One stream ends (its copy kept): the next reader streams again.
        storage.release(objects[0].path)
        #expect(try await read(arriving[0]) == objects[0].bytes)
        #expect(cache.local(objects[0].path) == objects[0].bytes)
        let sixth = try await open(5)
        #expect(storage.opened == 5)
        storage.release(objects[5].path)
        #expect(try await read(sixth) == objects[5].bytes)
        for n in 1..<4 { storage.release(objects[n].path) }
        for n in 1..<4 { #expect(try await read(arriving[n]) == objects[n].bytes) }
    }

    @Test func rangesAreFetchedOnceAndCarryTheObjectsSize() async throws {
        let (client, folder) = try await setUp("ranges")
        defer { client.shutdown(); try? FileManager.default.removeItem(at: folder) }
        let bytes = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        _ = try await client.put("derived/ab/x.pack", bytes: bytes)
        let cache = try ReadThroughCache(storage: client, folder: folder, capacity: 1 << 20)
        let first = try #require(try await cache.range("derived/ab/x.pack", offset: 1_000, length: 300))
        #expect(first.bytes == Array(bytes[1_000..<1_300]))
        #expect(first.objectSize == 50_000)
        let again = try #require(try await cache.range("derived/ab/x.pack", offset: 1_000, length: 300))
        #expect(again.bytes == first.bytes && again.objectSize == 50_000)
        #expect(cache.statistics.hits == 1)
        // Only the range is on disk, never the whole object.
        #expect(try folderBytes(folder) == 300 + 8)
    }

    @Test func aMissingKeyIsBelievedMissingForAWhileThenAskedAgain() async throws {
        let (client, folder) = try await setUp("absent")
        defer { client.shutdown(); try? FileManager.default.removeItem(at: folder) }
        let clock = TestSupport.ManualClock()
        let cache = try ReadThroughCache(storage: client, folder: folder, capacity: 1 << 20, absentFor: 30, clock: clock)
        #expect(try await cache.object("derived/cd/late.thumb-150.jpg", limit: 1 << 20) == nil)
        // Another machine stores it now; within the 30 s it is still believed absent.
        _ = try await client.put("derived/cd/late.thumb-150.jpg", bytes: [1, 2, 3])
        #expect(try await cache.object("derived/cd/late.thumb-150.jpg", limit: 1 << 20) == nil)
        // 31 s later it is asked again, though the system's date was set back an hour meanwhile.
        clock.stepDate(by: .seconds(-3600))
        clock.advance(by: .seconds(31))
        #expect(try await cache.object("derived/cd/late.thumb-150.jpg", limit: 1 << 20) == [1, 2, 3])
    }
}

/// A folder whose streams send their bytes only when the test says: what a store
/// still sending looks like.
final class HeldStreams: CacheStorage, @unchecked Sendable {
    let base: LocalStorage
    private let lock = NSLock()
    private var waiting: [String: (bytes: [UInt8], continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation)] = [:]
    private var streams = 0
    /// Streams opened so far.
    var opened: Int { lock.withLock { streams } }

    init(_ base: LocalStorage) { self.base = base }

    func stream(_ path: String, maxBytes: Int, stall: Duration) async throws(StoreError) -> ObjectStream? {
        guard let found = try await base.read(path, range: nil, maxBytes: maxBytes) else { return nil }
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        lock.withLock {
            streams += 1
            waiting[path] = (found.bytes, continuation)
        }
        return ObjectStream(size: found.objectSize, chunks: chunks)
    }

    /// Sends the held stream of `path` its bytes, in two pieces, and ends it.
    func release(_ path: String) {
        guard let held = lock.withLock({ waiting.removeValue(forKey: path) }) else { return }
        let half = held.bytes.count / 2
        held.continuation.yield(Array(held.bytes[..<half]))
        held.continuation.yield(Array(held.bytes[half...]))
        held.continuation.finish()
    }

    var address: String { base.address }
    func list(_ folder: String) async throws(StoreError) -> [StoredObject] { try await base.list(folder) }
    func read(_ path: String, range: Range<Int>?, maxBytes: Int) async throws(StoreError) -> ObjectBytes? {
        try await base.read(path, range: range, maxBytes: maxBytes)
    }
    func download(_ path: String, to file: URL) async throws(StoreError) -> Bool { try await base.download(path, to: file) }
    func size(_ path: String) async throws(StoreError) -> Int? { try await base.size(path) }
    func store(_ path: String, file: URL, sha256: String?, contentType: String) async throws(StoreError) -> PutOutcome {
        try await base.store(path, file: file, sha256: sha256, contentType: contentType)
    }
    func store(_ path: String, bytes: [UInt8], sha256: String?, contentType: String, replace: Bool) async throws(StoreError) -> PutOutcome {
        try await base.store(path, bytes: bytes, sha256: sha256, contentType: contentType, replace: replace)
    }
    func delete(_ path: String) async throws(StoreError) { try await base.delete(path) }
    func probe() async throws(StoreError) { try await base.probe() }
    func checkWritable() async throws(StoreError) { try await base.checkWritable() }
    var health: StoreHealth? { nil }
    func shutdown() {}
}
