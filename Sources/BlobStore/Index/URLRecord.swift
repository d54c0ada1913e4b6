public import Foundation

/// What the index remembers about one fetched URL: which blob it produced.
///
/// Lets a later run skip the download entirely, and lets `verify` and
/// garbage collection find every URL that depends on a blob.
public struct URLRecord: Hashable, Sendable, Codable {
    /// The URL exactly as it was fetched (after the caller's normalisation).
    public var url: String
    /// The blob holding the response body.
    public var hash: BlobHash
    /// The body size in bytes.
    public var size: Int
    /// The `Content-Type` the server sent, if any; servers lie, so this is a
    /// hint, not a decoded format.
    public var contentType: String?
    /// The final HTTP status (after redirects), if the fetch was over HTTP.
    public var httpStatus: Int?
    /// When the body was downloaded.
    public var fetchedAt: Date
    /// When a run last used this URL, for least-recently-used eviction.
    public var lastAccess: Date

    public init(
        url: String,
        hash: BlobHash,
        size: Int,
        contentType: String? = nil,
        httpStatus: Int? = nil,
        fetchedAt: Date = Date(),
        lastAccess: Date? = nil
    ) {
        self.url = url
        self.hash = hash
        self.size = size
        self.contentType = contentType
        self.httpStatus = httpStatus
        self.fetchedAt = fetchedAt
        self.lastAccess = lastAccess ?? fetchedAt
    }
}
