import Foundation
import HTTPTypes
import TweetModel

/// Mastodon's REST API on one instance (and the servers that speak it: GoToSocial,
/// Pleroma, Pixelfed).
///
/// What is read depends on the query: `#tag` the public tag timeline and `@user@host`
/// that account's statuses (looked up by `acct` first; both need no token), anything
/// else `/api/v2/search`, which needs an access token. Statuses come newest first and
/// the next page is asked with `max_id` = the last status's id.
struct MastodonSearch: SearchService {
    /// The variable Mastodon's access token is read from.
    static let tokenVariable = "MASTODON_ACCESS_TOKEN"

    let query: SearchQuery
    let token: BearerToken?
    let base: ServiceURL
    private(set) var target: Target

    /// What the search reads, decided by the query.
    enum Target: Sendable, Hashable {
        case tag(String)
        /// An account known by `user@host` only, until ``prepare(_:)`` looks up its id.
        case unresolvedAccount(acct: String)
        case account(id: String)
        case search(String)

        var isSearch: Bool {
            if case .search = self { return true }
            return false
        }
    }

    init(query: SearchQuery, token: BearerToken?, instance: String?) throws(LiveSearchError) {
        guard let instance, !instance.trimmingCharacters(in: .whitespaces).isEmpty else { throw .missingInstance }
        self.query = query
        self.token = token
        base = try ServiceURL(instance)
        if let tag = Self.tag(in: query.text) {
            target = .tag(tag)
        } else if let acct = Self.account(in: query.text) {
            target = .unresolvedAccount(acct: acct)
        } else {
            guard token != nil else {
                throw .service(network: "Mastodon", message: "searching for text needs an access token: set "
                    + "\(Self.tokenVariable) (a #tag or @user@host needs none)")
            }
            target = .search(query.text)
        }
    }

    var network: Network { .mastodon }
    var name: String { "Mastodon" }
    var endpointName: String {
        switch target {
        case .tag: "Mastodon tag timeline"
        case .unresolvedAccount, .account: "Mastodon account statuses"
        case .search: "Mastodon search"
        }
    }
    var apiQuery: String { query.text }
    var pageSizes: ClosedRange<Int> { 1...40 }
    /// A timeline is an array of statuses, `/api/v2/search` an object holding one.
    var pageFormats: Set<SourceFormat> { [.mastodonStatuses, .mastodonSearch] }
    var rateLimitHeaders: RateLimitHeaders { .mastodon }

    /// An empty timeline is `[]`, which the parser cannot tell from an empty array of
    /// X's tweets: it is Mastodon's last page.
    func accepts(_ page: ResultsPage) -> Bool {
        pageFormats.contains(page.format) || (page.format == .v1Timeline && page.tweets.isEmpty && page.problems.isEmpty)
    }
    var credentialHeaders: HTTPFields {
        HTTPFields(token.map { [$0.authorizationHeader] } ?? [])
    }

    /// Optional, from `--token-file` or `MASTODON_ACCESS_TOKEN`: tag and account
    /// timelines are public.
    static func credentials(tokenFile: String?, environment: [String: String]) throws(LiveSearchError)
        -> SearchCredentials
    {
        if tokenFile != nil { return SearchCredentials(token: try BearerToken.resolve(tokenFile: tokenFile, environment: [:])) }
        guard let value = environment[tokenVariable], !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { return SearchCredentials() }
        return SearchCredentials(token: try BearerToken(value, source: .environment(tokenVariable)))
    }

    /// `/api/v1/accounts/lookup`: the id an account's timeline is read by.
    mutating func prepare(_ loop: inout RequestLoop) async -> StopReason? {
        guard case let .unresolvedAccount(acct) = target else { return nil }
        let answer = await loop.send(
            base.url("/api/v1/accounts/lookup", [("acct", acct)]), headers: credentialHeaders, page: 0,
            rateLimits: rateLimitHeaders, service: name)
        switch answer {
        case let .refused(response, _) where response.status == 404: return .failed(.noSuchAccount(acct))
        case let .refused(response, detail): return .failed(refusal(status: response.status, detail: detail))
        case let .stop(stop): return stop
        case let .response(response):
            struct Account: Decodable { let id: String }
            guard let account = try? JSONDecoder().decode(Account.self, from: Data(response.body)),
                  !account.id.isEmpty, account.id.utf8.count <= 64
            else { return .failed(.service(network: name, message: "the account lookup answer has no id")) }
            target = .account(id: account.id)
            return nil
        }
    }

    func pageURL(pageSize: Int, cursor: PageCursor?, since: SearchBoundary?) -> String {
        var items = [("limit", String(pageSize))]
        // Timelines take `since_id` beside `max_id` paging; `/api/v2/search` does not
        // (its `min_id` pages the other way): there the first page holding a known
        // status ends the search.
        if let id = since?.decimalID, !target.isSearch { items.append(("since_id", id.digits)) }
        // Statuses come newest first; max_id asks for those older than it.
        if case let .olderThan(id) = cursor { items.append(("max_id", id)) }
        switch target {
        case let .tag(tag):
            return base.url("/api/v1/timelines/tag/" + ServiceURL.encode(tag), items)
        // An account is looked up before the first page; unresolved, the lookup failed the search.
        case let .account(id), let .unresolvedAccount(id):
            return base.url("/api/v1/accounts/" + ServiceURL.encode(id) + "/statuses", items + [("exclude_reblogs", "true")])
        case let .search(text):
            return base.url("/api/v2/search", [("q", text), ("type", "statuses"), ("resolve", "false")] + items)
        }
    }

    /// The last (oldest) status's id; `max_id` is exclusive, so the next page starts below it.
    func cursor(after page: ResultsPage) -> PageCursor? {
        guard let id = page.tweets.last?.id, !id.isEmpty, id.utf8.count <= 64 else { return nil }
        return .olderThan(id)
    }

    func refusal(status: Int, detail: String?) -> LiveSearchError {
        switch status {
        case 401, 403:
            .refusedByService(network: name, status: status, tokenVariable: Self.tokenVariable,
                              hadToken: token != nil, detail: detail)
        default:
            .rejected(service: name, status: status, detail: detail)
        }
    }

    /// `#tag`: the tag's public timeline, no token needed.
    static func tag(in text: String) -> String? {
        guard text.hasPrefix("#") else { return nil }
        let tag = text.dropFirst()
        guard !tag.isEmpty, tag.unicodeScalars.count <= 100,
              tag.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" })
        else { return nil }
        return String(tag)
    }

    /// `@user` or `@user@host`: that account's statuses.
    static func account(in text: String) -> String? {
        guard text.hasPrefix("@") else { return nil }
        let acct = text.dropFirst()
        let parts = acct.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }), acct.utf8.count <= 300,
              acct.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                  || "_.-@".unicodeScalars.contains($0)) })
        else { return nil }
        return String(acct)
    }
}
