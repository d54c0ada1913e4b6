import Foundation
import Logging

/// Many requests through one fetcher without a task, a thread hop or a wake-up per item.
///
/// Per item the work is small (a 20 KB photo is a handful of HTTP/2 frames), so what
/// it costs to hand an item between threads decides the speed: a task resumed when the
/// transfer ends, another thread to flush and name the blob, the task resumed again,
/// then its parent. That was seven context switches per file, more CPU than TLS and
/// hashing together. Here items move between threads in batches instead:
/// - the transfer thread reports each finished body by appending it to a list;
/// - a publishing thread takes the whole list, finishes it as one batch
///   (``FetchSink/finishBatch(_:)``: one flush to disk for all), hands the results to
///   the caller in one call and starts as many new items as finished;
/// - a second publishing thread works while the first waits on the disk.
///
/// Each item follows the same rules as ``HTTPFetcher/fetch(_:makeSink:)``, which is
/// this with one request: its URL then its fallbacks on 404/410, transient failures
/// retried with backoff on the configuration's clock, a fresh sink per attempt.
///
/// Thread confinement: an item is touched by one thread at a time (the one starting
/// it, the transfer thread while it runs, the retry task, the publishing thread), and
/// every hand-over goes through `lock`; hence `@unchecked Sendable`.
final class FetchBatch<Sink: FetchSink>: @unchecked Sendable {
    typealias Output = Sink.Output
    typealias Delivery = @Sendable ([(index: Int, result: FetchResult<Output>)]) -> Void

    /// One request's progress through its URLs and attempts.
    private final class Item: @unchecked Sendable {
        let index: Int
        let request: FetchRequest
        var candidate = 0
        /// Attempts at the current URL.
        var attempt = 0
        /// URLs that failed before the current one (counted as attempts, as before).
        var earlierURLs = 0
        var sink: Sink?
        var outcome: CurlOutcome?
        var transfer: CurlTransfer?

        init(index: Int, request: FetchRequest) {
            self.index = index
            self.request = request
        }

        var url: String {
            candidate == 0 ? request.url : request.fallbackURLs[candidate - 1]
        }

        var hasFallback: Bool { candidate < request.fallbackURLs.count }
    }

    private let fetcher: HTTPFetcher
    private let requests: [FetchRequest]
    private let makeSink: @Sendable () throws -> Sink
    private let deliver: Delivery
    private let window: Int
    private let publishers: Int

    private let lock = NSLock()
    // Guarded by `lock`.
    private var next = 0
    private var open = 0
    private var delivered = 0
    private var cancelled = false
    private var running: [ObjectIdentifier: CurlTransfer] = [:]
    private var retryTasks: [Int: Task<Void, Never>] = [:]
    private var finishedBodies: [Item] = []
    private var draining = 0
    private var done: CheckedContinuation<Void, Never>?

    init(fetcher: HTTPFetcher, requests: [FetchRequest], window: Int, publishers: Int = 2,
         makeSink: @escaping @Sendable () throws -> Sink, deliver: @escaping Delivery) {
        self.fetcher = fetcher
        self.requests = requests
        self.window = max(1, window)
        self.publishers = max(1, publishers)
        self.makeSink = makeSink
        self.deliver = deliver
    }

    /// Returns when every request has been delivered.
    func run() async {
        guard !requests.isEmpty else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
                // Cancelled before it began: everything was already delivered as cancelled.
                let over = lock.withLock { () -> Bool in
                    if delivered == requests.count { return true }
                    done = cont
                    return false
                }
                if over { cont.resume() } else { pump() }
            }
        } onCancel: {
            cancelAll()
        }
    }

    // MARK: - Starting items

    /// Starts items while the window has room, and submits their transfers together.
    private func pump() {
        var transfers: [CurlTransfer] = []
        var submitted = false
        while true {
            let claimed: [Int] = lock.withLock {
                var ids: [Int] = []
                while open < window, next < requests.count {
                    ids.append(next)
                    next += 1
                    open += 1
                }
                return ids
            }
            if claimed.isEmpty { break }
            var ended: [(index: Int, result: FetchResult<Output>)] = []
            for i in claimed {
                let item = Item(index: i, request: requests[i])
                switch begin(item) {
                case let .transfer(t):
                    transfers.append(t)
                    // The first at once, so its connection (TLS handshake, HTTP/2
                    // settings) is set up while the rest of the window is prepared;
                    // then in groups, one wake-up of the loop each.
                    if transfers.count >= (submitted ? 16 : 1) {
                        fetcher.loop.submit(contentsOf: transfers)
                        transfers.removeAll(keepingCapacity: true)
                        submitted = true
                    }
                case .waiting: break
                case let .ended(failure): ended.append((i, .failure(failure)))
                }
            }
            // Items that ended at once (a bad URL, cancellation) free their place now.
            if !ended.isEmpty { hand(ended) }
        }
        if !transfers.isEmpty { fetcher.loop.submit(contentsOf: transfers) }
    }

    private enum Start {
        case transfer(CurlTransfer)
        /// A retry is scheduled.
        case waiting
        case ended(FetchFailure)
    }

    /// Starts the item's next attempt at its current URL, moving on to fallbacks when a
    /// URL is refused before any request is made.
    private func begin(_ item: Item) -> Start {
        while true {
            let url = item.url
            if let problem = HTTPFetcher.validate(url) {
                item.earlierURLs += 1
                guard Self.movesOn(problem), item.hasFallback else { return .ended(problem) }
                item.candidate += 1
                item.attempt = 0
                continue
            }
            if lock.withLock({ cancelled }) { return .ended(.cancelled) }  // before making a file
            item.attempt += 1
            let sink: Sink
            do { sink = try makeSink() } catch {
                return .ended(.storage(String(describing: error)))
            }
            let target = fetcher.configuration.mirrors.resolve(url)
            let transfer: CurlTransfer
            do {
                transfer = try CurlTransfer(url: target, expected: item.request.expected,
                                            configuration: fetcher.configuration) { bytes in
                    try sink.write(bytes)
                }
            } catch {
                sink.discard()
                // Not sent at all; judged like any failed attempt (retry, fallback or not).
                switch judge(item, failure: error, retryAfter: nil) {
                case .again: continue
                case .later: return .waiting
                case let .ended(f): return .ended(f)
                }
            }
            item.sink = sink
            item.transfer = transfer
            transfer.onComplete = { [self] outcome in completed(item, outcome: outcome) }
            // Checked and registered together: `cancelAll` either sees this transfer or
            // has already said stop.
            let stopped = lock.withLock { () -> Bool in
                if cancelled { return true }
                running[ObjectIdentifier(transfer)] = transfer
                return false
            }
            if stopped {
                item.transfer = nil
                item.sink = nil
                sink.discard()
                return .ended(.cancelled)
            }
            return .transfer(transfer)
        }
    }

    private static func movesOn(_ failure: FetchFailure) -> Bool {
        failure == .httpStatus(404) || failure == .httpStatus(410)
    }

    private enum Judgement {
        /// Try the next URL now.
        case again
        /// A retry is scheduled.
        case later
        case ended(FetchFailure)
    }

    /// What a failed attempt leads to: a retry after backoff, the next URL, or the end.
    private func judge(_ item: Item, failure: FetchFailure, retryAfter: Duration?) -> Judgement {
        let c = fetcher.configuration
        let retryable = failure.isTransient && item.attempt < c.maxAttempts
        fetcher.logger.debug("fetch failed", metadata: [
            "url": "\(item.url)", "attempt": "\(item.attempt)", "reason": "\(failure)", "retry": "\(retryable)",
        ])
        if retryable {
            guard let delay = fetcher.retry.delay(afterAttempt: item.attempt, retryAfter: retryAfter) else {
                item.earlierURLs += 1
                let seconds = Int((retryAfter ?? .zero).components.seconds)
                return .ended(.rateLimited(retryAfterSeconds: seconds))
            }
            return scheduleRetry(item, after: delay) ? .later : .ended(.cancelled)
        }
        item.earlierURLs += 1
        guard Self.movesOn(failure), item.hasFallback else { return .ended(failure) }
        item.candidate += 1
        item.attempt = 0
        return .again
    }

    /// False when the batch is cancelled (the item ends instead).
    private func scheduleRetry(_ item: Item, after delay: Duration) -> Bool {
        let clock = fetcher.configuration.clock
        let box = UncheckedBox(item)
        return lock.withLock {
            guard !cancelled else { return false }
            retryTasks[item.index] = Task { [self] in
                let slept = (try? await clock.sleep(for: delay)) != nil
                lock.withLock { _ = retryTasks.removeValue(forKey: box.value.index) }
                restart(box.value, cancelled: !slept)
            }
            return true
        }
    }

    /// Starts an item again (after a backoff or on its next URL), off the batch's pump.
    private func restart(_ item: Item, cancelled wasCancelled: Bool) {
        if wasCancelled || lock.withLock({ cancelled }) {
            hand([(item.index, .failure(.cancelled))])
            pump()
            return
        }
        switch begin(item) {
        case let .transfer(t): fetcher.loop.submit(contentsOf: [t])
        case .waiting: break
        case let .ended(f):
            hand([(item.index, .failure(f))])
            pump()
        }
    }

    // MARK: - Transfers ending (on the transfer thread)

    private func completed(_ item: Item, outcome: CurlOutcome) {
        if let transfer = item.transfer {
            _ = lock.withLock { running.removeValue(forKey: ObjectIdentifier(transfer)) }
        }
        item.transfer = nil
        guard let failure = outcome.failure else {
            item.outcome = outcome
            let startDrain: Bool = lock.withLock {
                finishedBodies.append(item)
                guard draining < publishers else { return false }
                draining += 1
                return true
            }
            if startDrain { BlockingExecutor.shared.execute { [self] in drain() } }
            return
        }
        // Judged off the transfer thread: recording a failure (an index write) or
        // setting up the next attempt (a file, an easy handle) would stall every transfer.
        BlockingExecutor.shared.execute { [self] in
            item.sink?.discard()
            item.sink = nil
            switch judge(item, failure: failure, retryAfter: outcome.retryAfter) {
            case .later: return
            case .again: restart(item, cancelled: false)
            case let .ended(f):
                hand([(item.index, .failure(f))])
                pump()
            }
        }
    }

    // MARK: - Publishing (on a publishing thread)

    /// Finishes whatever bodies have arrived, as batches, until none are left.
    private func drain() {
        while true {
            let batch: [Item] = lock.withLock {
                let taken = finishedBodies
                finishedBodies.removeAll(keepingCapacity: true)
                if taken.isEmpty { draining -= 1 }
                return taken
            }
            if batch.isEmpty { return }
            let sinks = batch.map { $0.sink! }
            let results = Sink.finishBatch(sinks)
            var out: [(index: Int, result: FetchResult<Output>)] = []
            out.reserveCapacity(batch.count)
            for (n, (item, result)) in zip(batch, results).enumerated() {
                item.sink = nil
                let o = item.outcome!
                switch result {
                case let .success(output):
                    out.append((item.index, .success(FetchSuccess(
                        output: output, url: item.url, effectiveURL: o.effectiveURL, httpStatus: o.status,
                        kind: o.kind, contentType: o.contentType, bytes: o.received,
                        attempts: item.attempt + item.earlierURLs))))
                case let .failure(error):
                    sinks[n].discard()
                    out.append((item.index, .failure(.storage(String(describing: error)))))
                }
            }
            hand(out)
            pump()
        }
    }

    // MARK: - Delivery and cancellation

    /// Gives results to the caller and frees their places in the window.
    private func hand(_ results: [(index: Int, result: FetchResult<Output>)]) {
        deliver(results)
        let finished: CheckedContinuation<Void, Never>? = lock.withLock {
            open -= results.count
            delivered += results.count
            guard delivered == requests.count else { return nil }
            defer { done = nil }
            return done
        }
        finished?.resume()
    }

    private func cancelAll() {
        let (transfers, retries, unstarted): ([CurlTransfer], [Task<Void, Never>], Range<Int>) = lock.withLock {
            cancelled = true
            let unstarted = next..<requests.count
            next = requests.count
            open += unstarted.count
            return (Array(running.values), Array(retryTasks.values), unstarted)
        }
        for t in transfers { fetcher.loop.cancel(t) }
        for r in retries { r.cancel() }
        if !unstarted.isEmpty { hand(unstarted.map { ($0, .failure(.cancelled)) }) }
    }
}
