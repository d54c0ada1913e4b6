import Foundation
import HTTPTypes
import MediaFetch
import TweetModel

/// What one network's search API has that another's has not: where a page is asked
/// for, how the next page is found in the one before, which headers count the rate
/// limit, what signing in takes, and how a refusal is worded for the user.
///
/// Everything the networks share is written once outside it: waiting out rate limits
/// and retrying failures (``RequestLoop``), paging, saving every page as served and
/// stopping on a repeated cursor (``SearchClient``). Pages are read by TweetModel's
/// own parser, the one `fetch` reads them with later, so a service names the page
/// shapes it serves instead of keeping a second model of them. A new network is a new
/// conformance and a case of ``SearchAPI``; the list is in `docs/architecture.md`.
protocol SearchService: Sendable {
    /// The network whose posts the pages hold.
    var network: Network { get }
    /// How messages name the service: "the X API", "Mastodon".
    var name: String { get }
    /// How the CLI names what is asked: "v2 recent search", "Mastodon tag timeline".
    var endpointName: String { get }
    /// The query as the service is asked it (operators added or translated).
    var apiQuery: String { get }
    /// The page sizes the service accepts.
    var pageSizes: ClosedRange<Int> { get }
    /// The shapes its search pages take; a page of any other is malformed.
    var pageFormats: Set<SourceFormat> { get }
    /// Whether a parsed page is one of its results pages (by default: one of ``pageFormats``).
    func accepts(_ page: ResultsPage) -> Bool
    /// Which headers count its rate limit.
    var rateLimitHeaders: RateLimitHeaders { get }
    /// The headers that carry the search's credential (none when it has none).
    var credentialHeaders: HTTPFields { get }

    /// The credential a search of this network signs in with, from where users keep
    /// it: a token file named on the command line or the environment.
    static func credentials(tokenFile: String?, environment: [String: String]) throws(LiveSearchError)
        -> SearchCredentials

    /// What must happen before the first page (signing in, looking up an account),
    /// through the loop's waits and retries; nil when the search can start.
    mutating func prepare(_ loop: inout RequestLoop) async -> StopReason?
    /// The URL of the page that starts at `cursor` (nil: the first page), asking only
    /// for posts newer than `since` where the API can.
    func pageURL(pageSize: Int, cursor: PageCursor?, since: SearchBoundary?) -> String
    /// Where the page after `page` starts; nil at the end of the results.
    func cursor(after page: ResultsPage) -> PageCursor?
    /// A refusal of a search request (a 4xx other than 429), in words that say what to fix.
    func refusal(status: Int, detail: String?) -> LiveSearchError
    /// One page request through the loop. A service whose credential expires during a
    /// search renews it here and asks again.
    mutating func sendPage(_ url: String, page: Int, loop: inout RequestLoop) async -> PageAnswer
}

extension SearchService {
    func accepts(_ page: ResultsPage) -> Bool { pageFormats.contains(page.format) }

    mutating func prepare(_ loop: inout RequestLoop) async -> StopReason? { nil }

    mutating func sendPage(_ url: String, page: Int, loop: inout RequestLoop) async -> PageAnswer {
        outcome(of: await loop.send(url, headers: credentialHeaders, page: page, rateLimits: rateLimitHeaders, service: name))
    }

    /// A loop's answer as a page request's result, a refusal in the service's words.
    func outcome(of answer: RequestLoop.Answer) -> PageAnswer {
        switch answer {
        case let .response(response): .response(response)
        case let .refused(response, detail): .stop(.failed(refusal(status: response.status, detail: detail)))
        case let .stop(stop): .stop(stop)
        }
    }

    /// The results page in `body`, read by the parser `fetch` uses, when it is one of
    /// this service's page shapes; else why not, for the user.
    func readPage(_ body: [UInt8]) -> Result<ResultsPage, PageProblem> {
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            return .failure(PageProblem(reason: "the page is empty"))
        }
        let parsed = ResultsParser.parse(Data(body), source: "page")
        guard parsed.pages.count == 1, let page = parsed.pages.first else {
            let reason = parsed.problems.first?.message
                ?? (parsed.pages.isEmpty ? "it holds no results" : "it holds \(parsed.pages.count) documents")
            return .failure(PageProblem(reason: reason))
        }
        guard accepts(page) else {
            let expected = pageFormats.map(\.displayName).sorted().joined(separator: " or ")
            return .failure(PageProblem(reason: "a \(page.format.displayName) where \(name) serves a \(expected)"))
        }
        return .success(page)
    }
}

/// A page request's end: the page, or why the search stops.
enum PageAnswer {
    case response(APIResponse)
    case stop(StopReason)
}

/// Why a page is not one of the service's results pages.
struct PageProblem: Error, Sendable {
    let reason: String
}

/// What a search signs in with: a bearer token (X; Mastodon's access token) or a
/// Bluesky handle and app password. Neither ever shows its secret.
public struct SearchCredentials: Sendable {
    public var token: BearerToken?
    public var blueskyLogin: BlueskyLogin?

    public init(token: BearerToken? = nil, blueskyLogin: BlueskyLogin? = nil) {
        self.token = token
        self.blueskyLogin = blueskyLogin
    }
}
