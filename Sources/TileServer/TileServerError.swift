import ObjectStore
/// Why the server could not start or answer; per-request problems become HTTP
/// statuses instead (see ``HTTPFailure``).
public enum TileServerError: Error, CustomStringConvertible, Sendable {
    case cacheUnavailable(String)
    case bindFailed(String)

    public var description: String {
        switch self {
        case let .cacheUnavailable(why): "cache not usable: \(why)"
        case let .bindFailed(why): "cannot listen: \(why)"
        }
    }
}

/// A request that ends in an error status, with a message for the client.
struct HTTPFailure: Error, Sendable {
    var status: Int
    var message: String
    /// Seconds a client should wait before asking again (`Retry-After`), for a 503.
    var retryAfter: Int? = nil

    static func badRequest(_ message: String) -> HTTPFailure { .init(status: 400, message: message) }
    static func notFound(_ message: String = "not found") -> HTTPFailure { .init(status: 404, message: message) }
    static func notImplemented(_ message: String) -> HTTPFailure { .init(status: 501, message: message) }
    static func unavailable(_ message: String) -> HTTPFailure { .init(status: 503, message: message) }
    static func unprocessable(_ message: String) -> HTTPFailure { .init(status: 422, message: message) }

    /// A failure of the bucket, as a client may see it: never its endpoint or keys
    /// (those go to the log), 503 with `Retry-After` while the store is down or
    /// slow, 502 for bytes it holds that are not what they must be.
    static func store(_ error: StoreError, what: String) -> HTTPFailure {
        switch error {
        case .corrupt: return .init(status: 502, message: "the stored copy of \(what) is damaged; it is not served")
        case .down: return .init(status: 503, message: "the object store is not answering; try again shortly", retryAfter: 2)
        case .unreachable: return .init(status: 503, message: "the object store did not answer in time", retryAfter: 1)
        case .tooLarge: return .init(status: 413, message: "\(what) is larger than this server serves")
        default: return .init(status: 502, message: "the object store refused to read \(what) (\(error.code))")
        }
    }

    /// Every copy of `what` failed its check.
    static func corrupt(_ what: String) -> HTTPFailure {
        .init(status: 502, message: "the stored copy of \(what) does not match its SHA-256; it is not served")
    }
}
