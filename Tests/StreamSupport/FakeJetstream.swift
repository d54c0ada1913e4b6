import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A Jetstream on 127.0.0.1, as tests need one: it keeps every event it was given
/// (each with its `time_us`), replays those at or after a connection's `cursor`, then
/// sends new ones as the test appends them. A test can drop every connection (a
/// restart of the service), and reads the subscribe URLs it was asked for.
public final class FakeJetstream: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let box: StateBox

    struct State {
        var events: [(time: Int64, json: String)] = []
        var connections: [UUID: AsyncStream<String>.Continuation] = [:]
        var subscribed: [String] = []
        var nextTime: Int64 = 1_800_000_000_000_000
        /// Events kept for replay (the oldest go first), like a real instance's backlog.
        var keep = Int.max
        /// Cursors from the wall clock (a benchmark), not from a fixed start (tests).
        var realTime = false
    }

    /// `ws://127.0.0.1:PORT/subscribe`
    public var url: String { "ws://127.0.0.1:\(port)/subscribe" }
    /// Every subscribe request's path and query, in order.
    public var subscriptions: [String] { box.state.withLock { $0.subscribed } }
    public var openConnections: Int { box.state.withLock { $0.connections.count } }

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>, box: StateBox) {
        self.port = port
        self.group = group
        self.task = task
        self.box = box
    }

    public static func start(keep: Int = .max, realTime: Bool = false) async throws -> FakeJetstream {
        let box = StateBox()
        box.state.withLock {
            $0.keep = keep
            $0.realTime = realTime
        }
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/subscribe") { request, _ in
            box.state.withLock { $0.subscribed.append(request.uri.description) }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let cursor = context.request.uri.queryParameters.get("cursor").flatMap { Int64($0) }
            let id = UUID()
            let (live, continuation) = AsyncStream.makeStream(of: String.self)
            let backlog = box.state.withLock { s -> [String] in
                s.connections[id] = continuation
                return s.events.filter { cursor == nil ? false : $0.time >= cursor! }.map(\.json)
            }
            defer { _ = box.state.withLock { $0.connections.removeValue(forKey: id) } }
            // Until the client goes (its side ends) or the test drops it (the feed ends).
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in inbound {}
                    continuation.finish()
                }
                group.addTask {
                    for json in backlog { try await outbound.write(.text(json)) }
                    for await json in live { try await outbound.write(.text(json)) }
                }
                try await group.next()
                group.cancelAll()
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "tweetcache.fake-jetstream")
        logger.logLevel = .critical
        let app = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "fake-jetstream"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var bound = 0
        for await p in stream { bound = p }
        guard bound > 0 else {
            task.cancel()
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return FakeJetstream(port: bound, group: group, task: task, box: box)
    }

    /// Appends an event (its `time_us` is set here, one microsecond after the last)
    /// and sends it to every open connection. Returns its time.
    @discardableResult
    public func send(_ event: [String: Any]) -> Int64 {
        var event = event
        // One lock for the time, the backlog and the sending: a connection that opens
        // meanwhile gets the event either in its replay or live, never neither.
        return box.state.withLock { s in
            s.nextTime += 1
            if s.realTime { s.nextTime = max(s.nextTime, Int64(Date().timeIntervalSince1970 * 1_000_000)) }
            event["time_us"] = s.nextTime
            let json = String(decoding: (try? JSONSerialization.data(withJSONObject: event)) ?? Data(), as: UTF8.self)
            s.events.append((s.nextTime, json))
            if s.events.count > s.keep { s.events.removeFirst(s.events.count - s.keep / 2) }
            for c in s.connections.values { c.yield(json) }
            return s.nextTime
        }
    }

    /// Sends raw text (garbage, for the reader's sake), kept in no backlog.
    public func sendRaw(_ text: String) {
        for c in box.state.withLock({ Array($0.connections.values) }) { c.yield(text) }
    }

    /// Ends every open connection, as a restart of the service would.
    public func dropConnections() {
        let open = box.state.withLock { s -> [AsyncStream<String>.Continuation] in
            defer { s.connections.removeAll() }
            return Array(s.connections.values)
        }
        for c in open { c.finish() }
    }

    public func stop() async {
        dropConnections()
        task.cancel()
        _ = await task.result
    }

    /// A post create commit event.
    public static func post(did: String, rkey: String, text: String, tags: [String] = [], imageCIDs: [String] = [],
                            createdAt: String = "2027-01-15T10:00:00.000Z") -> [String: Any]
    {
        var record: [String: Any] = ["$type": "app.bsky.feed.post", "text": text, "createdAt": createdAt]
        if !tags.isEmpty {
            var facets: [[String: Any]] = []
            for tag in tags {
                facets.append(["index": ["byteStart": 0, "byteEnd": 1],
                               "features": [["$type": "app.bsky.richtext.facet#tag", "tag": tag]]])
            }
            record["facets"] = facets
        }
        if !imageCIDs.isEmpty {
            record["embed"] = ["$type": "app.bsky.embed.images", "images": imageCIDs.map { cid in
                ["alt": "", "image": ["$type": "blob", "ref": ["$link": cid], "mimeType": "image/jpeg", "size": 1000]]
            }]
        }
        return ["did": did, "kind": "commit",
                "commit": ["rev": "r", "operation": "create", "collection": "app.bsky.feed.post", "rkey": rkey,
                           "record": record, "cid": "bafyrei\(rkey)"]]
    }

    public static func delete(did: String, rkey: String) -> [String: Any] {
        ["did": did, "kind": "commit", "commit": ["rev": "r", "operation": "delete", "collection": "app.bsky.feed.post", "rkey": rkey]]
    }

    public static func accountDeleted(did: String) -> [String: Any] {
        ["did": did, "kind": "account", "account": ["active": false, "did": did, "seq": 1, "status": "deleted", "time": "2027-01-15T10:00:00Z"]]
    }
}

/// The state shared by the route handlers and the server object made after them.
private final class StateBox: Sendable {
    let state = Mutex(FakeJetstream.State())
}
