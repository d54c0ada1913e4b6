import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MediaFetch

/// A sink that counts how many sinks are alive at once (made and not yet finished or
/// discarded), and which batches it was finished in.
final class CountingSink: FetchSink, @unchecked Sendable {
    static let alive = Atomic<Int>(0)
    static let mostAlive = Atomic<Int>(0)
    static let batches = Mutex<[Int]>([])
    private var bytes: [UInt8] = []
    private var open = true

    init() {
        let now = Self.alive.add(1, ordering: .relaxed).newValue
        _ = Self.mostAlive.max(now, ordering: .relaxed)
    }

    func write(_ chunk: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: chunk) }
    func finish() throws -> [UInt8] { close(); return bytes }
    func discard() { close() }
    private func close() {
        if open { Self.alive.subtract(1, ordering: .relaxed) }
        open = false
    }

    static func finishBatch(_ sinks: [CountingSink]) -> [Result<[UInt8], any Error>] {
        batches.withLock { $0.append(sinks.count) }
        return sinks.map { s in Result { try s.finish() } }
    }
}

/// Many requests through one batch: every one delivered once under its index, with the
/// same rules per item as a single fetch (fallback on 404, retry on 500 on the clock,
/// a refused URL without touching the network), never more items open than the window.
@Suite(.serialized) struct FetchBatchTests {
    @Test func everyRequestIsDeliveredOnceWithItsOwnOutcome() async throws {
        let flakyHits = Mutex<[String: Int]>([:])
        let server = try LoopbackHTTPServer { req in
            if req.path.hasPrefix("/missing/") { return .respond(status: 404) }
            if req.path.hasPrefix("/flaky/") {
                let n = flakyHits.withLock { hits -> Int in
                    hits[req.path, default: 0] += 1
                    return hits[req.path]!
                }
                if n == 1 { return .respond(status: 500) }
            }
            return .respond(status: 200, body: fakeJPEG(3000 + req.path.count, seed: UInt8(req.path.count % 200)))
        }
        var config = testConfiguration()
        let clock = VirtualClock()
        config.clock = clock
        config.maxConcurrentTransfers = 6
        let fetcher = try HTTPFetcher(configuration: config)
        let base = server.baseURL
        var requests: [FetchRequest] = []
        for i in 0..<240 {
            switch i % 4 {
            case 0: requests.append(FetchRequest(url: "\(base)/ok/\(i).jpg"))
            case 1: requests.append(FetchRequest(url: "\(base)/missing/\(i).jpg", fallbackURLs: ["\(base)/ok/fb\(i).jpg"]))
            case 2: requests.append(FetchRequest(url: "\(base)/flaky/\(i).jpg"))
            default: requests.append(FetchRequest(url: "ftp://example.com/\(i).jpg"))
            }
        }
        CountingSink.mostAlive.store(0, ordering: .relaxed)
        CountingSink.batches.withLock { $0 = [] }
        let delivered = Mutex<[Int: FetchResult<[UInt8]>]>([:])
        let repeats = Atomic<Int>(0)
        await fetcher.fetchAll(requests, window: 10, makeSink: { CountingSink() }) { results in
            delivered.withLock { seen in
                for (index, result) in results {
                    if seen.updateValue(result, forKey: index) != nil { repeats.add(1, ordering: .relaxed) }
                }
            }
        }
        let results = delivered.withLock { $0 }
        #expect(results.count == requests.count)
        #expect(repeats.load(ordering: .relaxed) == 0)
        for (i, request) in requests.enumerated() {
            let result = try #require(results[i])
            switch i % 4 {
            case 0:
                let ok = try result.get()
                let path = "/ok/\(i).jpg"
                let body = fakeJPEG(3000 + path.count, seed: UInt8(path.count % 200))
                #expect(ok.url == request.url)
                #expect(ok.attempts == 1)
                #expect(ok.output == body)
            case 1:
                let ok = try result.get()
                #expect(ok.url == request.fallbackURLs[0])
                #expect(ok.attempts == 2)
            case 2:
                let ok = try result.get()
                #expect(ok.attempts == 2)
            default:
                #expect(result.failure == .unsupportedScheme("ftp"))
            }
        }
        // Each flaky URL was asked twice, after a backoff on the virtual clock.
        let hits = flakyHits.withLock { $0 }
        #expect(hits.count == 60)
        #expect(hits.values.allSatisfy { $0 == 2 })
        #expect(clock.totalSlept > .zero)
        let expectedRequests = 60 + 2 * 60 + 2 * 60  // ok, missing + fallback, flaky twice
        #expect(server.requests.count == expectedRequests)
        #expect(CountingSink.mostAlive.load(ordering: .relaxed) <= 10)
        #expect(CountingSink.alive.load(ordering: .relaxed) == 0)
        let finished = CountingSink.batches.withLock { $0.reduce(0, +) }
        #expect(finished == 180)
    }

    @Test func aCancelledBatchDeliversWhatIsLeftAsCancelled() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: fakeJPEG(1000)) }
        let fetcher = try HTTPFetcher(configuration: testConfiguration())
        let requests = (0..<50).map { FetchRequest(url: server.baseURL + "/\($0).jpg") }
        let delivered = Mutex<[Int: FetchResult<[UInt8]>]>([:])
        let task = Task {
            await fetcher.fetchAll(requests, window: 4, makeSink: { MemorySink() }) { results in
                delivered.withLock { for (i, r) in results { $0[i] = r } }
            }
        }
        task.cancel()
        await task.value
        let results = delivered.withLock { $0 }
        #expect(results.count == 50)
        #expect(results.values.contains { $0.failure == .cancelled })
    }
}
