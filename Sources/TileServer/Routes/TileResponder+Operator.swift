import Foundation
import Hummingbird
import HTTPTypes

/// The operator's sign-in (`/signin`, `/signout`) and what the page may offer a
/// visitor (`/api/operator`). The checks themselves are middleware
/// (``OperatorAuthenticator``, ``OperatorGate``); here the session starts and ends.
extension TileResponder {
    /// How long a sign-in lasts.
    static let sessionLength: Duration = .seconds(12 * 3600)

    struct OperatorFeed: Encodable {
        /// `open` (loopback: everyone is the operator), `token` (sign in), `off`.
        var access: String
        /// Whether this visitor may use the operator's routes now.
        var signedIn: Bool
        /// Whether the server can search live (it has an API token).
        var liveSearch: Bool
        /// Why the operator's routes are off, when they are.
        var reason: String?

        enum CodingKeys: String, CodingKey {
            case access, reason
            case signedIn = "signed_in"
            case liveSearch = "live_search"
        }
    }

    func operatorStatus(context: Context) throws -> Reply {
        var feed = OperatorFeed(access: access.name, signedIn: false, liveSearch: liveSearches != nil)
        switch access {
        case .open: feed.signedIn = true
        case .token: feed.signedIn = context.identity != nil
        case let .off(reason): feed.reason = reason
        }
        var reply = try Self.json(feed)
        reply.cacheControl = "no-store"
        return reply
    }

    func signInPage(context: Context, message: String? = nil, status: HTTPResponse.Status = .ok) -> Reply {
        let note: String = switch access {
        case .open: "<p class=\"signin-note\">This server is on loopback: no sign-in is needed.</p>"
        case let .off(reason): "<p class=\"signin-note\">Sign-in is off: \(reason).</p>"
        case .token:
            if let message { "<p class=\"signin-note\" role=\"alert\">\(message)</p>" }
            else if context.identity != nil {
                "<p class=\"signin-note\">You are signed in.</p><form method=\"post\" action=\"/signout\"><button type=\"submit\">Sign out</button></form>"
            } else { "" }
        }
        let html = ViewerAssets.signIn.replacing("<!--message-->".utf8, with: note.utf8)
        var reply = Self.page(ViewerAssets.Asset(Array(html), type: "text/html; charset=utf-8"))
        reply.status = status
        reply.etag = nil
        reply.cacheControl = "no-store"
        return reply
    }

    /// `POST /signin` with the form's `token`: starts the operator's session (an
    /// HttpOnly, `SameSite=Strict` cookie, `Secure` behind an https public URL) and
    /// goes back to the page. Attempts are limited per address, like renders.
    func signIn(_ request: Request, context: Context) async throws -> Reply {
        guard case let .token(token) = access else { return signInPage(context: context, status: .forbidden) }
        guard isSameOrigin(request) else { throw HTTPFailure(status: 403, message: "sign in from this server's own page") }
        if case let .failure(refused) = signInLimit.take(RenderClient.current?.address ?? "unknown") {
            var reply = signInPage(context: context, message: "Too many attempts; try again in a minute.", status: .tooManyRequests)
            reply.headers[.retryAfter] = String(refused.retryAfter)
            return reply
        }
        let body = try await request.body.collect(upTo: 4096)
        let form = String(buffer: body).replacingOccurrences(of: "+", with: "%20")
        let given = URLComponents(string: "?" + form)?.queryItems?.first { $0.name == "token" }?.value ?? ""
        guard token.matches(given.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return signInPage(context: context, message: "That is not the operator's token.", status: .unauthorized)
        }
        context.sessions.createSession(OperatorSession(signedIn: configuration.clock.now().timeIntervalSince1970),
                                       expiresIn: Self.sessionLength)
        return .redirect(to: "/")
    }

    /// `POST /signout`: ends the session (its cookie is expired).
    func signOut(_ request: Request, context: Context) throws -> Reply {
        guard isSameOrigin(request) else { throw HTTPFailure(status: 403, message: "sign out from this server's own page") }
        context.sessions.clearSession()
        return .redirect(to: "/")
    }

    /// A request a page of this server sent, or one with no `Origin` (a script):
    /// what a form or fetch on another site sends carries that site's origin.
    func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        if let host = request.head.authority, origin == "http://\(host)" || origin == "https://\(host)" { return true }
        return configuration.publicBaseURL.map { origin == $0.trimmingSuffix("/") } == true
    }
}
