import Foundation
import LiveSearch
import Logging
import MediaFetch
import Synchronization

/// The searches the viewer page starts (`POST /api/search`) and follows
/// (`GET /api/search`): one at a time, each the whole of `tweetcache search`
/// (paging, rate-limit waits, pages saved under `results/`, the history entry) and
/// then the fetch of its media into the cache, which the list then shows.
final class LiveSearches: Sendable {
    static let log = Logger(label: "tweetcache.serve.search")
    /// What the page polls: where the current (or last) search is.
    struct Status: Encodable, Sendable {
        var id: Int
        var query: String
        /// `searching`, `waiting` (a rate limit), `fetching`, `done` or `failed`.
        var state: String
        var pages = 0
        var tweets = 0
        /// While waiting: when the rate limit resets.
        var waitUntil: Date?
        /// Rate-limit waits so far (each one the API asked for, waited out).
        var waits = 0
        var fetchDone = 0
        var fetchTotal = 0
        var fetchFailed = 0
        /// Why the search stopped early or failed, in words.
        var message: String?
        var startedAt: Date

        enum CodingKeys: String, CodingKey {
            case id, query, state, pages, tweets, message, waits
            case waitUntil = "wait_until"
            case fetchDone = "fetch_done"
            case fetchTotal = "fetch_total"
            case fetchFailed = "fetch_failed"
            case startedAt = "started_at"
        }
    }

    /// Why a search cannot start.
    enum StartError: Error, Equatable {
        case busy(query: String)
        case badQuery(String)
    }

    private struct State {
        var nextID = 1
        /// Grows with every change, so a page can ask for "anything after version N".
        var version = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        var current: Status?
        var running = false
        var progress: (any CollectionProgress)?
        var task: Task<Void, Never>?
    }

    let configuration: LiveSearchConfiguration
    private let state = Mutex(State())

    init(_ configuration: LiveSearchConfiguration) { self.configuration = configuration }

    /// The current or last search, with the fetch's counters read now, and the version it is.
    var status: (status: Status?, version: Int) {
        state.withLock { state in
            guard var status = state.current else { return (nil, state.version) }
            if let progress = state.progress, status.state == "fetching" {
                status.fetchTotal = progress.total
                status.fetchDone = progress.done
                status.fetchFailed = progress.failed
            }
            return (status, state.version)
        }
    }

    /// Returns once the status is newer than `version`, or after `limit` on the
    /// configured clock (a long poll: the page asks again at once, so it follows a
    /// search without polling on a timer). While fetching, the counters change
    /// without a new version; the page is answered at least every `fetchTick`.
    func status(after version: Int, limit: Duration, clock: any WallClock) async -> (status: Status?, version: Int) {
        let fetching = state.withLock { $0.current?.state == "fetching" }
        let wait = fetching ? min(limit, Self.fetchTick) : limit
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await changed(after: version) }
            group.addTask { try? await clock.sleep(for: wait) }
            await group.next()
            group.cancelAll()
        }
        return status
    }

    static let fetchTick: Duration = .milliseconds(250)

    private func changed(after version: Int) async {
        let key = state.withLock { state -> Int? in
            guard state.version <= version else { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let key else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.version > version || Task.isCancelled { return true }
                    state.waiters[key] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: key) }?.resume()
        }
    }

    /// A new version: every long poll answers.
    private func bump(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        state.version += 1
        let waiting = Array(state.waiters.values)
        state.waiters.removeAll()
        return waiting
    }

    func start(_ text: String) throws(StartError) -> Status {
        let query: SearchQuery
        do { query = try SearchQuery(text) } catch { throw .badQuery(error.pageMessage) }
        var client: SearchClient
        do {
            client = try SearchClient(query: query, token: configuration.token, options: configuration.search)
            // A search clicked again asks only for what is newer than what the cache holds
            // (a state that cannot be read: the whole query, as a first search asks).
            if let held = configuration.collector.held(by: client) {
                client.shutdown()
                var options = configuration.search
                options.since = held
                client = try SearchClient(query: query, token: configuration.token, options: options)
            }
        } catch {
            Self.log.error("live search \(query.text.debugDescription) could not start: \(error.description)")
            throw .badQuery(error.pageMessage)
        }
        let started = configuration.search.clock.now()
        let (status, waiting): (Status?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
            if state.running { return (nil, []) }
            let status = Status(id: state.nextID, query: query.text, state: "searching", startedAt: started)
            state.nextID += 1
            state.running = true
            state.current = status
            state.progress = nil
            return (status, bump(&state))
        }
        waiting.forEach { $0.resume() }
        guard let status else {
            client.shutdown()
            throw .busy(query: self.status.status?.query ?? "")
        }
        let task = Task.detached { [self] in await run(client, id: status.id, started: started) }
        state.withLock { $0.task = task }
        return status
    }

    /// Cancels a running search (server shutdown).
    func cancel() {
        state.withLock { $0.task }?.cancel()
    }

    private func update(_ id: Int, _ change: (inout Status) -> Void) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.current?.id == id, var status = state.current else { return [] }
            change(&status)
            state.current = status
            return bump(&state)
        }
        waiting.forEach { $0.resume() }
    }

    private func run(_ client: SearchClient, id: Int, started: Date) async {
        let outcome = await client.run(started: started) { [self] event in
            update(id) { status in
                switch event {
                case let .pageSaved(page):
                    status.pages = page.number
                    status.tweets += page.tweets
                case let .waitStarted(until, _):
                    status.state = "waiting"
                    status.waitUntil = until
                    status.waits += 1
                case .waitEnded:
                    status.state = "searching"
                    status.waitUntil = nil
                case .retrying, .waitTick:
                    break
                }
            }
        }
        client.shutdown()
        _ = try? SearchHistory(cacheRoot: configuration.cacheRoot).record(outcome, of: client, started: started)
        var message: String?
        switch outcome.stop {
        case .countReached, .endOfResults, .reachedHeld: break
        case .rateLimited: message = "stopped early: rate limited by the search service"
        case .malformedPage: message = "stopped early: the search service sent a page that is not results"
        case let .failed(error):
            // The detail (paths, bodies, hosts) to the log; the page gets the kind.
            Self.log.error("live search \(client.query.text.debugDescription): \(error.description)")
            message = error.pageMessage
        }
        if outcome.pages.isEmpty {
            finish(id, state: "failed", message: message ?? "no results page")
            return
        }
        update(id) { status in
            status.state = "fetching"
            status.waitUntil = nil
            status.message = message
        }
        do {
            try await configuration.collector.collect(outcome, of: client) { [self] progress in
                state.withLock { $0.progress = progress }
            }
            let progress = state.withLock { $0.progress }
            update(id) { status in
                status.fetchTotal = progress?.total ?? 0
                status.fetchDone = progress?.done ?? 0
                status.fetchFailed = progress?.failed ?? 0
            }
            finish(id, state: "done", message: message)
        } catch {
            Self.log.error("live search \(client.query.text.debugDescription): caching its results failed: \(String(describing: error))")
            finish(id, state: "failed", message: "the results could not be cached (the server's log says why)")
        }
    }

    private func finish(_ id: Int, state final: String, message: String?) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.current?.id == id else { return [] }
            state.current?.state = final
            state.current?.message = message
            state.current?.waitUntil = nil
            state.running = false
            state.progress = nil
            state.task = nil
            return bump(&state)
        }
        waiting.forEach { $0.resume() }
    }

    /// Returns when no search is running (tests, and a server stopping).
    func settled() async {
        while true {
            let (running, version) = state.withLock { ($0.running, $0.version) }
            if !running { return }
            await changed(after: version)
        }
    }
}
