public import Foundation

/// A URL that could not be fetched, kept so runs can back off instead of
/// hammering a dead link, and so reports can say why an image is missing.
public struct FailureRecord: Hashable, Sendable, Codable {
    /// The URL that failed.
    public var url: String
    /// A human-readable reason ("HTTP 404", "timed out after 30 s").
    public var reason: String
    /// The HTTP status, when the server answered at all.
    public var httpStatus: Int?
    /// How many runs have failed on this URL since it last succeeded.
    public var attempts: Int
    /// When the latest failure happened.
    public var failedAt: Date

    public init(url: String, reason: String, httpStatus: Int? = nil, attempts: Int = 1, failedAt: Date = Date()) {
        self.url = url
        self.reason = reason
        self.httpStatus = httpStatus
        self.attempts = attempts
        self.failedAt = failedAt
    }
}
