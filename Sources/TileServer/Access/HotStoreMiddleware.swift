import Hummingbird
import NIOHTTP1

/// Keeps complete answers for the ``HotResponseHandler`` to repeat without the
/// responder: what the responder marked as keepable (``ReplyNotes``), with every
/// header the middleware inside this one added, exactly as it was sent.
struct HotStoreMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let hot: MemoryCache<HotResponse.Key, HotResponse>
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        // Only targets that are just a path, and short: the key is the client's text,
        // and a query string (which no route reads) would let a client mint entries.
        // Never the operator's routes (the hot path asks nobody who is asking), never an
        // answer that sets a cookie (it is that visitor's).
        guard request.method == .get, response.status == .ok, let kept = context.notes.keep,
              context.parsedRoute?.needsOperator == false, response.headers[.setCookie] == nil,
              let path = request.head.path, path.utf8.count <= HotResponse.maxTargetBytes,
              !path.utf8.contains(UInt8(ascii: "?")), (request.head.authority?.utf8.count ?? 0) <= HotResponse.maxTargetBytes
        else { return response }
        let key = HotResponse.Key(authority: request.head.authority, target: path)
        // Clients that close after each request (scripts) come here every time.
        guard hot.get(key) == nil else { return response }
        // As Hummingbird sends it, but for `Date`, which the handler adds.
        var headers = HTTPHeaders(response.headers.map { ($0.name.rawName, $0.value) })
        headers.add(name: "Server", value: TileServer.serverName)
        hot.put(key, HotResponse(
            headers: headers, body: kept.body, metrics: metrics.metrics(route: kept.label, status: 200),
            keyBytes: path.utf8.count + (key.authority?.utf8.count ?? 0)))
        return response
    }
}
