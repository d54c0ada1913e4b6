import MediaFetch
import Foundation

/// Keeps one ``PostStream`` connected for as long as its task runs: reconnects
/// after a close, a failure or a stall, waiting longer after each failure in a row,
/// and resumes from the last cursor the stream gave.
///
/// A stream that sends garbage or stalls is reconnected with backoff, never spun on:
/// only a connection that delivered an event resets the backoff. What no retry fixes
/// (a refused token) ends the follow.
public struct StreamFollower: Sendable {
    public struct Options: Sendable {
        /// Silence longer than this is a dead connection. X sends a heartbeat every
        /// 20 s, Mastodon every 15 s or so; Jetstream's firehose is never silent.
        public var idleLimit: Duration = .seconds(30)
        /// The first wait after a failure, doubled per failure in a row up to `maxBackoff`.
        public var backoff: Duration = .seconds(1)
        public var maxBackoff: Duration = .seconds(120)
        /// The least wait after a 429 without Retry-After.
        public var rateLimitWait: Duration = .seconds(60)
        public init() {}
    }

    /// What happened to the connection, for the user to read.
    public enum Notice: Sendable, Equatable {
        case connected(attempt: Int)
        case ended(StreamEnd, retryIn: Duration?)
    }

    public let options: Options

    public init(options: Options = Options()) { self.options = options }

    /// Follows `stream` until the task is cancelled (returns ``StreamEnd/cancelled``) or
    /// the stream refuses for good (returns that ``StreamEnd/refused(_:)``).
    public func run(
        _ stream: any PostStream, session: StreamSession, cursor start: String?,
        deliver: @escaping @Sendable (StreamEvent) async -> Void,
        notice: @escaping @Sendable (Notice) -> Void = { _ in }
    ) async -> StreamEnd {
        var stream = stream
        var failures = 0
        var attempt = 0
        let cursor = CursorBox(start)
        while !Task.isCancelled {
            do {
                try await stream.prepare(session)
            } catch {
                if error.isTransient {
                    failures += 1
                    let wait = backoff(after: failures)
                    notice(.ended(.failed(error.description), retryIn: wait))
                    do { try await session.clock.sleep(for: wait) } catch { return .cancelled }
                    continue
                }
                notice(.ended(.refused(error), retryIn: nil))
                return .refused(error)
            }
            break
        }
        while !Task.isCancelled {
            attempt += 1
            let delivered = Delivered()
            notice(.connected(attempt: attempt))
            let from = cursor.value
            let ended = await session.activity.limitingIdleTime(to: stream.idleLimit ?? options.idleLimit) { [stream] in
                await stream.connect(cursor: from, session: session) { event in
                    delivered.count()
                    if case let .cursor(value) = event { cursor.value = value }
                    await deliver(event)
                }
            }
            if Task.isCancelled || ended == .cancelled { return .cancelled }
            if case .refused = ended {
                notice(.ended(ended, retryIn: nil))
                return ended
            }
            failures = delivered.any ? 1 : failures + 1
            var wait = backoff(after: failures)
            if case let .rateLimited(retryAfter) = ended {
                wait = max(retryAfter ?? options.rateLimitWait, options.rateLimitWait * min(failures, 8))
            }
            notice(.ended(ended, retryIn: wait))
            do { try await session.clock.sleep(for: wait) } catch { return .cancelled }
        }
        return .cancelled
    }

    func backoff(after failures: Int) -> Duration {
        var wait = options.backoff
        for _ in 1..<max(1, min(failures, 16)) { wait = min(wait * 2, options.maxBackoff) }
        return min(wait, options.maxBackoff)
    }
}

/// The last cursor a connection saw, for the next one.
private final class CursorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    init(_ value: String?) { stored = value }
    var value: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Whether a connection delivered anything: one that did resets the backoff.
private final class Delivered: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func count() { lock.withLock { n += 1 } }
    var any: Bool { lock.withLock { n > 0 } }
}

extension LiveSearchError {
    /// A failure to get an answer, or a server's 5xx: the next attempt may do better.
    var isTransient: Bool {
        switch self {
        case .network, .serverError: true
        default: false
        }
    }
}
