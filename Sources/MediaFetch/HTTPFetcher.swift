import Foundation
import Logging
import Synchronization

/// Downloads many URLs at once through one libcurl multi handle, with the limits,
/// retries and checks of a ``FetchConfiguration``.
///
/// Each call to ``fetch(_:makeSink:)`` is one item: it tries the request's URL (and its
/// fallbacks on 404/410), retries transient failures with backoff, streams the body
/// into a fresh sink per attempt, and returns either the sink's output or the reason
/// the item failed. Calls may be made concurrently from any number of tasks; the
/// configuration's caps decide how many run on the network at once.
public final class HTTPFetcher: Sendable {
    public let configuration: FetchConfiguration
    let loop: CurlMultiLoop
    let logger: Logger
    let retry: RetryPolicy

    public init(configuration: FetchConfiguration = .init(), logger: Logger = Logger(label: "tweetcache.fetch"))
        throws(FetchError)
    {
        if let problem = configuration.certificateAuthorities.problem {
            throw .unusableCertificateAuthorities(problem)
        }
        self.configuration = configuration
        self.logger = logger
        self.loop = try CurlMultiLoop(
            maxTotal: configuration.maxConcurrentTransfers, maxPerHost: configuration.maxTransfersPerHost)
        self.retry = RetryPolicy(
            base: configuration.backoffBase, cap: configuration.backoffCap,
            maxRetryAfter: configuration.maxRetryAfter)
    }

    deinit { loop.shutdown() }

    /// Stops the transfer thread; transfers still running complete as cancelled.
    public func shutdown() { loop.shutdown() }

    /// The libcurl in use, e.g. "libcurl 7.88.1 (HTTP/2)".
    public static var libraryVersion: String { CurlGlobal.versionSummary }

    /// Fetches one item. Never throws: every way of failing is a ``FetchFailure``.
    public func fetch<S: FetchSink>(
        _ request: FetchRequest, makeSink: @escaping @Sendable () throws -> S
    ) async -> FetchResult<S.Output> {
        let answer = Mutex<FetchResult<S.Output>?>(nil)
        await fetchAll([request], window: 1, makeSink: makeSink) { results in
            answer.withLock { $0 = results.first?.result }
        }
        return answer.withLock { $0 } ?? .failure(.cancelled)
    }

    /// Fetches many items, at most `window` at a time (each holds a sink, which may hold
    /// a file, from its start to its end), and hands each result to `deliver` as it is
    /// known, with the request's index. Results of bodies finished together come in one
    /// call, on one of the fetcher's threads; `deliver` must not block. Returns once
    /// every request was delivered; when the task is cancelled, what is left is
    /// delivered as ``FetchFailure/cancelled``.
    ///
    /// The same rules as ``fetch(_:makeSink:)`` per item, without a task per item: see
    /// ``FetchBatch`` for why that matters for many small files.
    public func fetchAll<S: FetchSink>(
        _ requests: [FetchRequest], window: Int, makeSink: @escaping @Sendable () throws -> S,
        deliver: @escaping @Sendable ([(index: Int, result: FetchResult<S.Output>)]) -> Void
    ) async {
        await FetchBatch(fetcher: self, requests: requests, window: window, makeSink: makeSink, deliver: deliver).run()
    }

    /// Refuses what must never reach libcurl: other schemes, hostless or huge URLs.
    static func validate(_ url: String) -> FetchFailure? {
        guard url.utf8.count <= 8192, let comps = URLComponents(string: url), let scheme = comps.scheme else {
            return .invalidURL(url)
        }
        let lower = scheme.lowercased()
        guard lower == "http" || lower == "https" else { return .unsupportedScheme(lower) }
        guard let host = comps.host, !host.isEmpty else { return .invalidURL(url) }
        return nil
    }
}

/// Carries a non-Sendable sink between the transfer thread and the finishing queue.
/// Sound because the two never touch it at the same time: the transfer thread is done
/// with it before its completion resumes the task that finishes it.
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
