import Hummingbird
import HummingbirdAuth

/// Recognises the operator's scripts: `Authorization: Bearer <token>`. (People sign
/// in on the page instead; hummingbird-auth's session middleware and authenticator
/// recognise them by their cookie.) A wrong token is not an error here:
/// ``OperatorGate`` decides what an unrecognised request may reach.
struct OperatorAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerContext
    let token: OperatorToken

    func authenticate(request: Request, context: Context) async throws -> Operator? {
        guard let bearer = request.headers.bearer, token.matches(bearer.token) else { return nil }
        return Operator(proof: .bearer)
    }
}

/// Lets only the operator reach ``Route/needsOperator`` routes (``OperatorAccess``):
/// 401 with a bearer challenge when a token would open them, 403 when they are off.
struct OperatorGate: RouterMiddleware {
    typealias Context = ServerContext
    let access: OperatorAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let route = context.parsedRoute, route.needsOperator else { return try await next(request, context) }
        switch access {
        case .open:
            return try await next(request, context)
        case let .off(reason):
            return HTTPFailure(status: 403, message: "\(reason): live search, history, metrics and manifests are off")
                .response(to: request)
        case .token:
            if context.identity != nil { return try await next(request, context) }
            var response = HTTPFailure(status: 401, message: "for the operator: sign in at /signin or send Authorization: Bearer")
                .response(to: request)
            response.headers[.wwwAuthenticate] = "Bearer realm=\"tweetcache\""
            return response
        }
    }
}
