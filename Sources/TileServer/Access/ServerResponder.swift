import Hummingbird
import HummingbirdAuth

/// The server's middleware in front of ``TileResponder``, outermost first:
/// 1. ``HostCheckMiddleware``: its own hosts only (421), one `Host` (400);
/// 2. ``RouteMiddleware``: the path parsed once;
/// 3. ``MetricsMiddleware``: every answer counted by route and status;
/// 4. ``HotStoreMiddleware``: immutable answers kept, as sent, for the hot path;
/// 5. ``ConditionalMiddleware``: `If-None-Match` (304), `Range` and `If-Range` (206,
///    416) and HEAD, for every answer alike;
/// 6. ``CrossOriginMiddleware``: `Access-Control-Allow-Origin` on public media only;
/// 7. hummingbird-auth's session middleware and authenticator, and
///    ``OperatorAuthenticator`` (bearer), when an operator token is set;
/// 8. ``OperatorGate``: the operator's routes for the operator;
/// 9. ``ClientMiddleware``: the client's address and connection, for its renders.
///
/// Cached tiles repeated on a connection never come here (``HotResponseHandler``).
typealias ServerResponder =
    Behind<HostCheckMiddleware, Behind<RouteMiddleware, Behind<MetricsMiddleware, Behind<HotStoreMiddleware,
        Behind<ConditionalMiddleware, Behind<CrossOriginMiddleware, Behind<Optionally<SessionMiddleware<ServerContext>>,
            Behind<Optionally<SessionAuthenticator<ServerContext, UserSessionClosureRepository<OperatorSession, Operator>>>,
                Behind<Optionally<OperatorAuthenticator>, Behind<OperatorGate, Behind<ClientMiddleware, TileResponder>>>>>>>>>>>

/// Builds ``ServerResponder``.
enum ServerMiddleware {
    static func chain(
        _ responder: TileResponder, hosts: HostPolicy, metrics: ServerMetrics, hot: MemoryCache<HotResponse.Key, HotResponse>,
        access: OperatorAccess, trustsProxy: Bool, session: SessionMiddleware<ServerContext>?, bearer: OperatorAuthenticator?
    ) -> ServerResponder {
        let sessionUser = session.map { _ in
            SessionAuthenticator(context: ServerContext.self) { (_: OperatorSession, _) in Operator(proof: .session) }
        }
        return Behind(middleware: HostCheckMiddleware(hosts: hosts, metrics: metrics), next:
            Behind(middleware: RouteMiddleware(), next:
            Behind(middleware: MetricsMiddleware(metrics: metrics), next:
            Behind(middleware: HotStoreMiddleware(hot: hot, metrics: metrics), next:
            Behind(middleware: ConditionalMiddleware(), next:
            Behind(middleware: CrossOriginMiddleware(), next:
            Behind(middleware: Optionally(wrapped: session), next:
            Behind(middleware: Optionally(wrapped: sessionUser), next:
            Behind(middleware: Optionally(wrapped: bearer), next:
            Behind(middleware: OperatorGate(access: access), next:
            Behind(middleware: ClientMiddleware(trustsProxy: trustsProxy), next: responder)))))))))))
    }
}
