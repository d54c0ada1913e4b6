import Foundation
import HTTPTypes
import MediaFetch

/// The waits and retries every request of a search goes through, whatever the network.
///
/// A window the last answer said is used up is waited for before asking again; a 429
/// is waited out when its reset is within ``SearchOptions/maxWait``; 5xx answers and
/// lost connections are retried with ``RetryPolicy``'s backoff. What a refusal (any
/// other non-2xx) means is the service's to say, so it comes back as ``Answer/refused(_:detail:)``.
struct RequestLoop {
    let fetcher: HTTPFetcher
    let options: SearchOptions
    let events: @Sendable (SearchEvent) -> Void
    /// HTTP requests made, retries included.
    private(set) var requests = 0
    /// Set when a response said the window is used up: wait for this before asking again.
    private var windowUsedUpUntil: Date?
    /// Every secret the search has held (a token, a password, each session's tokens),
    /// replaced wherever a server's message echoes one back.
    private var secrets: [String] = []

    init(fetcher: HTTPFetcher, options: SearchOptions, events: @escaping @Sendable (SearchEvent) -> Void) {
        self.fetcher = fetcher
        self.options = options
        self.events = events
    }

    enum Answer {
        case response(APIResponse)
        /// A refusal the service words: 4xx other than 429, with the error body's human part.
        case refused(APIResponse, detail: String?)
        case stop(StopReason)
    }

    /// Keeps `secret` out of every message made from a server's answer.
    mutating func hide(_ secret: String) {
        if !secret.isEmpty { secrets.append(secret) }
    }

    /// One request to `service` with its waits and retries. `page` numbers it in events
    /// (0 for requests that are not pages: signing in, looking up).
    mutating func send(
        _ url: String, headers: HTTPFields, body: [UInt8]? = nil, page: Int,
        rateLimits: RateLimitHeaders, service: String
    ) async -> Answer {
        var headers = headers
        if body != nil { headers[.contentType] = "application/json" }
        let request = APIRequest(url: url, headers: headers, body: body, maxBytes: options.maxPageBytes)
        var failures = 0
        var rateLimitWaits = 0
        while true {
            if let until = windowUsedUpUntil, until > options.clock.now() {
                if let stop = await wait(until: until, cause: .windowUsedUp) { return .stop(stop) }
            }
            windowUsedUpUntil = nil
            if Task.isCancelled { return .stop(.failed(.cancelled)) }
            requests += 1
            let response: APIResponse
            switch await fetcher.perform(request) {
            case let .failure(failure):
                if failure == .cancelled { return .stop(.failed(.cancelled)) }
                failures += 1
                let retryable: Bool = switch failure {
                case .timedOut, .connectionFailed, .connectionInterrupted: true
                default: false
                }
                guard retryable, failures < options.attempts else {
                    return .stop(.failed(.network(service: service, failure.description, attempts: failures)))
                }
                if let stop = await backoff(page: page, reason: failure.description, attempt: failures) {
                    return .stop(stop)
                }
                continue
            case let .success(r):
                response = r
            }
            let limits = RateLimitStatus(headers: response.head.headerFields, names: rateLimits, now: options.clock.now())
            switch response.status {
            case 200..<300:
                windowUsedUpUntil = limits.exhaustedUntil
                return .response(response)
            case 429:
                rateLimitWaits += 1
                guard let reset = limits.reset else {
                    // No word on when: back off like a server error, then give up.
                    failures += 1
                    guard failures < options.attempts else { return .stop(.rateLimited(resetAt: nil)) }
                    if let stop = await backoff(page: page, reason: "HTTP 429", attempt: failures) { return .stop(stop) }
                    continue
                }
                guard rateLimitWaits <= 5 else { return .stop(.rateLimited(resetAt: reset)) }
                // A reset already past (clock skew) still gets a second's pause, not a hammering.
                let until = max(reset, options.clock.now().addingTimeInterval(1))
                if let stop = await wait(until: until, cause: .tooManyRequests) { return .stop(stop) }
            case 500..<600:
                failures += 1
                guard failures < options.attempts else {
                    return .stop(.failed(.serverError(
                        service: service, status: response.status, attempts: failures, detail: detail(response))))
                }
                if let stop = await backoff(page: page, reason: "HTTP \(response.status)", attempt: failures) {
                    return .stop(stop)
                }
            default:
                return .refused(response, detail: detail(response))
            }
        }
    }

    private func detail(_ response: APIResponse) -> String? {
        APIErrorDetail.read(response.body, hiding: secrets)
    }

    /// Waits for a rate-limit reset, or says why not. The reset is given in whole
    /// seconds, so the wait runs a second past it.
    private func wait(until reset: Date, cause: SearchEvent.WaitCause) async -> StopReason? {
        let needed = reset.timeIntervalSince(options.clock.now())
        guard needed <= Double(options.maxWait.components.seconds) + Double(options.maxWait.components.attoseconds) / 1e18
        else { return .rateLimited(resetAt: reset) }
        let end = reset.addingTimeInterval(1)
        events(.waitStarted(until: end, cause: cause))
        while true {
            let left = end.timeIntervalSince(options.clock.now())
            if left <= 0 { break }
            events(.waitTick(remaining: .milliseconds(Int(left * 1000))))
            do { try await options.clock.sleep(for: .milliseconds(Int((min(left, 1) * 1000).rounded(.up)))) } catch {
                return .failed(.cancelled)
            }
        }
        events(.waitEnded)
        return nil
    }

    /// Sleeps before retry `attempt + 1`, as ``RetryPolicy`` says.
    private func backoff(page: Int, reason: String, attempt: Int) async -> StopReason? {
        let delay = RetryPolicy(base: options.backoffBase, cap: options.backoffCap).backoff(afterAttempt: attempt)
        events(.retrying(page: page, reason: reason, attempt: attempt, of: options.attempts, delay: delay))
        do { try await options.clock.sleep(for: delay) } catch { return .failed(.cancelled) }
        return nil
    }
}
