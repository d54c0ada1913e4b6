@testable import BlobStore
import TestSupport
import Foundation
import Logging
import Testing
@testable import Pipeline

/// A batch whose directories cannot be flushed yet is not lost: its rows wait and are
/// written with the next batch, and never before their blobs' directories are durable.
@Suite struct IndexRecorderTests {
    @Test func aBatchThatCannotBeFlushedIsRecordedWithTheNext() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tc-recorder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try BlobStore(root: root)
        let index = try CacheIndex(store: store)
        let pending = PendingDirectories()
        // A folder the flush needs that does not exist yet: flushing fails until it does.
        let later = root.appendingPathComponent("later").path
        pending.insert(later)
        var recorder = IndexRecorder(index: index, directories: pending, logger: Logger(label: "test"))
        recorder.batchSize = 1
        recorder.maxBatchSize = 1

        let first = try store.put(Data("first".utf8))
        recorder.stored(urls: ["https://example.com/1"], blob: first, kind: .jpeg, status: 200)
        await recorder.settled()
        #expect(try index.lookup(url: "https://example.com/1") == nil)

        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: false)
        let second = try store.put(Data("second".utf8))
        recorder.stored(urls: ["https://example.com/2"], blob: second, kind: .jpeg, status: 200)
        await recorder.finish()
        #expect(try index.lookup(url: "https://example.com/1")?.hash == first.hash)
        #expect(try index.lookup(url: "https://example.com/2")?.hash == second.hash)
        #expect(pending.isEmpty)
    }
}
