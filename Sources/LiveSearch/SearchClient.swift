import Foundation
import MediaFetch
import TweetModel

/// Runs one search against the X API, a Mastodon instance or a Bluesky AppView: pages
/// until `count` results or the end, saves every page as served, and deals with rate
/// limits and flaky servers on the way.
///
/// The API's answers decide everything: each page says where the next starts (the
/// network's ``SearchService`` reads it from the parsed page); rate-limit headers say
/// when to pause; a 429 is waited out when the reset is within ``SearchOptions/maxWait``;
/// 5xx and network failures are retried with backoff (``RequestLoop``). Whatever stops
/// the search, the pages saved so far come back in the ``SearchOutcome``.
public final class SearchClient: Sendable {
    public let query: SearchQuery
    public let options: SearchOptions
    private let service: any SearchService
    private let token: BearerToken?
    private let fetcher: HTTPFetcher

    /// The variable Mastodon's access token is read from.
    public static let mastodonTokenVariable = MastodonSearch.tokenVariable
    /// Where a Bluesky login signs in (and searches) unless `--api-base` says otherwise.
    public static let blueskySignInService = BlueskySearch.signInService

    /// `token` is X's bearer token or Mastodon's access token; a Bluesky login comes in
    /// `options` (``SearchOptions/blueskyLogin``).
    public init(query: SearchQuery, token: BearerToken?, options: SearchOptions) throws(LiveSearchError) {
        guard options.count >= 1 else { throw .invalidCount(options.count) }
        self.query = query
        self.token = token
        self.options = options
        service = try options.api.service(
            query: query, credentials: SearchCredentials(token: token, blueskyLogin: options.blueskyLogin),
            baseURL: options.baseURL)
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
    public var apiQuery: String { service.apiQuery }

    /// What is asked, for messages: "v2 recent search", "Mastodon tag timeline".
    public var endpointName: String { service.endpointName }

    /// What identifies this search across runs and machines: the API, the server it
    /// asks (empty for the network's own) and the query as sent (options that change
    /// the results, such as `--retweets`, are part of it).
    public var key: (api: String, base: String, query: String) {
        (options.api.rawValue, options.baseURL ?? "", service.apiQuery)
    }

    /// Runs the search. Never throws: how it ended is ``SearchOutcome/stop``.
    public func run(started: Date = Date(), events: @escaping @Sendable (SearchEvent) -> Void = { _ in })
        async -> SearchOutcome
    {
        var loop = RequestLoop(fetcher: fetcher, options: options, events: events)
        if let token { loop.hide(token.value) }
        var service = self.service
        var paging = Paging(store: PageStore(
            directory: options.resultsDirectory, api: options.api, query: query, started: started), since: options.since)
        let stop: StopReason
        if let failed = await service.prepare(&loop) {
            stop = failed
        } else {
            stop = await paging.run(&service, loop: &loop, count: options.count, events: events)
        }
        let reached = options.since == nil || stop == .endOfResults || stop == .reachedHeld
        return SearchOutcome(pages: paging.pages, tweets: paging.tweets, requests: loop.requests, stop: stop,
                             reachedHeld: reached)
    }

    /// The pages of one search: asked one after another, each saved as served, until
    /// the count, the end, or a page that cannot be paged past.
    private struct Paging {
        let store: PageStore
        let since: SearchBoundary?
        var pages: [SavedPage] = []
        var tweets = 0

        mutating func run(
            _ service: inout any SearchService, loop: inout RequestLoop, count: Int,
            events: @Sendable (SearchEvent) -> Void
        ) async -> StopReason {
            var cursor: PageCursor?
            var seen: Set<PageCursor> = []
            var emptyStreak = 0
            while true {
                let number = pages.count + 1
                let size = min(max(count - tweets, service.pageSizes.lowerBound), service.pageSizes.upperBound)
                let response: APIResponse
                switch await service.sendPage(service.pageURL(pageSize: size, cursor: cursor, since: since),
                                              page: number, loop: &loop) {
                case let .response(r): response = r
                case let .stop(stop): return stop
                }
                let file: URL
                do { file = try store.save(response.body, number: number) } catch { return .failed(error) }
                var saved = SavedPage(number: number, file: file, tweets: 0)
                let page: ResultsPage
                switch service.readPage(response.body) {
                case let .success(read): page = read
                case let .failure(problem):
                    saved.problem = problem.reason
                    pages.append(saved)
                    events(.pageSaved(saved))
                    return .malformedPage(number: number, reason: problem.reason)
                }
                saved.tweets = page.tweets.count
                pages.append(saved)
                tweets += page.tweets.count
                events(.pageSaved(saved))

                // Posts already held: the pages below hold nothing new.
                if let since, page.tweets.contains(where: since.holds) { return .reachedHeld }
                if tweets >= count { return .countReached }
                guard let next = service.cursor(after: page) else { return .endOfResults }
                // A server that repeats a cursor, or sends page after empty page, would
                // otherwise keep a search going forever.
                guard seen.insert(next).inserted else { return .endOfResults }
                if case let .maxID(newID) = next, case let .maxID(oldID) = cursor, newID >= oldID {
                    return .endOfResults
                }
                emptyStreak = page.tweets.isEmpty ? emptyStreak + 1 : 0
                if emptyStreak >= 3 { return .endOfResults }
                cursor = next
            }
        }
    }
}
