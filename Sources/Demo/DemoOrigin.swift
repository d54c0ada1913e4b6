import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A loopback stand-in for Twitter's media hosts, so the demo runs with no internet.
///
/// It answers any path whose last component names a sample asset, in any of the forms
/// the pipeline asks for (`/media/KEY?format=jpg&name=orig`, `KEY_400x400.jpg`,
/// `KEY.jpg:orig`), from images rendered in memory before it starts. Some avatars
/// have no 400x400 variant on purpose (`missingLargeAvatars`), as happens on the real
/// CDN, so the demo exercises the fallback to the URL the API gave.
public final class DemoOrigin: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The `--mirror` specs that send the sample's hosts to this origin.
    public func mirrorSpecs(videos: Bool) -> [String] {
        ["pbs.twimg.com=\(baseURL)/pbs"] + (videos ? ["video.twimg.com=\(baseURL)/video"] : [])
    }

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts serving `bodies` (asset key → bytes) on 127.0.0.1 at `port` (0: any free port).
    public static func start(
        bodies: [String: DemoBody], missingLargeAvatars: Set<String> = [], port: Int = 0
    ) async throws -> DemoOrigin {
        let router = Router()
        router.get("**") { request, _ -> Response in
            guard let (key, wantsLarge) = Self.assetKey(forPath: request.uri.path),
                  let body = bodies[key], !(wantsLarge && missingLargeAvatars.contains(key))
            else { return Response(status: .notFound) }
            var headers = HTTPFields()
            headers[.contentType] = body.contentType
            headers[.cacheControl] = "public, max-age=86400"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.bytes)))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "tweetcache.demo-origin")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "tweetcache-demo-origin"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        // A service group rather than a bare task: stopping is a graceful shutdown
        // (open connections finish), not a cancellation the server logs as an error.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var bound = 0
        for await p in stream { bound = p }
        guard bound > 0 else {
            await group.triggerGracefulShutdown()
            throw DemoError.originFailed
        }
        return DemoOrigin(port: bound, group: group, task: task)
    }

    /// Stops the server once its open requests are answered.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the server stops (for `--keep-serving`).
    public func wait() async {
        _ = await task.result
    }

    /// The asset a request path names, and whether it asks for the 400x400 avatar variant.
    static func assetKey(forPath path: String) -> (String, Bool)? {
        guard var last = path.split(separator: "/").last.map(String.init), !last.isEmpty else { return nil }
        if let colon = last.firstIndex(of: ":") { last = String(last[..<colon]) }
        if let dot = last.lastIndex(of: ".") { last = String(last[..<dot]) }
        var large = false
        for suffix in ["_400x400", "_normal", "_bigger", "_mini"] where last.hasSuffix(suffix) {
            large = suffix == "_400x400"
            last.removeLast(suffix.count)
            break
        }
        return last.isEmpty ? nil : (last, large)
    }
}

/// Bytes the origin serves for one asset.
public struct DemoBody: Sendable {
    public var bytes: [UInt8]
    public var contentType: String

    public init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
    }
}

public enum DemoError: Error, CustomStringConvertible {
    case originFailed
    case renderFailed(String)

    public var description: String {
        switch self {
        case .originFailed: "the demo origin server could not start on 127.0.0.1"
        case let .renderFailed(why): "could not render the sample images: \(why)"
        }
    }
}
