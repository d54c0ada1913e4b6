import Foundation
import MediaFetch

/// Runs one search against the X API, a Mastodon instance or a Bluesky AppView: pages
/// until `count` results or the end, saves every page as served, and deals with rate
/// limits and flaky servers on the way.
///
/// The API's answers decide everything: a page's `next_token` (v2) or lowest id (v1.1)
/// says where the next starts; `x-rate-limit-remaining` and `x-rate-limit-reset` say
/// when to pause; a 429 is waited out when the reset is within ``SearchOptions/maxWait``;
/// 5xx and network failures are retried with backoff. Whatever stops the search, the
/// pages saved so far come back in the ``SearchOutcome``.
public final class SearchClient: Sendable {
    public let query: SearchQuery
    public let options: SearchOptions
    /// X always needs one; Mastodon's tag and account timelines and Bluesky's public
    /// AppView answer without.
    private let token: BearerToken?
    private let endpoint: SearchEndpoint
    private let fetcher: HTTPFetcher
    /// Mastodon only: what the query reads (an account is looked up by `acct` first).
    private let mastodon: MastodonQuery?

    /// The variable Mastodon's access token is read from.
    public static let mastodonTokenVariable = "MASTODON_ACCESS_TOKEN"
    /// Where a Bluesky login signs in (and searches) unless `--api-base` says otherwise.
    public static let blueskySignInService = "https://bsky.social"

    enum MastodonQuery: Sendable {
        case target(MastodonTarget)
        case account(acct: String)
    }

    public init(query: SearchQuery, token: BearerToken?, options: SearchOptions) throws(LiveSearchError) {
        guard options.count >= 1 else { throw .invalidCount(options.count) }
        if options.api.isX, token == nil { throw .missingToken }
        self.query = query
        self.token = token
        self.options = options
        // Signed in, Bluesky's searches go to the account's server, which forwards them.
        let signsIn = options.api == .bluesky && options.blueskyLogin != nil
        self.endpoint = try SearchEndpoint(
            api: options.api, baseURL: options.baseURL ?? (signsIn ? Self.blueskySignInService : nil))
        if options.api == .mastodon {
            if let tag = query.mastodonTag {
                mastodon = .target(.tag(tag))
            } else if let acct = query.mastodonAccount {
                mastodon = .account(acct: acct)
            } else {
                guard token != nil else {
                    throw .service(network: "Mastodon", message: "searching for text needs an access token: set "
                        + "\(Self.mastodonTokenVariable) (a #tag or @user@host needs none)")
                }
                mastodon = .target(.search(query.text))
            }
        } else {
            mastodon = nil
        }
        var fetch = options.fetch
        fetch.maxConcurrentTransfers = 1
        fetch.maxTransfersPerHost = 1
        fetch.mirrors = MirrorMap()
        fetch.byteCounter = nil
        do { fetcher = try HTTPFetcher(configuration: fetch) } catch { throw .setup(error.description) }
    }

    /// Stops the fetcher's transfer thread; the client cannot be used afterwards.
    public func shutdown() { fetcher.shutdown() }

    /// The query string sent to the API.
    public var apiQuery: String { query.apiQuery(for: options.api) }

    /// Runs the search. Never throws: how it ended is ``SearchOutcome/stop``.
    public func run(started: Date = Date(), events: @escaping @Sendable (SearchEvent) -> Void = { _ in })
        async -> SearchOutcome
    {
        var run = SearchRun(client: self, events: events, store: PageStore(
            directory: options.resultsDirectory, api: options.api, query: query, started: started))
        if let login = options.blueskyLogin, options.api == .bluesky, let stop = await run.signIn(login) {
            return SearchOutcome(pages: [], tweets: 0, requests: run.requests, stop: stop)
        }
        var target: MastodonTarget?
        switch mastodon {
        case let .target(known)?: target = known
        case let .account(acct)?:
            switch await run.lookUp(acct) {
            case let .found(id): target = .account(id: id)
            case let .stop(stop):
                return SearchOutcome(pages: [], tweets: 0, requests: run.requests, stop: stop)
            }
        case nil: break
        }
        let stop = await run.pageThrough(mastodon: target)
        return SearchOutcome(pages: run.pages, tweets: run.tweets, requests: run.requests, stop: stop)
    }

    // MARK: - One search's state

    private struct SearchRun {
        let client: SearchClient
        let events: @Sendable (SearchEvent) -> Void
        let store: PageStore
        var pages: [SavedPage] = []
        var tweets = 0
        var requests = 0
        /// Set when a response said the window is used up: wait for this before asking again.
        var windowUsedUpUntil: Date?
        /// Bluesky, signed in: the session's tokens (refreshed when the access token expires).
        var session: BlueskySession?

        var options: SearchOptions { client.options }

        init(client: SearchClient, events: @escaping @Sendable (SearchEvent) -> Void, store: PageStore) {
            self.client = client
            self.events = events
            self.store = store
            if let token = client.token { secrets.append(token.value) }
        }

        /// `com.atproto.server.createSession` with the handle and app password; nil when
        /// signed in, else why not (the password is never in a message).
        mutating func signIn(_ login: BlueskyLogin) async -> StopReason? {
            // The password goes only over TLS (or to this machine, for tests and local servers).
            guard client.endpoint.base.lowercased().hasPrefix("https://") || Self.isLoopback(client.endpoint.base) else {
                return .failed(.service(network: "Bluesky", message: "will not send the app password over plain http to "
                    + "\(client.endpoint.base); give an https --api-base"))
            }
            secrets.append(login.password)
            let url = client.endpoint.base + "/xrpc/com.atproto.server.createSession"
            // Through the same loop as searches: retries, backoff, and a 429 waited out or reported as one.
            switch await request(url, page: 0, body: login.sessionRequestBody, authorization: .none) {
            case let .stop(.failed(.refusedByService(_, status, _, _, detail))):
                return .failed(.service(network: "Bluesky", message: "refused to sign in \(login.handle) (HTTP \(status)"
                    + (detail.map { ": \($0)" } ?? "") + "): check \(BlueskyLogin.handleVariable) and "
                    + "\(BlueskyLogin.passwordVariable) (an app password: Settings → App passwords); an account on "
                    + "another server signs in there: --api-base https://its-server"))
            case let .stop(stop):
                return stop
            case let .response(response):
                guard let session = BlueskySession(response.body) else {
                    return .failed(.service(network: "Bluesky", message: "the sign-in answer holds no session tokens"))
                }
                self.session = session
                secrets += [session.accessJwt, session.refreshJwt]
                return nil
            }
        }

        static func isLoopback(_ base: String) -> Bool {
            guard let host = URLComponents(string: base)?.host?.lowercased() else { return false }
            return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
        }

        /// `com.atproto.server.refreshSession`: a new token pair for an expired access
        /// token; false when the server will not give one.
        mutating func refreshSession() async -> Bool {
            guard let current = session else { return false }
            let url = client.endpoint.base + "/xrpc/com.atproto.server.refreshSession"
            guard case let .response(response) = await request(
                url, page: 0, body: [], authorization: .bearer(current.refreshJwt)),
                let fresh = BlueskySession(response.body)
            else { return false }
            session = fresh
            secrets += [fresh.accessJwt, fresh.refreshJwt]
            return true
        }

        /// Whose credential a request carries: the search's (token or session), a given
        /// one (the refresh token), or none (signing in).
        enum Authorization {
            case search
            case bearer(String)
            case none
        }

        enum Lookup {
            case found(String)
            case stop(StopReason)
        }

        /// Mastodon's `/api/v1/accounts/lookup`: the id of `acct`, or why not.
        mutating func lookUp(_ acct: String) async -> Lookup {
            switch await request(client.endpoint.lookupURL(acct: acct), page: 0, lookingUp: true) {
            case .stop(.failed(.noSuchAccount)): return .stop(.failed(.noSuchAccount(acct)))
            case let .stop(stop): return .stop(stop)
            case let .response(response):
                struct Account: Decodable { let id: String }
                guard let account = try? JSONDecoder().decode(Account.self, from: Data(response.body)),
                      !account.id.isEmpty, account.id.utf8.count <= 64
                else {
                    return .stop(.failed(.service(network: "Mastodon", message: "the account lookup answer has no id")))
                }
                return .found(account.id)
            }
        }

        mutating func pageThrough(mastodon: MastodonTarget? = nil) async -> StopReason {
            var cursor: PageCursor?
            var seen: Set<PageCursor> = []
            var emptyStreak = 0
            while true {
                let number = pages.count + 1
                let wanted = max(0, options.count - tweets)
                let size = min(max(wanted, options.api.pageSizes.lowerBound), options.api.pageSizes.upperBound)
                let url = client.endpoint.url(query: client.apiQuery, pageSize: size, cursor: cursor, mastodon: mastodon)
                let response: HTTPResponse
                switch await request(url, page: number) {
                case let .response(r): response = r
                case let .stop(stop): return stop
                }
                let file: URL
                do { file = try store.save(response.body, number: number) } catch { return .failed(error) }
                let summary = PageSummary.read(response.body, api: options.api)
                var page = SavedPage(number: number, file: file, tweets: 0)
                guard case let .page(count, next) = summary else {
                    if case let .malformed(reason) = summary { page.problem = reason }
                    pages.append(page)
                    events(.pageSaved(page))
                    return .malformedPage(number: number, reason: page.problem ?? "unreadable")
                }
                page.tweets = count
                pages.append(page)
                tweets += count
                events(.pageSaved(page))

                if tweets >= options.count { return .countReached }
                guard let next else { return .endOfResults }
                // A server that repeats a cursor, or sends page after empty page, would
                // otherwise keep a search going forever.
                guard seen.insert(next).inserted else { return .endOfResults }
                if case let .maxID(newID) = next, case let .maxID(oldID) = cursor, newID >= oldID {
                    return .endOfResults
                }
                emptyStreak = count == 0 ? emptyStreak + 1 : 0
                if emptyStreak >= 3 { return .endOfResults }
                cursor = next
            }
        }

        enum Answer {
            case response(HTTPResponse)
            case stop(StopReason)
        }

        /// One page's request with its waits and retries; a stop reason when it gives up.
        mutating func request(
            _ url: String, page: Int, lookingUp: Bool = false, body: [UInt8]? = nil, authorization: Authorization = .search
        ) async -> Answer {
            let answer = await requestX(url, page: page, lookingUp: lookingUp, body: body, authorization: authorization)
            guard !options.api.isX, case let .stop(.failed(error)) = answer else { return answer }
            return .stop(.failed(serviceError(error)))
        }

        /// Another network's failures named as that network's, not the X API's.
        private func serviceError(_ error: LiveSearchError) -> LiveSearchError {
            let network = options.api.networkName
            return switch error {
            case let .rejected(status, detail):
                .service(network: network, message: "refused the search (HTTP \(status)\(detail.map { ": " + $0 } ?? ""))")
            case let .serverError(status, attempts, detail):
                .service(network: network, message: "kept failing (HTTP \(status)\(detail.map { ": " + $0 } ?? "")) "
                    + "after \(attempts) attempts; try again later")
            case let .network(why, attempts):
                .service(network: network, message: "could not be reached after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(why)")
            default: error
            }
        }

        private mutating func requestX(
            _ url: String, page: Int, lookingUp: Bool, body: [UInt8]?, authorization: Authorization
        ) async -> Answer {
            var failures = 0
            var rateLimitWaits = 0
            var refreshed = false
            while true {
                // Built per attempt: a refreshed session changes the Authorization header.
                var headers: [String: String] = body == nil ? [:] : ["Content-Type": "application/json"]
                switch authorization {
                case .search:
                    if let token = client.token { headers[token.authorizationHeader.name] = token.authorizationHeader.value }
                    if let session { headers["Authorization"] = "Bearer \(session.accessJwt)" }
                case let .bearer(value): headers["Authorization"] = "Bearer \(value)"
                case .none: break
                }
                let request = HTTPRequest(url: url, headers: headers, body: body, maxBytes: options.maxPageBytes)
                if let until = windowUsedUpUntil, until > options.clock.now() {
                    if let stop = await wait(until: until, cause: .windowUsedUp) { return .stop(stop) }
                }
                windowUsedUpUntil = nil
                if Task.isCancelled { return .stop(.failed(.cancelled)) }
                requests += 1
                let response: HTTPResponse
                switch await client.fetcher.perform(request) {
                case let .failure(failure):
                    if failure == .cancelled { return .stop(.failed(.cancelled)) }
                    failures += 1
                    let retryable: Bool = switch failure {
                    case .timedOut, .connectionFailed, .connectionInterrupted: true
                    default: false
                    }
                    guard retryable, failures < options.attempts else {
                        return .stop(.failed(.network(failure.description, attempts: failures)))
                    }
                    if let stop = await backoff(page: page, reason: failure.description, attempt: failures) {
                        return .stop(stop)
                    }
                    continue
                case let .success(r):
                    response = r
                }
                let limits = RateLimitStatus(headers: response.headers, now: options.clock.now())
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
                        if let stop = await backoff(page: page, reason: "HTTP 429", attempt: failures) {
                            return .stop(stop)
                        }
                        continue
                    }
                    guard rateLimitWaits <= 5 else { return .stop(.rateLimited(resetAt: reset)) }
                    // A reset already past (clock skew) still gets a second's pause, not a hammering.
                    let until = max(reset, options.clock.now().addingTimeInterval(1))
                    if let stop = await wait(until: until, cause: .tooManyRequests) { return .stop(stop) }
                case 400 where session != nil && !refreshed && Self.isExpiredToken(response) && isSearch(authorization),
                     401 where session != nil && !refreshed && Self.isExpiredToken(response) && isSearch(authorization):
                    // The access token lives minutes; the refresh token buys another, once per request.
                    refreshed = true
                    guard await refreshSession() else {
                        return .stop(.failed(.service(network: "Bluesky", message: "the session expired and could not be "
                            + "refreshed; sign in again (\(BlueskyLogin.handleVariable), \(BlueskyLogin.passwordVariable))")))
                    }
                    continue
                case 401 where !options.api.isX, 403 where !options.api.isX:
                    let variable = options.api == .mastodon ? SearchClient.mastodonTokenVariable
                        : "\(BlueskyLogin.handleVariable) and \(BlueskyLogin.passwordVariable)"
                    return .stop(.failed(.refusedByService(
                        network: options.api.networkName, status: response.status, tokenVariable: variable,
                        hadToken: client.token != nil || session != nil, detail: detail(response))))
                case 404 where lookingUp:
                    return .stop(.failed(.noSuchAccount("")))
                case 401:
                    guard let token = client.token else { return .stop(.failed(.missingToken)) }
                    return .stop(.failed(.unauthorized(api: options.api, source: token.source, detail: detail(response))))
                case 403:
                    guard let token = client.token else { return .stop(.failed(.missingToken)) }
                    return .stop(.failed(.forbidden(api: options.api, source: token.source, detail: detail(response))))
                case 500..<600:
                    failures += 1
                    guard failures < options.attempts else {
                        return .stop(.failed(.serverError(
                            status: response.status, attempts: failures, detail: detail(response))))
                    }
                    if let stop = await backoff(page: page, reason: "HTTP \(response.status)", attempt: failures) {
                        return .stop(stop)
                    }
                default:
                    return .stop(.failed(.rejected(status: response.status, detail: detail(response))))
                }
            }
        }

        private func detail(_ response: HTTPResponse) -> String? {
            APIErrorDetail.read(response.body, hiding: secrets)
        }

        /// Every secret this search has held (the token, the password, each session's
        /// tokens), for hiding in server messages.
        var secrets: [String] = []

        private func isSearch(_ authorization: Authorization) -> Bool {
            if case .search = authorization { true } else { false }
        }

        /// XRPC's answer to a request with an access token past its time.
        static func isExpiredToken(_ response: HTTPResponse) -> Bool {
            struct Wire: Decodable { let error: String? }
            return (try? JSONDecoder().decode(Wire.self, from: Data(response.body)))?.error == "ExpiredToken"
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

        /// Sleeps before retry `attempt + 1`: doubling from the base, capped, with jitter so
        /// many clients failing together do not retry together.
        private func backoff(page: Int, reason: String, attempt: Int) async -> StopReason? {
            let delay = RetryPolicy(base: options.backoffBase, cap: options.backoffCap).backoff(afterAttempt: attempt)
            events(.retrying(page: page, reason: reason, attempt: attempt, of: options.attempts, delay: delay))
            do { try await options.clock.sleep(for: delay) } catch { return .failed(.cancelled) }
            return nil
        }
    }
}
