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
        let clock = VirtualClock()
        let cache = try ReadThroughCache(storage: client, folder: folder, capacity: 1 << 20, absentFor: 30,
                                         now: { clock.now() })
        #expect(try await cache.object("derived/cd/late.thumb-150.jpg", limit: 1 << 20) == nil)
        // Another machine stores it now; within the 30 s it is still believed absent.
        _ = try await client.put("derived/cd/late.thumb-150.jpg", bytes: [1, 2, 3])
        #expect(try await cache.object("derived/cd/late.thumb-150.jpg", limit: 1 << 20) == nil)
        try await clock.sleep(for: .seconds(31))
        #expect(try await cache.object("derived/cd/late.thumb-150.jpg", limit: 1 << 20) == [1, 2, 3])
    }
}
