import Hummingbird
import HummingbirdAuth
import NIOCore
import Synchronization

/// What the server's middleware learns about a request on its way to the
/// responder: the route it names (parsed once), who asks (the operator or a
/// visitor), and the session the sign-in page keeps.
struct ServerContext: AuthRequestContext, SessionRequestContext, RemoteAddressRequestContext, RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer of the connection (a proxy, when one is in front).
    let remoteAddress: SocketAddress?
    /// Set by ``OperatorAuthenticator`` from a bearer token or a signed-in session.
    var identity: Operator?
    let sessions: SessionContext<OperatorSession>
    /// The path as ``Route/parse(path:)`` read it; set by ``RouteMiddleware``.
    var route: Result<Route, RouteError> = .failure(.notFound)
    /// What the responder leaves for the middleware around it (see ``ReplyNotes``).
    let notes = ReplyNotes()

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        sessions = .init()
    }

    /// The route, when the path named one.
    var parsedRoute: Route? { try? route.get() }
}

/// The operator: whoever holds the token of `--operator-token-file` (or anyone,
/// on loopback). Only the operator spends or reads the operator's things: live
/// searches on their API token, the search history, `/metrics`, `/manifests/`.
struct Operator: Sendable {
    enum Proof: Sendable { case bearer, session }
    var proof: Proof
}

/// What the sign-in page's cookie stands for; the token itself is never stored.
struct OperatorSession: Codable, Sendable {
    var signedIn: Double
}

/// A note the responder passes back out through the middleware: the body of an
/// answer the hot cache may keep, which a `Response` no longer shows.
final class ReplyNotes: Sendable {
    struct Keep: Sendable {
        var body: ByteBuffer
        var label: String
    }

    private let kept = Mutex<Keep?>(nil)
    private let wholeBody = Mutex<ByteBuffer?>(nil)

    var keep: Keep? {
        get { kept.withLock { $0 } }
        set { kept.withLock { $0 = newValue } }
    }

    /// The whole body of an answer that takes `Range` requests, for
    /// ``ConditionalMiddleware`` to cut (a response's body is a writer, not bytes).
    var rangeable: ByteBuffer? {
        get { wholeBody.withLock { $0 } }
        set { wholeBody.withLock { $0 = newValue } }
    }
}
