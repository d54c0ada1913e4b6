import Foundation
import LiveSearch
import Pipeline
import Synchronization
import Testing
import TestSupport

/// The stream collector's promises: a batch closes at its size or its age (on the
/// clock it is given), cursors move only past cached batches, and what a batch that
/// was not cached held is there for the next watch.
@Suite struct StreamCollectorTests {
    final class Flushes: Sendable {
        let batches = Mutex<[StreamCollector.Batch]>([])
        let succeed = Mutex(true)
        func run(_ batch: StreamCollector.Batch) -> Bool {
            batches.withLock { $0.append(batch) }
            return succeed.withLock { $0 }
        }
        var count: Int { batches.withLock { $0.count } }
    }

    func post(_ n: Int) -> StreamEvent { .post(id: "p\(n)", document: Array(#"{"id":"p\#(n)","content":"line\#nbreak"}"#.utf8)) }

    @Test func batchesCloseAtTheirSizeOrAgeAndCursorsFollowThem() async throws {
        let cache = try ScratchDirectory.make("tc-collector")
        let clock = ManualClock()
        let flushes = Flushes()
        var options = StreamCollector.Options()
        options.batchPosts = 3
        options.batchInterval = .seconds(60)
        let collector = StreamCollector(cacheRoot: cache, name: "test", options: options, clock: clock) { flushes.run($0) }
        for n in 1...3 {
            await collector.receive(post(n), stream: "s", network: .mastodon)
            await collector.receive(.cursor("c\(n)"), stream: "s", network: .mastodon)
        }
        await collector.receive(.deleted(id: "p0"), stream: "s", network: .mastodon)
        await collector.receive(post(4), stream: "s", network: .mastodon)
        // The system's date set an hour forward does not age the batch...
        clock.stepDate(by: .seconds(3600))
        await collector.tick()
        await collector.receive(post(5), stream: "s", network: .mastodon)
        // ...nor two hours back hold it: not old enough yet, then old enough.
        clock.stepDate(by: .seconds(-7200))
        clock.advance(by: .seconds(59))
        await collector.tick()
        clock.advance(by: .seconds(1))
        await collector.tick()
        // Sealed by its age, so cached (the worker caches what is sealed by then at once:
        // the next post's batch must not join it).
        var polls = 0
        while flushes.count < 2, polls < 100_000 { polls += 1; await Task.yield() }
        await collector.receive(post(6), stream: "s", network: .mastodon)
        await collector.finish()
        let batches = flushes.batches.withLock { $0 }
        #expect(batches.map(\.posts) == [3, 2, 1])
        #expect(batches[1].deletions == [StreamDeletion(network: "mastodon", id: "p0")])
        // One post a line, the line break inside the document made a space.
        let lines = try String(contentsOf: batches[0].files[0], encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3 && lines[0].contains("line break"))
        #expect(batches[0].files[0].path.contains("/results/streams/test-"))
        #expect(!FileManager.default.fileExists(atPath: batches[0].files[0].path + ".open"))
        let checkpoint = StreamCheckpoint.load(cacheRoot: cache)
        #expect(checkpoint.cursors == ["s": "c3"])
        #expect(checkpoint.pending.isEmpty)
        #expect(await collector.cursor(for: "s") == "c3")
    }

    @Test func aBatchNotCachedIsKeptForTheNextWatch() async throws {
        let cache = try ScratchDirectory.make("tc-collector-fail")
        let flushes = Flushes()
        flushes.succeed.withLock { $0 = false }
        var options = StreamCollector.Options()
        options.batchPosts = 2
        let first = StreamCollector(cacheRoot: cache, name: "test", options: options, clock: ManualClock()) { flushes.run($0) }
        await first.receive(post(1), stream: "s", network: .bluesky)
        await first.receive(.cursor("100"), stream: "s", network: .bluesky)
        await first.receive(post(2), stream: "s", network: .bluesky)
        await first.finish()
        #expect(flushes.count == 1)
        // The cursor did not move past the batch that was not cached.
        #expect(StreamCheckpoint.load(cacheRoot: cache).cursors.isEmpty)
        #expect(StreamCheckpoint.load(cacheRoot: cache).pending.count == 1)

        // A watch killed with an open batch: its file is there under `.open`.
        let killed = StreamCollector(cacheRoot: cache, name: "test", options: options, clock: ManualClock()) { flushes.run($0) }
        await killed.receive(post(3), stream: "s", network: .bluesky)
        #expect(StreamCheckpoint.load(cacheRoot: cache).pending.count == 2)

        flushes.succeed.withLock { $0 = true }
        let next = StreamCollector(cacheRoot: cache, name: "test", options: options, clock: ManualClock()) { flushes.run($0) }
        #expect(await next.recover() == 3)
        let recovered = try #require(flushes.batches.withLock { $0.last })
        #expect(recovered.files.count == 2)
        let checkpoint = StreamCheckpoint.load(cacheRoot: cache)
        #expect(checkpoint.pending.isEmpty)
        #expect(checkpoint.cursors == ["s": "100"])
    }
}
