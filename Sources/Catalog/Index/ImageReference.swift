import Foundation

/// One place a manifest tweet uses a cached blob.
public struct ImageReference: Sendable, Codable, Equatable {
    public var tweetID: String
    public var screenName: String
    public var kind: ImageKind
    public var url: String
    /// 1-based position among the tweet's media (nil for avatars).
    public var position: Int?
    public var mediaID: String?
    public var createdAt: Date?
    public var bytes: Int?

    enum CodingKeys: String, CodingKey {
        case kind, url, position, bytes
        case tweetID = "tweet_id"
        case screenName = "screen_name"
        case mediaID = "media_id"
        case createdAt = "created_at"
    }
}
