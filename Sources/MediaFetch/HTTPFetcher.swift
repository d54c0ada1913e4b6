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
    private let logger: Logger
    private let retry: RetryPolicy

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
        var candidates = [request.url] + request.fallbackURLs
        var lastFailure = FetchFailure.invalidURL(request.url)
        var attemptsUsed = 0
        while !candidates.isEmpty {
            let url = candidates.removeFirst()
            let result = await fetchOne(url, expected: request.expected, makeSink: makeSink)
            switch result {
            case let .success(s):
                var s = s
                s.attempts += attemptsUsed
                return .success(s)
            case let .failure(f):
                attemptsUsed += 1
                lastFailure = f.failure
                // Only "not there" moves on to a fallback; anything else is the answer.
                guard f.failure == .httpStatus(404) || f.failure == .httpStatus(410) else { return .failure(f.failure) }
            }
        }
        return .failure(lastFailure)
    }

    private struct AttemptFailure: Error { var failure: FetchFailure }

    private func fetchOne<S: FetchSink>(
        _ url: String, expected: ExpectedContent, makeSink: @escaping @Sendable () throws -> S
    ) async -> Result<FetchSuccess<S.Output>, AttemptFailure> {
        if let problem = Self.validate(url) { return .failure(AttemptFailure(failure: problem)) }
        let target = configuration.mirrors.resolve(url)
        var attempt = 0
        while true {
            attempt += 1
            if Task.isCancelled { return .failure(AttemptFailure(failure: .cancelled)) }
            let sink: UncheckedBox<S>
            do { sink = UncheckedBox(try makeSink()) } catch {
                return .failure(AttemptFailure(failure: .storage(String(describing: error))))
            }
            let outcome = await run(target, expected: expected, sink: sink)
            if let failure = outcome.failure {
                sink.value.discard()
                let retryable = failure.isTransient && attempt < configuration.maxAttempts
                logger.debug("fetch failed", metadata: [
                    "url": "\(url)", "attempt": "\(attempt)", "reason": "\(failure)", "retry": "\(retryable)",
                ])
                guard retryable else { return .failure(AttemptFailure(failure: failure)) }
                guard let delay = retry.delay(afterAttempt: attempt, retryAfter: outcome.retryAfter) else {
                    let seconds = Int((outcome.retryAfter ?? .zero).components.seconds)
                    return .failure(AttemptFailure(failure: .rateLimited(retryAfterSeconds: seconds)))
                }
                do { try await configuration.clock.sleep(for: delay) } catch {
                    return .failure(AttemptFailure(failure: .cancelled))
                }
                continue
            }
            // The body passed every check: let the sink publish it, off the transfer
            // thread (it would stall every transfer) and off the cooperative pool.
            let finished: Result<S.Output, FetchFailure> = await BlockingExecutor.shared.run {
                do { return .success(try sink.value.finish()) } catch {
                    sink.value.discard()
                    return .failure(.storage(String(describing: error)))
                }
            }
            switch finished {
            case let .success(output):
                return .success(FetchSuccess(
                    output: output, url: url, effectiveURL: outcome.effectiveURL, httpStatus: outcome.status,
                    kind: outcome.kind, contentType: outcome.contentType, bytes: outcome.received,
                    attempts: attempt))
            case let .failure(f):
                return .failure(AttemptFailure(failure: f))
            }
        }
    }

    /// Runs one attempt on the transfer thread and waits for it, cancellably.
    private func run<S: FetchSink>(_ url: String, expected: ExpectedContent, sink: UncheckedBox<S>) async -> CurlOutcome {
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(url: url, expected: expected, configuration: configuration) { bytes in
                try sink.value.write(bytes)
            }
        } catch {
            return CurlOutcome(failure: error, status: 0, kind: .unknown, contentType: nil, retryAfter: nil,
                               received: 0, effectiveURL: url)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<CurlOutcome, Never>) in
                transfer.onComplete = { outcome in cont.resume(returning: outcome) }
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
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
