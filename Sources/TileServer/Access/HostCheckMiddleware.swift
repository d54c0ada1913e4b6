import Hummingbird
import HTTPTypes

/// Answers only requests that name one of the server's own hosts (``HostPolicy``):
/// a page on another site whose name was rebound to this machine's address (DNS
/// rebinding) gets 421 and reads nothing. Two `Host` fields get 400: a request two
/// parsers could read differently (the first became the authority, the second is
/// left among the fields).
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let hosts: HostPolicy
    let metrics: ServerMetrics

    static let hostField = HTTPField.Name("Host")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let refusal: HTTPFailure? =
            if request.headers[values: Self.hostField].count > 0 { .badRequest("one Host header") }
            else if let authority = request.head.authority, !hosts.allows(authority) { .init(status: 421, message: "misdirected request") }
            else { nil }
        guard let refusal else { return try await next(request, context) }
        metrics.request(route: "bad_host", status: refusal.status, duration: .zero)
        return refusal.response(to: request)
    }
}

/// Parses the path into a ``Route`` once, for every middleware after it and the responder.
struct RouteMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.route = Result { () throws(RouteError) in try Route.parse(path: request.uri.path) }
        return try await next(request, context)
    }
}

/// Counts every answer of the responder and the middleware inside it by route and
/// status, with its latency (`/metrics`).
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        metrics.request(route: context.parsedRoute?.metricLabel ?? "unknown", status: Int(response.status.code),
                        duration: ContinuousClock.now - started)
        return response
    }
}
