import Foundation
import Synchronization
import MediaFetch

/// A stand-in for the X API's search endpoints, for tests and hand-run sessions.
///
/// Speaks the documented formats — v2 `GET /2/tweets/search/recent` (data, includes,
/// meta with `next_token`) and v1.1 `GET /1.1/search/tweets.json` (statuses,
/// search_metadata, `max_id` paging) — over a real loopback socket, with bearer-token
/// checks, a rate-limit window reported in `x-rate-limit-*` headers, and faults
/// scripted by request number. It also serves the media the results point at, so
/// `--mirror pbs.twimg.com=<baseURL>` completes a whole run offline.
public final class FakeSearchAPI: Sendable {
    public struct Configuration: Sendable {
        /// The token `Authorization: Bearer` must carry.
        public var token = "fake-bearer-token-0123456789"
        /// Results the corpus holds, newest first; every query matches all of them.
        public var totalTweets = 300
        /// The newest of them not posted yet: the API does not serve them until
        /// ``publish(_:)`` posts them (a collection that grows between searches).
        public var unpublished = 0
        /// Posts this many of the unpublished ones after answering each search request:
        /// a collection that grows while another process watches it, with no clock.
        public var publishedPerRequest = 0
        /// Requests allowed per window, and the window's length.
        public var rateLimit = 450
        public var rateWindow: TimeInterval = 900
        /// Size of each served image (a real PNG, whatever the URL's extension says).
        public var imageWidth = 64
        public var imageHeight = 48
        /// The time the rate-limit window and the reset headers follow; share a
        /// ``VirtualClock`` with the client and no test waits on the wall clock.
        public var clock: any WallClock = SystemWallClock()

        public init() {}
    }

    /// A scripted misbehaviour for one API request.
    public enum Fault: Sendable {
        /// 429 with `x-rate-limit-remaining: 0` and a reset `seconds` ahead.
        case tooManyRequests(resetIn: Int)
        case serviceUnavailable
        case forbidden
        /// 200 with half of the real page: not valid JSON.
        case truncatedPage
    }

    public let server: LoopbackHTTPServer
    public let configuration: Configuration
    private let state: StateBox

    private final class StateBox: Sendable {
        let mutex: Mutex<State>
        init(_ state: State) { mutex = Mutex(state) }
    }

    private struct State {
        var apiRequests = 0
        var remaining: Int
        var windowReset: Date
        var served429 = 0
        var faults: [Int: Fault]
        var unpublished = 0
    }

    /// Posts the `count` next newest tweets of the corpus: searches see them from now on.
    public func publish(_ count: Int) {
        state.mutex.withLock { $0.unpublished = max(0, $0.unpublished - count) }
    }

    /// Faults are keyed by API request number, 1-based (media requests do not count).
    public init(_ configuration: Configuration = Configuration(), faults: [Int: Fault] = [:]) throws {
        self.configuration = configuration
        let state = StateBox(State(
            remaining: configuration.rateLimit, windowReset: configuration.clock.now().addingTimeInterval(configuration.rateWindow),
            faults: faults, unpublished: configuration.unpublished))
        self.state = state
        let corpus = Corpus(count: configuration.totalTweets)
        server = try LoopbackHTTPServer { request in
            Self.handle(request, configuration: configuration, corpus: corpus, state: state)
        }
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { server.baseURL }

    /// The `--mirror` argument that sends the results' media here.
    public var mirrorSpec: String { "pbs.twimg.com=\(baseURL)" }

    /// Requests to either search endpoint, in order.
    public var apiRequests: [LoopbackHTTPServer.Request] {
        server.requests.filter { $0.path == Self.v2Path || $0.path == Self.v1Path }
    }

    /// 429 answers sent so far (scripted or from the window running out).
    public var tooManyRequestsServed: Int { state.mutex.withLock { $0.served429 } }

    /// Requests for media or avatars.
    public var mediaRequests: Int { server.requests.count - apiRequests.count }

    /// The tweet ids of the corpus, newest first, as decimal strings.
    public var tweetIDs: [String] { Corpus(count: configuration.totalTweets).ids }

    public static let v2Path = "/2/tweets/search/recent"
    public static let v1Path = "/1.1/search/tweets.json"

    /// A request target's query parameters, decoded (`+` as space, `%XX`).
    public static func parameters(_ request: LoopbackHTTPServer.Request) -> [String: String] {
        guard let q = request.target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        var out: [String: String] = [:]
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            out[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
        return out
    }

    // MARK: - Serving

    private static func handle(
        _ request: LoopbackHTTPServer.Request, configuration: Configuration, corpus: Corpus, state: StateBox
    ) -> LoopbackHTTPServer.Action {
        let path = request.path
        if path.hasPrefix("/media/") || path.hasPrefix("/profile_images/") {
            return .respond(status: 200, headers: [("Content-Type", "image/png")],
                            body: TinyPNG.make(width: configuration.imageWidth, height: configuration.imageHeight, tag: path))
        }
        guard path == v2Path || path == v1Path else { return .respond(status: 404) }
        let isV2 = path == v2Path
        let now = configuration.clock.now()

        // The rate-limit window and the scripted fault, decided atomically per request.
        let (number, fault, limitHeaders, overLimit): (Int, Fault?, [(String, String)], Bool) = state.mutex.withLock { s in
            s.apiRequests += 1
            if now >= s.windowReset {
                s.remaining = configuration.rateLimit
                s.windowReset = now.addingTimeInterval(configuration.rateWindow)
            }
            let fault = s.faults.removeValue(forKey: s.apiRequests)
            var over = false
            if case .tooManyRequests = fault {
                s.served429 += 1
            } else if s.remaining == 0 {
                over = true
                s.served429 += 1
            } else {
                s.remaining -= 1
            }
            let headers = [
                ("x-rate-limit-limit", String(configuration.rateLimit)),
                ("x-rate-limit-remaining", String(s.remaining)),
                ("x-rate-limit-reset", String(Int(s.windowReset.timeIntervalSince1970.rounded(.up)))),
            ]
            return (s.apiRequests, fault, headers, over)
        }
        _ = number
        let json = [("Content-Type", "application/json; charset=utf-8")]

        if request.headers["authorization"] != "Bearer \(configuration.token)" {
            let body = isV2
                ? #"{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}"#
                : #"{"errors":[{"code":89,"message":"Invalid or expired token."}]}"#
            return .respond(status: 401, headers: json, body: Array(body.utf8))
        }
        switch fault {
        case let .tooManyRequests(seconds):
            let reset = Int(now.timeIntervalSince1970.rounded(.up)) + seconds
            return .respond(status: 429, headers: json + [
                ("x-rate-limit-limit", String(configuration.rateLimit)), ("x-rate-limit-remaining", "0"),
                ("x-rate-limit-reset", String(reset)),
            ], body: Array(tooManyBody(isV2).utf8))
        case .serviceUnavailable:
            return .respond(status: 503, headers: json + limitHeaders, body: Array(
                #"{"title":"Service Unavailable","detail":"Service Unavailable","type":"about:blank","status":503}"#.utf8))
        case .forbidden:
            return .respond(status: 403, headers: json, body: Array(
                #"{"title":"Client Forbidden","detail":"This request must be made using an approved developer account that is enrolled in the requested endpoint.","reason":"client-not-enrolled","type":"https://api.twitter.com/2/problems/client-forbidden"}"#.utf8))
        case .truncatedPage, .none:
            break
        }
        if overLimit {
            return .respond(status: 429, headers: json + limitHeaders, body: Array(tooManyBody(isV2).utf8))
        }

        let params = parameters(request)
        // What is posted (the newest not yet), and of that what is newer than `since_id`.
        let first = state.mutex.withLock { s in
            defer { s.unpublished = max(0, s.unpublished - configuration.publishedPerRequest) }
            return s.unpublished
        }
        var last = corpus.count
        if let since = params["since_id"] {
            guard let bound = UInt64(since) else {
                let body = isV2 ? #"{"errors":[{"message":"The `since_id` query parameter value is not valid"}]}"#
                    : #"{"errors":[{"code":44,"message":"since_id parameter is invalid."}]}"#
                return .respond(status: 400, headers: json + limitHeaders, body: Array(body.utf8))
            }
            last = corpus.ids.firstIndex { UInt64($0)! <= bound } ?? corpus.count
        }
        let visible = first..<max(first, last)
        let page: String
        switch isV2 ? v2Page(params, corpus, visible) : v1Page(params, corpus, visible) {
        case let .success(body): page = body
        case let .failure(problem):
            return .respond(status: 400, headers: json + limitHeaders, body: Array(problem.message.utf8))
        }
        var body = Array(page.utf8)
        if case .truncatedPage = fault { body = Array(body.prefix(body.count / 2)) }
        return .respond(status: 200, headers: json + limitHeaders, body: body)
    }

    private static func tooManyBody(_ isV2: Bool) -> String {
        isV2
            ? #"{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}"#
            : #"{"errors":[{"code":88,"message":"Rate limit exceeded"}]}"#
    }

    private struct BadRequest: Error {
        var message: String
    }

    private static func invalid(_ parameter: String, _ why: String) -> Result<String, BadRequest> {
        .failure(BadRequest(message: """
            {"errors":[{"parameters":{"\(parameter)":[]},"message":"\(why)"}],"title":"Invalid Request",\
            "detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}
            """))
    }

    private static func v2Page(_ p: [String: String], _ corpus: Corpus, _ visible: Range<Int>) -> Result<String, BadRequest> {
        guard let query = p["query"], !query.isEmpty else { return invalid("query", "The `query` query parameter can not be empty") }
        let size = Int(p["max_results"] ?? "10") ?? -1
        guard (10...100).contains(size) else {
            return invalid("max_results", "The `max_results` query parameter value [\(p["max_results"] ?? "")] is not between 10 and 100")
        }
        var start = visible.lowerBound
        if let token = p["next_token"] {
            guard token.hasPrefix("b26v89c19zqg8o3f"), let offset = Int(token.dropFirst(16), radix: 36),
                  (0...corpus.count).contains(offset) else {
                return invalid("next_token", "The `next_token` query parameter value [\(token)] is not valid")
            }
            start = offset
        }
        let end = min(visible.upperBound, start + size)
        guard start < end else { return .success(#"{"meta":{"result_count":0}}"#) }
        let slice = start..<end
        let tweets = slice.map { corpus.v2Tweet($0) }.joined(separator: ",")
        let media = slice.flatMap { corpus.v2Media($0) }.joined(separator: ",")
        let users = Set(slice.map { $0 % Corpus.users }).sorted().map { corpus.v2User($0) }.joined(separator: ",")
        var meta = #""newest_id":"\#(corpus.ids[start])","oldest_id":"\#(corpus.ids[end - 1])","result_count":\#(slice.count)"#
        if end < visible.upperBound { meta += #","next_token":"b26v89c19zqg8o3f\#(String(end, radix: 36))""# }
        return .success(#"{"data":[\#(tweets)],"includes":{"media":[\#(media)],"users":[\#(users)]},"meta":{\#(meta)}}"#)
    }

    private static func v1Page(_ p: [String: String], _ corpus: Corpus, _ visible: Range<Int>) -> Result<String, BadRequest> {
        guard let query = p["q"], !query.isEmpty else {
            return .failure(BadRequest(message: #"{"errors":[{"code":25,"message":"Query parameters are missing."}]}"#))
        }
        let size = min(100, max(1, Int(p["count"] ?? "15") ?? 15))
        var start = visible.lowerBound
        if let maxID = p["max_id"] {
            guard let limit = UInt64(maxID) else {
                return .failure(BadRequest(message: #"{"errors":[{"code":44,"message":"max_id parameter is invalid."}]}"#))
            }
            start = max(visible.lowerBound, corpus.ids.firstIndex { UInt64($0)! <= limit } ?? corpus.count)
        }
        let end = max(start, min(visible.upperBound, start + size))
        let statuses = (start..<end).map { corpus.v1Tweet($0) }.joined(separator: ",")
        let encodedQuery = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var meta = #""completed_in":0.021,"max_id":\#(start < end ? corpus.ids[start] : "0"),"max_id_str":"\#(start < end ? corpus.ids[start] : "0")","query":"\#(encodedQuery)","refresh_url":"?since_id=\#(corpus.ids.first ?? "0")&q=\#(encodedQuery)&result_type=recent&include_entities=1","count":\#(size),"since_id":0,"since_id_str":"0""#
        if end < visible.upperBound, end > start, let last = UInt64(corpus.ids[end - 1]) {
            meta += #","next_results":"?max_id=\#(last - 1)&q=\#(encodedQuery)&count=\#(size)&include_entities=1&result_type=recent""#
        }
        return .success(#"{"statuses":[\#(statuses)],"search_metadata":{\#(meta)}}"#)
    }
}

/// The fake's tweets: deterministic, newest first, ids well past 2^53 (as real ones are)
/// so any precision loss in paging shows.
private struct Corpus: Sendable {
    static let users = 5
    let count: Int
    let ids: [String]

    init(count: Int) {
        self.count = max(0, count)
        let top: UInt64 = 1_790_000_000_000_000_000
        ids = (0..<self.count).map { String(top - UInt64($0) * 1_048_577) }
    }

    /// Every seventh tweet has two photos, the rest one.
    func photoCount(_ i: Int) -> Int { i % 7 == 3 ? 2 : 1 }

    func mediaKey(_ i: Int, _ k: Int) -> String { "3_\(ids[i])\(k)" }

    func createdV2(_ i: Int) -> String {
        let date = Date(timeIntervalSince1970: 1_714_560_000 - Double(i) * 60)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    func createdV1(_ i: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        return f.string(from: Date(timeIntervalSince1970: 1_714_560_000 - Double(i) * 60))
    }

    func text(_ i: Int) -> String { "Photo \(i) from the lab #ucd" }

    func v2Tweet(_ i: Int) -> String {
        let text = text(i)
        let tagStart = text.count - 4
        let keys = (0..<photoCount(i)).map { "\"\(mediaKey(i, $0))\"" }.joined(separator: ",")
        return #"{"id":"\#(ids[i])","text":"\#(text)","created_at":"\#(createdV2(i))","author_id":"\#(userID(i % Self.users))","lang":"en","edit_history_tweet_ids":["\#(ids[i])"],"attachments":{"media_keys":[\#(keys)]},"entities":{"hashtags":[{"start":\#(tagStart),"end":\#(tagStart + 4),"tag":"ucd"}]}}"#
    }

    func v2Media(_ i: Int) -> [String] {
        (0..<photoCount(i)).map { k in
            #"{"media_key":"\#(mediaKey(i, k))","type":"photo","url":"https://pbs.twimg.com/media/F\#(ids[i])x\#(k).jpg","width":1200,"height":800,"alt_text":"photo \#(i)"}"#
        }
    }

    func userID(_ u: Int) -> String { "9000\(u)" }

    func avatar(_ u: Int) -> String { "https://pbs.twimg.com/profile_images/100\(u)/lab\(u)_normal.jpg" }

    func v2User(_ u: Int) -> String {
        #"{"id":"\#(userID(u))","username":"lab\#(u)","name":"Lab \#(u)","profile_image_url":"\#(avatar(u))"}"#
    }

    func v1Tweet(_ i: Int) -> String {
        let text = text(i)
        let tagStart = text.count - 4
        let u = i % Self.users
        let media = (0..<photoCount(i)).map { k in
            #"{"id":\#(70_000 + i * 10 + k),"id_str":"\#(70_000 + i * 10 + k)","indices":[0,0],"media_url_https":"https://pbs.twimg.com/media/F\#(ids[i])x\#(k).jpg","type":"photo","sizes":{"large":{"w":1200,"h":800,"resize":"fit"}},"ext_alt_text":"photo \#(i)"}"#
        }.joined(separator: ",")
        return #"{"created_at":"\#(createdV1(i))","id":\#(ids[i]),"id_str":"\#(ids[i])","full_text":"\#(text)","truncated":false,"display_text_range":[0,\#(text.count)],"entities":{"hashtags":[{"text":"ucd","indices":[\#(tagStart),\#(tagStart + 4)]}],"user_mentions":[],"urls":[]},"extended_entities":{"media":[\#(media)]},"lang":"en","user":{"id":\#(userID(u)),"id_str":"\#(userID(u))","name":"Lab \#(u)","screen_name":"lab\#(u)","profile_image_url_https":"\#(avatar(u))"},"retweet_count":0,"favorite_count":\#(i % 13)}"#
    }
}
