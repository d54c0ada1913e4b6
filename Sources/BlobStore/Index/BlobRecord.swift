public import Foundation

/// What the index knows about a blob's content, learned once per blob rather
/// than once per URL (decoding is the expensive part).
public struct BlobRecord: Hashable, Sendable, Codable {
    /// The blob.
    public var hash: BlobHash
    /// Its size in bytes.
    public var size: Int
    /// The detected media type (from the bytes, not the server), if known.
    public var contentType: String?
    /// Pixel dimensions once decoded; nil until then or for non-images.
    public var width: Int?
    public var height: Int?
    /// What is wrong with an image that decoded all the same (a JPEG whose data
    /// ends early): the bytes never change, so neither does this, and a later run
    /// that makes nothing new still says it.
    public var decodeWarning: String? = nil
    /// When the blob was first stored.
    public var createdAt: Date
    /// When a run last used it, for least-recently-used eviction.
    public var lastAccess: Date

    public init(
        hash: BlobHash,
        size: Int,
        contentType: String? = nil,
        width: Int? = nil,
        height: Int? = nil,
        createdAt: Date = Date(),
        lastAccess: Date? = nil
    ) {
        self.hash = hash
        self.size = size
        self.contentType = contentType
        self.width = width
        self.height = height
        self.createdAt = createdAt
        self.lastAccess = lastAccess ?? createdAt
    }
}
