import Foundation
import HTTPTypes
import MediaFetch
import TweetModel

/// Bluesky's `app.bsky.feed.searchPosts` on an AppView: the public one without
/// signing in, or the account's own server with a handle and app password.
///
/// `#tag` and `from:handle` are the service's own operators (a lone `@handle` is sent
/// as `from:handle`, as on X). Pages follow the `cursor` of the page before. Signed
/// in, the access token lives minutes; when the server says it expired, the refresh
/// token buys a new pair, once per request.
struct BlueskySearch: SearchService {
    /// Where a login signs in (and searches) unless `--api-base` says otherwise.
    static let signInService = "https://bsky.social"
    static let publicAppView = "https://public.api.bsky.app"

    let query: SearchQuery
    let login: BlueskyLogin?
    let base: ServiceURL
    private var session: BlueskySession?

    init(query: SearchQuery, login: BlueskyLogin?, baseURL: String?) throws(LiveSearchError) {
        self.query = query
        self.login = login
        // Signed in, searches go to the account's server, which forwards them.
        base = try ServiceURL(baseURL ?? (login == nil ? Self.publicAppView : Self.signInService))
    }

    var network: Network { .bluesky }
    var name: String { "Bluesky" }
    var endpointName: String { "Bluesky searchPosts" }
    var pageSizes: ClosedRange<Int> { 1...100 }
    var pageFormats: Set<SourceFormat> { [.blueskyPosts] }
    var rateLimitHeaders: RateLimitHeaders { .bluesky }
    var credentialHeaders: HTTPFields { session.map { [.authorization: "Bearer \($0.accessJwt)"] } ?? [:] }

    var apiQuery: String {
        let text = query.text
        guard text.hasPrefix("@"), text.count > 1, !text.contains(" ") else { return text }
        return "from:\(text.dropFirst())"
    }

    /// `BLUESKY_HANDLE` and `BLUESKY_APP_PASSWORD`, both or neither (the public AppView
    /// answers without); a token file is not how Bluesky signs in.
    static func credentials(tokenFile: String?, environment: [String: String]) throws(LiveSearchError)
        -> SearchCredentials
    {
        guard tokenFile == nil else {
            throw .service(network: "Bluesky", message: "signs in with \(BlueskyLogin.handleVariable) and "
                + "\(BlueskyLogin.passwordVariable), not a token file")
        }
        return SearchCredentials(blueskyLogin: try BlueskyLogin.fromEnvironment(environment))
    }

    /// `com.atproto.server.createSession` with the handle and app password, when there
    /// is a login; the password is never in a message.
    mutating func prepare(_ loop: inout RequestLoop) async -> StopReason? {
        guard let login else { return nil }
        guard base.carriesSecrets else {
            return .failed(.service(network: name, message: "will not send the app password over plain http to "
                + "\(base.base); give an https --api-base"))
        }
        loop.hide(login.password)
        let answer = await loop.send(
            base.url("/xrpc/com.atproto.server.createSession"), headers: [:], body: login.sessionRequestBody, page: 0,
            rateLimits: rateLimitHeaders, service: name)
        switch answer {
        case let .refused(response, detail):
            return .failed(.service(network: name, message: "refused to sign in \(login.handle) (HTTP \(response.status)"
                + (detail.map { ": \($0)" } ?? "") + "): check \(BlueskyLogin.handleVariable) and "
                + "\(BlueskyLogin.passwordVariable) (an app password: Settings → App passwords); an account on "
                + "another server signs in there: --api-base https://its-server"))
        case let .stop(stop):
            return stop
        case let .response(response):
            guard let session = BlueskySession(response.body) else {
                return .failed(.service(network: name, message: "the sign-in answer holds no session tokens"))
            }
            start(session, hiddenFrom: &loop)
            return nil
        }
    }

    mutating func sendPage(_ url: String, page: Int, loop: inout RequestLoop) async -> PageAnswer {
        var renewed = false
        while true {
            let answer = await loop.send(url, headers: credentialHeaders, page: page, rateLimits: rateLimitHeaders, service: name)
            guard case let .refused(response, _) = answer, session != nil, !renewed,
                  response.status == 400 || response.status == 401, Self.isExpiredToken(response)
            else { return outcome(of: answer) }
            renewed = true
            guard await refresh(&loop) else {
                return .stop(.failed(.service(network: name, message: "the session expired and could not be "
                    + "refreshed; sign in again (\(BlueskyLogin.handleVariable), \(BlueskyLogin.passwordVariable))")))
            }
        }
    }

    /// `com.atproto.server.refreshSession`: a new token pair for an expired access
    /// token; false when the server will not give one.
    private mutating func refresh(_ loop: inout RequestLoop) async -> Bool {
        guard let current = session else { return false }
        guard case let .response(response) = await loop.send(
            base.url("/xrpc/com.atproto.server.refreshSession"), headers: [.authorization: "Bearer \(current.refreshJwt)"],
            body: [], page: 0, rateLimits: rateLimitHeaders, service: name),
            let fresh = BlueskySession(response.body)
        else { return false }
        start(fresh, hiddenFrom: &loop)
        return true
    }

    private mutating func start(_ session: BlueskySession, hiddenFrom loop: inout RequestLoop) {
        self.session = session
        loop.hide(session.accessJwt)
        loop.hide(session.refreshJwt)
    }

    /// XRPC's answer to a request with an access token past its time.
    static func isExpiredToken(_ response: APIResponse) -> Bool {
        struct Wire: Decodable { let error: String? }
        return (try? JSONDecoder().decode(Wire.self, from: Data(response.body)))?.error == "ExpiredToken"
    }

    func pageURL(pageSize: Int, cursor: PageCursor?, since: SearchBoundary?) -> String {
        var items = [("q", apiQuery), ("limit", String(pageSize)), ("sort", "latest")]
        // Posts from the newest one held on (`since` is inclusive; the page that
        // reaches one held ends the search).
        if let time = since?.isoTime { items.append(("since", time)) }
        if case let .nextToken(token) = cursor { items.append(("cursor", token)) }
        return base.url("/xrpc/app.bsky.feed.searchPosts", items)
    }

    /// The page's `cursor`, unless the page was empty (an AppView can send a cursor past the end).
    func cursor(after page: ResultsPage) -> PageCursor? {
        guard !page.tweets.isEmpty, let next = page.nextToken else { return nil }
        return .nextToken(next)
    }

    func refusal(status: Int, detail: String?) -> LiveSearchError {
        switch status {
        case 401, 403:
            .refusedByService(network: name, status: status,
                              tokenVariable: "\(BlueskyLogin.handleVariable) and \(BlueskyLogin.passwordVariable)",
                              hadToken: session != nil, detail: detail)
        default:
            .rejected(service: name, status: status, detail: detail)
        }
    }
}
