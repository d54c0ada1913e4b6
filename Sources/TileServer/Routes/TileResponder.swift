import BlobStore
import Foundation
import HTTPTypes
import Hummingbird
import Imaging
import Logging
import NIOCore
import NIOHTTP1
import ObjectStore
import Synchronization

/// Answers every request of the tile server.
///
/// One responder rather than a router of closures: every path goes through
/// ``Route/parse(path:)`` first (``RouteMiddleware``), so validation cannot be
/// forgotten on one endpoint, and the HTTP rules that apply to every response
/// (HEAD, ETag and `If-None-Match`, `nosniff`, the time limit) live in one place.
/// What concerns who asks (the host, CORS, the operator, the client's share of
/// work, metrics) is the middleware in front of it (``TileServer/application``).
struct TileResponder: HTTPResponder {
    typealias Context = ServerContext

    let configuration: TileServerConfiguration
    let files: CacheFiles
    let memory: ByteCache
    /// Complete answers the ``HotResponseHandler`` repeats without coming here.
    let hot: MemoryCache<HotResponse.Key, HotResponse>
    let sources: SourceImages
    /// Pyramid packs: their indexes, and their tiles by offset.
    let packs: PackReader
    /// Packs built in the background after a tile was cut on request.
    let lazyPacks: LazyPacks
    let pool: RenderPool
    let metrics: ServerMetrics
    /// Renders under way, each with the clients waiting for it.
    let renders = SingleFlight<String, Reply>(tracksInterest: true)
    let catalog: CatalogCache
    /// Searches the page starts; nil when `serve` has no token (the page filters instead).
    let liveSearches: LiveSearches?
    /// The port actually bound, for IIIF ids when no public URL is configured.
    let boundPort: @Sendable () -> Int
    /// Who may reach the operator's routes, and how they sign in.
    let access: OperatorAccess
    /// Each client's allowance of uncached renders; nil: unlimited.
    let renderLimit: RenderLimiter?
    /// Each client's allowance of sign-in attempts.
    let signInLimit: RenderLimiter

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let reply: Reply
        switch request.method {
        case .get, .head:
            do {
                let route = try context.route.get()
                if files.remote != nil {
                    // Every bucket request this one makes, whatever names it tries,
                    // ends by the request's deadline, retries included.
                    reply = try await S3Deadline.$current.withValue(started + configuration.requestTimeout) {
                        try await self.reply(to: route, request: request, context: context)
                    }
                } else {
                    reply = try await self.reply(to: route, request: request, context: context)
                }
            } catch let failure as HTTPFailure {
                reply = Self.error(failure)
            } catch let failure as RouteError {
                switch failure {
                case .notFound: reply = Self.error(.notFound())
                case let .badRequest(why): reply = Self.error(.badRequest(why))
                }
            } catch is RenderPool.Dropped {
                // Nobody is left to read it.
                metrics.renderDropped()
                reply = Self.error(.unavailable("the client left before its image was made"))
            } catch {
                context.logger.error("request failed: \(request.uri.path): \(error)")
                reply = Self.error(.init(status: 500, message: "internal error"))
            }
        case .post:
            do {
                let route = try context.route.get()
                switch route {
                case .apiSearch: reply = try await startSearch(request)
                case .signIn: reply = try await signIn(request, context: context)
                case .signOut: reply = try signOut(request, context: context)
                default:
                    var refused = Self.error(.init(status: 405, message: "only GET and HEAD"))
                    refused.headers[.allow] = "GET, HEAD, OPTIONS"
                    reply = refused
                }
            } catch let failure as HTTPFailure {
                reply = Self.error(failure)
            } catch {
                reply = Self.error(.badRequest("bad request"))
            }
        default:
            var refused = Self.error(.init(status: 405, message: "only GET and HEAD"))
            refused.headers[.allow] = "GET, HEAD, OPTIONS"
            reply = refused
        }
        let response = finish(reply, request: request, context: context)
        // The hot cache keeps immutable answers (HotStoreMiddleware, with the headers
        // the middleware adds).
        if request.method == .get, response.status == .ok, reply.cacheControl == Reply.immutable, reply.stream == nil {
            context.notes.keep = .init(body: reply.body, label: context.parsedRoute?.metricLabel ?? "unknown")
        }
        return response
    }

    /// Applies what every response shares: its type, caching and validator.
    /// Validators, ranges and HEAD are HTTP's rules for every answer alike
    /// (``ConditionalMiddleware``); an answer that takes ranges leaves its whole body
    /// for that middleware to cut.
    private func finish(_ reply: Reply, request: Request, context: Context) -> Response {
        var headers = reply.headers
        headers[.contentType] = reply.contentType
        headers[.cacheControl] = reply.cacheControl
        headers[Self.contentTypeOptions] = "nosniff"
        if let etag = reply.etag { headers[.eTag] = etag }
        if reply.acceptsRanges, reply.status == .ok { headers[.acceptRanges] = "bytes" }
        if let stream = reply.stream, reply.status == .ok {
            headers[.contentLength] = String(stream.size)
            // A stream that ends in an error (bytes not the original's, a store that
            // stalled) ends the connection short of its length: no client takes it whole.
            return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: stream.size) { writer in
                for try await chunk in stream.chunks { try await writer.write(ByteBuffer(bytes: chunk)) }
                try await writer.finish(nil)
            })
        }
        if reply.acceptsRanges, reply.status == .ok { context.notes.rangeable = reply.body }
        return Response(status: reply.status, headers: headers, body: .init(byteBuffer: reply.body))
    }

    private func reply(to route: Route, request: Request, context: Context) async throws -> Reply {
        switch route {
        case .healthz:
            return health()
        case .metrics:
            return Reply(bytes: metrics.text(), contentType: "text/plain; version=0.0.4; charset=utf-8",
                         etag: nil, cacheControl: "no-store")
        case .viewerIndex, .viewerZoom, .viewerAsset:
            return try await viewer(route)
        case .apiTweets:
            return try await offload { try apiTweets(request) }
        case .apiHistory:
            return try await offload { try apiHistory() }
        case .apiDuplicates(let hash):
            return try await offload { try apiDuplicates(hash, request) }
        case .apiSearch:
            return try await searchStatus(request)
        case let .dziDescriptor(hash):
            return try await deepZoomDescriptor(hash)
        case let .dziTile(hash, level, column, row, format):
            return try await deepZoomTile(hash, level: level, column: column, row: row, format: format)
        case let .iiifBase(hash):
            _ = try await sources.facts(hash)
            return .redirect(to: "\(iiifBase(request))/\(hash.hex)/info.json")
        case let .iiifInfo(hash):
            return try await iiifInfo(hash, request: request)
        case let .iiifImage(hash, region, size, rotation, qualityFormat):
            return try await iiifImage(hash, region: region, size: size, rotation: rotation, qualityFormat: qualityFormat,
                                       base: iiifBase(request))
        case let .thumbnail(hash, size):
            return try await thumbnail(hash, size: size)
        case let .blob(hash):
            // A large original on disk is read off the event loop; a bucket's is awaited.
            if files.remote == nil { return try await offload { try blobReply(sources.localBytes(hash), hash) } }
            // A whole GET may be answered as the bucket's bytes arrive; a range or a
            // HEAD is answered from the whole, checked object.
            if request.method == .get, request.headers[.range] == nil { return try await streamedBlob(hash) }
            return try await blob(hash)
        case .manifestList:
            return try manifestList()
        case let .manifest(name):
            return try manifest(name)
        case let .presentation(target):
            return try await offload { try presentation(target, request: request) }
        case .signIn:
            return signInPage(context: context)
        case .signOut:
            return Self.error(.init(status: 405, message: "sign out with POST"))
        case .apiOperator:
            return try operatorStatus(context: context)
        }
    }

    /// `/healthz`: `ok`, or `degraded` with the reason while the object store is
    /// down (still 200: what is warm is still served).
    func health() -> Reply {
        guard case let .down(since, reason) = files.remote?.storage.health?.state else {
            return Reply(text: "{\"status\":\"ok\"}\n", contentType: "application/json", cacheControl: "no-store")
        }
        struct Degraded: Encodable {
            var status = "degraded"
            var store: String
            var reason: String
            var since: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(Degraded(
            store: "down", reason: Self.publicReason(reason), since: since.formatted(.iso8601)))) ?? Data()
        return Reply(bytes: [UInt8](body) + [10], contentType: "application/json", etag: nil, cacheControl: "no-store")
    }

    /// A store failure as clients may read it: without the endpoint's address.
    static func publicReason(_ reason: String) -> String {
        let text = reason.lowercased()
        if text.contains("timed out") || text.contains("timeout") || text.contains("deadline") {
            return "the object store did not answer in time"
        }
        if text.contains("connect") { return "the object store refused the connection" }
        if text.contains("answered 5") { return "the object store answered with server errors" }
        return "the object store did not answer"
    }

    /// Serves a derived file from memory, disk or (over a store) the store, or nil
    /// when none has it.
    func cached(
        _ relative: String, contentType: String, etag: String, cacheControl: String = Reply.immutable
    ) async -> Reply? {
        if let hit = memoryHit(relative, etag: etag, cacheControl: cacheControl) { return hit }
        guard let bytes = try? await files.load(relative, limit: 16 << 20) else { return nil }
        metrics.diskHit()
        let body = ByteBuffer(bytes: bytes)
        memory.put(relative, .init(body: body, contentType: contentType))
        return Reply(body: body, contentType: contentType, etag: etag, cacheControl: cacheControl)
    }

    /// A tile or rendition already in memory under `key`.
    func memoryHit(_ key: String, etag: String, cacheControl: String = Reply.immutable) -> Reply? {
        Self.memoryHit(key, in: memory, metrics: metrics, etag: etag, cacheControl: cacheControl)
    }

    /// The same, for work that runs apart from the responder (a render's flight).
    static func memoryHit(
        _ key: String, in memory: ByteCache, metrics: ServerMetrics, etag: String, cacheControl: String = Reply.immutable
    ) -> Reply? {
        guard let hit = memory.get(key) else { return nil }
        metrics.memoryHit()
        return Reply(body: hit.body, contentType: hit.contentType, etag: etag, cacheControl: cacheControl)
    }

    /// Makes a derived file once (however many requests want it at the same
    /// moment), keeps it in memory and, when `persist`, on disk under `relative`,
    /// and serves it, within the request time limit. Arbitrary IIIF renditions are
    /// not persisted: a crawler could otherwise fill the disk with them.
    func made(
        _ relative: String, contentType: String, etag: String, persist: Bool = true,
        _ make: @escaping @Sendable () async throws -> [UInt8]
    ) async throws -> Reply {
        // Made since this request's caller missed the memory cache (it awaited a pack or
        // an original's facts in between): served, without taking from the render limit.
        if let hit = memoryHit(relative, etag: etag) { return hit }
        let client = RenderClient.current
        if let renderLimit, let client, case let .failure(refused) = renderLimit.take(client.address) {
            metrics.renderRefused()
            throw HTTPFailure(status: 429, message: "too many new images asked for from your address; try again shortly",
                              retryAfter: refused.retryAfter)
        }
        // Past the time limit the client is told the work goes on: it is kept even if
        // that client then hangs up.
        let ticket = RenderTicket(client)
        return try await withDeadline(onTimeout: { ticket.keep() }) {
            [renders, files, memory, metrics] in try await renders.run(relative, for: ticket) {
            // A flight for the same file that ended between the check above and this one
            // has put its answer in memory (unless too big to keep there): eight viewers
            // asking at once make it once. This late hit has taken from the render limit.
            if let hit = Self.memoryHit(relative, in: memory, metrics: metrics, etag: etag) { return hit }
            let started = ContinuousClock.now
            let bytes = try await make()
            if persist {
                // A failed write still serves: a read-only cache can be viewed, just not added to.
                try? files.write(bytes, to: relative)
                files.integrity?.recordMade(relative, bytes: bytes)
            }
            let body = ByteBuffer(bytes: bytes)
            memory.put(relative, .init(body: body, contentType: contentType))
            // Counted once in memory: whoever sees the count can ask for it again.
            metrics.rendered(ContinuousClock.now - started)
            return Reply(body: body, contentType: contentType, etag: etag, cacheControl: Reply.immutable)
        } }
    }

    /// Runs blocking work (reading a large original, decoding every manifest) on
    /// a GCD thread: for `serve` the event loops are the global executor, and a
    /// read of many megabytes there would stall every connection on that loop.
    private func offload(_ work: @escaping @Sendable () throws -> Reply) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work` with the configured time limit; past it the client gets 503
    /// and the work, if it is making a file, finishes for the next request. Only
    /// work that makes something pays for the timer: cached answers never wait.
    private func withDeadline(
        onTimeout: @escaping @Sendable () -> Void = {}, _ work: @escaping @Sendable () async throws -> Reply
    ) async throws -> Reply {
        // Not a task group: a group waits for every child, so a render that ignores
        // cancellation would hold the 503 back until it finished. Here whichever of
        // the work and the timer ends first answers, and the other's result is dropped;
        // a made answer that ends past the deadline answers 503 as the timer would.
        let limit = configuration.requestTimeout
        let clock = configuration.clock
        let deadline = clock.uptime() + limit
        let answered = OnceFlag()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
            let first = { @Sendable () -> Bool in answered.claim() }
            let late = { @Sendable in
                onTimeout()
                continuation.resume(throwing: HTTPFailure.unavailable("the request took longer than \(limit)"))
            }
            let timer = Task {
                try await clock.sleep(for: limit)
                if first() { late() }
            }
            Task {
                let result: Result<Reply, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                timer.cancel()
                guard first() else { return }
                // Work that made its answer past the deadline is late even when the timer has
                // not had its turn yet (its thread was busy): the deadline is the clock's, not
                // the scheduler's (its uptime: a change of the system's date moves no deadline).
                // A failure is passed on as it is.
                if case .success = result, clock.uptime() >= deadline { late() } else { continuation.resume(with: result) }
            }
        }
    }

    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

    static func error(_ failure: HTTPFailure) -> Reply {
        var reply = Reply(text: failure.message + "\n", contentType: "text/plain; charset=utf-8", cacheControl: "no-store")
        reply.status = HTTPResponse.Status(code: failure.status)
        if let seconds = failure.retryAfter { reply.headers[.retryAfter] = String(seconds) }
        return reply
    }

    /// The base of IIIF ids: the configured public URL, else the Host the client
    /// used (when it looks like a host name), else the bound address.
    func iiifBase(_ request: Request) -> String {
        if let base = configuration.publicBaseURL { return base.trimmingSuffix("/") + "/iiif/3" }
        if let host = request.head.authority, Self.plausibleHost(host) {
            return "http://\(host)/iiif/3"
        }
        return "http://\(configuration.host):\(boundPort())/iiif/3"
    }

    static func plausibleHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255 && host.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 58) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "[")
                || byte == UInt8(ascii: "]")
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}

/// True for the first caller of ``claim()`` only.
final class OnceFlag: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
