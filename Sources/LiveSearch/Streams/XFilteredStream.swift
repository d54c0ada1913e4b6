import Foundation
import HTTPTypes
import MediaFetch
public import TweetModel

/// X's v2 filtered stream (`GET /2/tweets/search/stream`): one long response of JSON
/// lines, a post per line, and a bare line break as a heartbeat every 20 s or so.
///
/// What it delivers is decided by rules kept on X's side between connections, so
/// ``prepare(_:)`` reconciles them with the watched queries: each query is a rule
/// tagged `tweetcache:<query>` (the same text a search would send, retweets left out
/// unless asked for); a rule with that prefix whose query is no longer watched is
/// deleted, and rules others made (no prefix) are left alone. Posts that match only
/// others' rules are not kept.
public struct XFilteredStream: PostStream {
    public static let tagPrefix = "tweetcache:"
    let queries: [SearchQuery]
    let token: BearerToken
    let base: ServiceURL
    /// What `prepare` did, for messages: rules added and removed.
    public private(set) var ruleChanges: (added: [String], removed: [String]) = ([], [])

    public init(queries: [SearchQuery], token: BearerToken?, baseURL: String?) throws(LiveSearchError) {
        guard let token else { throw .missingToken }
        guard !queries.isEmpty else { throw .emptyQuery }
        self.queries = queries
        self.token = token
        base = try ServiceURL(baseURL ?? "https://api.x.com")
        guard base.carriesSecrets else { throw .setup("the token is only sent over https (or to this machine)") }
    }

    public var network: Network { .x }
    public var name: String { "X filtered stream" }
    public var key: String { "x-filtered-stream" }

    private var headers: HTTPFields { HTTPFields([token.authorizationHeader]) }

    /// The rules wanted: value (as search would send it) by tag.
    var wantedRules: [String: String] {
        var rules: [String: String] = [:]
        for query in queries {
            let value = (try? XSearch(version: .v2, query: query, token: token, baseURL: base.base))?.apiQuery ?? query.terms
            rules[Self.tagPrefix + query.text] = value
        }
        return rules
    }

    private struct RuleAnswer: Decodable {
        struct Meta: Decodable {
            struct Summary: Decodable { var not_created: Int? }
            var summary: Summary?
        }
        struct Problem: Decodable { var title: String?; var value: String?; var details: [String]? }
        var meta: Meta?
        var errors: [Problem]?
    }

    private struct RuleList: Decodable {
        struct Rule: Decodable { var id: String; var value: String; var tag: String? }
        var data: [Rule]?
    }

    public mutating func prepare(_ session: StreamSession) async throws(LiveSearchError) {
        let rulesURL = base.url("/2/tweets/search/stream/rules")
        let listed = try await call(session, APIRequest(url: rulesURL, headers: headers))
        guard let current = try? JSONDecoder().decode(RuleList.self, from: Data(listed)) else {
            throw .service(network: "X", message: "the stream's rules came back unreadable")
        }
        let wanted = wantedRules
        let ours = (current.data ?? []).filter { $0.tag?.hasPrefix(Self.tagPrefix) ?? false }
        // A rule of ours whose text changed (a --retweets now) is replaced as well.
        let stale = ours.filter { wanted[$0.tag ?? ""] != $0.value }
        let held = Set(ours.filter { wanted[$0.tag ?? ""] == $0.value }.compactMap(\.tag))
        let missing = wanted.filter { !held.contains($0.key) }.sorted { $0.key < $1.key }
        if !stale.isEmpty {
            let body = try? JSONSerialization.data(withJSONObject: ["delete": ["ids": stale.map(\.id)]])
            _ = try await call(session, APIRequest(url: rulesURL, headers: headers + [.contentType: "application/json"],
                                                    body: [UInt8](body ?? Data())))
        }
        if !missing.isEmpty {
            let add = missing.map { ["value": $0.value, "tag": $0.key] }
            let body = try? JSONSerialization.data(withJSONObject: ["add": add])
            let answer = try await call(session, APIRequest(url: rulesURL, headers: headers + [.contentType: "application/json"],
                                                             body: [UInt8](body ?? Data())))
            // A rule X will not take (its syntax, a limit) comes back in a 2xx with
            // `errors` and `meta.summary.not_created`: the query would never deliver.
            if let refused = try? JSONDecoder().decode(RuleAnswer.self, from: Data(answer)),
               (refused.meta?.summary?.not_created ?? 0) > 0 {
                let why = refused.errors?.first.map { [$0.title, $0.value, $0.details?.first].compactMap { $0 }.joined(separator: ": ") }
                throw .rejected(service: "the X API", status: 400, detail: "a stream rule was refused"
                    + (why.map { " (\(APIErrorDetail.clean($0)))" } ?? ""))
            }
        }
        ruleChanges = (missing.map(\.key), stale.compactMap(\.tag))
    }

    /// A rules call: the body of a 2xx, else what the status means.
    private func call(_ session: StreamSession, _ request: APIRequest) async throws(LiveSearchError) -> [UInt8] {
        switch await session.call(request) {
        case let .failure(failure):
            throw .network(service: "the X API", failure.description, attempts: 1)
        case let .success(response) where (200..<300).contains(response.status):
            return response.body
        case let .success(response):
            let detail = APIErrorDetail.read(response.body, hiding: [token.value])
            if response.status >= 500 {
                throw .serverError(service: "the X API", status: response.status, attempts: 1, detail: detail)
            }
            throw refusal(response.status, detail)
        }
    }

    private func refusal(_ status: Int, _ detail: String?) -> LiveSearchError {
        switch status {
        case 401: .unauthorized(api: .v2, source: token.source, detail: detail)
        case 403: .forbidden(api: .v2, source: token.source, detail: detail)
        default: .rejected(service: "the X API", status: status, detail: detail)
        }
    }

    private struct Line: Decodable {
        struct Post: Decodable { var id: String }
        struct Rule: Decodable { var tag: String? }
        struct Problem: Decodable { var title: String?; var detail: String? }
        var data: Post?
        var matching_rules: [Rule]?
        var errors: [Problem]?
    }

    public func connect(cursor: String?, session: StreamSession,
                        deliver: @escaping @Sendable (StreamEvent) async -> Void) async -> StreamEnd {
        let url = base.url("/2/tweets/search/stream", XSearch.v2Fields)
        let stream = HTTPEventStream(request: APIRequest(url: url, headers: headers), service: name)
        let decoder = JSONDecoder()
        return await stream.run(session: session, refusal: refusal) { line in
            // A heartbeat: a line with nothing on it.
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
            guard let read = try? decoder.decode(Line.self, from: Data(line)) else {
                await deliver(.problem("\(name): a line that is not a post (\(line.count) bytes), skipped"))
                return nil
            }
            if let post = read.data {
                let tags = read.matching_rules?.compactMap(\.tag) ?? []
                // Posts that matched only rules others made are theirs.
                if read.matching_rules == nil || tags.contains(where: { $0.hasPrefix(Self.tagPrefix) }) {
                    await deliver(.post(id: post.id, document: line))
                }
                return nil
            }
            // X ends a stream with an error object (operational-disconnect, a connection
            // limit); the connection is over, the next may work.
            let said = read.errors?.first.map { [$0.title, $0.detail].compactMap { $0 }.joined(separator: ": ") } ?? "an unknown line"
            return .failed("\(name): \(APIErrorDetail.clean(said))")
        } problem: { await deliver(.problem($0)) }
    }
}
