import Hummingbird

/// A responder behind one middleware: how the server stacks its middleware in
/// front of ``TileResponder`` without a router (it has one responder for every
/// path), statically typed so each request costs calls, not existentials.
struct Behind<Middleware: RouterMiddleware, Next: HTTPResponder>: HTTPResponder
where Middleware.Context == Next.Context {
    typealias Context = Next.Context

    let middleware: Middleware
    let next: Next

    func respond(to request: Request, context: Context) async throws -> Response {
        try await middleware.handle(request, context: context) { request, context in
            try await next.respond(to: request, context: context)
        }
    }
}

/// A middleware that may be switched off (a session check on a server with no
/// operator token): then it only passes the request on.
struct Optionally<Wrapped: RouterMiddleware>: RouterMiddleware {
    typealias Context = Wrapped.Context
    let wrapped: Wrapped?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let wrapped else { return try await next(request, context) }
        return try await wrapped.handle(request, context: context, next: next)
    }
}
