import Foundation
import MediaFetch
public import TweetModel

/// Bluesky's Jetstream: the network's posts as JSON over a WebSocket
/// (`/subscribe?wantedCollections=app.bsky.feed.post`), with commits (create,
/// update, delete), identity events (a new handle) and account events (deleted,
/// taken down). Each event's `time_us` is the cursor.
///
/// Jetstream has no keyword filter: posts are matched here (``BlueskyMatcher``), and
/// when every query names a user, only those users' DIDs are asked for. A matched
/// record becomes a post view (``JetstreamPostView``), the shape search results have,
/// so the one pipeline reads it. Delivery is at least once, so a reconnect rewinds
/// the cursor a few seconds; the pipeline takes a post it already holds in its stride.
public struct Jetstream: PostStream {
    public static let defaultURL = "wss://jetstream2.us-east.bsky.network/subscribe"
    /// How far a reconnect goes back before the last event seen.
    public static let rewind: Int64 = 5_000_000

    let queries: [SearchQuery]
    let endpoint: String
    let resolver: ServiceURL
    let images: JetstreamPostView.ImageURLs
    private(set) var matcher: BlueskyMatcher
    let handles: HandleBook

    /// `url`: the Jetstream instance's subscribe URL (`ws://` or `wss://`); `appView`:
    /// where handles are resolved to DIDs.
    public init(queries: [SearchQuery], url: String?, appView: String?) throws(LiveSearchError) {
        guard !queries.isEmpty else { throw .emptyQuery }
        self.queries = queries
        let endpoint = (url ?? Self.defaultURL).trimmingCharacters(in: .whitespaces)
        guard let comps = URLComponents(string: endpoint), let scheme = comps.scheme?.lowercased(),
              scheme == "ws" || scheme == "wss", let host = comps.host, !host.isEmpty, comps.query == nil
        else { throw .invalidBaseURL(endpoint) }
        self.endpoint = endpoint
        resolver = try ServiceURL(appView ?? "https://public.api.bsky.app")
        images = JetstreamPostView.ImageURLs()
        matcher = BlueskyMatcher(queries: queries.map(\.text))
        handles = HandleBook()
    }

    public var network: Network { .bluesky }
    public var name: String { "Bluesky Jetstream" }
    public var key: String { "bluesky-jetstream" }

    /// The whole network's posts are never quiet for long, so 30 s of silence means a
    /// dead connection. A few users' posts can be quiet for hours: then the WebSocket's
    /// own pings (a pong missing for 30 s closes it) tell a dead connection instead.
    public var idleLimit: Duration? { matcher.onlyDIDs == nil ? nil : .seconds(86_400) }

    private struct Resolved: Decodable { var did: String }

    public mutating func prepare(_ session: StreamSession) async throws(LiveSearchError) {
        for handle in matcher.unresolvedHandles {
            let url = resolver.url("/xrpc/com.atproto.identity.resolveHandle", [("handle", handle)])
            switch await session.call(APIRequest(url: url)) {
            case let .failure(failure):
                throw .network(service: "Bluesky", failure.description, attempts: 1)
            case let .success(response) where response.status == 200:
                guard let did = try? JSONDecoder().decode(Resolved.self, from: Data(response.body)).did,
                      did.hasPrefix("did:"), did.utf8.count <= 2048
                else { throw .service(network: "Bluesky", message: "resolving @\(handle) gave no DID") }
                matcher.resolve(handle: handle, did: did)
                handles.set(did: did, handle: handle)
            case let .success(response) where response.status >= 500:
                throw .serverError(service: "Bluesky", status: response.status, attempts: 1, detail: nil)
            case .success:
                throw .noSuchAccount(handle)
            }
        }
    }

    /// The subscribe URL for one connection.
    func subscribeURL(cursor: String?) -> String {
        var items = [("wantedCollections", "app.bsky.feed.post")]
        if let dids = matcher.onlyDIDs { items += dids.sorted().map { ("wantedDids", $0) } }
        if let cursor, let micros = Int64(cursor), micros > Self.rewind {
            items.append(("cursor", String(micros - Self.rewind)))
        }
        return endpoint + "?" + items.map { "\(ServiceURL.encode($0.0))=\(ServiceURL.encode($0.1))" }.joined(separator: "&")
    }

    public func connect(cursor: String?, session: StreamSession,
                        deliver: @escaping @Sendable (StreamEvent) async -> Void) async -> StreamEnd {
        let url = subscribeURL(cursor: cursor)
        let reader = JetstreamReader(matcher: matcher, handles: handles, images: images, name: name)
        var socket = WebSocketStream(url: url, configuration: session.fetcher.configuration)
        socket.maxMessage = 1 << 20
        socket.pingInterval = .seconds(30)
        let end = await socket.run { payload in
            session.activity.mark()
            for event in reader.read(payload) { await deliver(event) }
        }
        if Task.isCancelled { return .cancelled }
        switch end {
        case .closed: return .closed
        case .cancelled: return .cancelled
        case .status(429): return .rateLimited(retryAfter: nil)
        case let .status(status): return .failed("\(name) answered the upgrade with HTTP \(status)")
        case let .failed(why): return .failed("\(name): \(why.prefix(300))")
        }
    }
}

/// Handles learned for DIDs (resolved queries, identity events), bounded.
final class HandleBook: @unchecked Sendable {
    private let lock = NSLock()
    private var handles: [String: String] = [:]

    func set(did: String, handle: String) {
        lock.withLock {
            if handles.count >= 100_000, handles[did] == nil { handles.removeAll(keepingCapacity: true) }
            handles[did] = handle
        }
    }

    func handle(of did: String) -> String? { lock.withLock { handles[did] } }
}
