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

    static func badRequest(_ message: String) -> HTTPFailure { .init(status: 400, message: message) }
    static func notFound(_ message: String = "not found") -> HTTPFailure { .init(status: 404, message: message) }
    static func notImplemented(_ message: String) -> HTTPFailure { .init(status: 501, message: message) }
    static func unavailable(_ message: String) -> HTTPFailure { .init(status: 503, message: message) }
    static func unprocessable(_ message: String) -> HTTPFailure { .init(status: 422, message: message) }
}
