import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// Who is asking, for the work their request may cause: the client's address
/// (from `X-Forwarded-For` only when `--trust-proxy` says a proxy in front sets it)
/// and whether they are still connected. The responder's renders read it
/// (``RenderClient/current``): each uncached render takes a token of that
/// client's (``RenderLimiter``), and a render still waiting for a slot when its
/// only client has hung up is dropped.
struct ClientMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let trustsProxy: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = RenderClient(
            address: RenderClient.address(
                peer: context.remoteAddress, forwardedFor: trustsProxy ? request.headers[values: Self.forwardedFor] : []),
            watch: ConnectionWatch.current)
        return try await RenderClient.$current.withValue(client) { try await next(request, context) }
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// The client a request's work is done for.
struct RenderClient: Sendable {
    /// The key of its rate limit: an IPv4 address, or an IPv6 /64 (one host's share
    /// of a network, which a client can change at will inside it).
    var address: String
    var watch: ConnectionWatch?

    @TaskLocal static var current: RenderClient?

    /// The rate-limit key: the last `X-Forwarded-For` address (the one the trusted
    /// proxy added; earlier ones are the client's own say) when given, else the peer.
    static func address(peer: SocketAddress?, forwardedFor: [String]) -> String {
        if let last = forwardedFor.last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty,
           let parsed = try? SocketAddress(ipAddress: last.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: 0) {
            return key(parsed)
        }
        return peer.map(key) ?? "unknown"
    }

    static func key(_ address: SocketAddress) -> String {
        guard case let .v6(v6) = address else { return address.ipAddress ?? "unknown" }
        var raw = v6.address.sin6_addr
        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
        // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is that IPv4 address.
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes.suffix(4).map(String.init).joined(separator: ".")
        }
        let groups: [String] = stride(from: 0, to: 8, by: 2).map { (i: Int) -> String in
            let group: UInt16 = UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
            return String(group, radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
