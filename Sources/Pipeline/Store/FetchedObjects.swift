import Foundation

/// What `sync` records of a post in a run's manifest: each URL that was fetched, the
/// bytes it resolved to, and what its thumbnails hash to. Decoded without the rest of
/// the post (text, entities, tiles, errors), which only a reader of the whole post
/// needs: a million posts are decoded on every core in a fraction of the time a whole
/// ``ManifestTweet`` each takes.
struct FetchedObjects: Decodable, Sendable {
    var author: Author
    var media: [Object]

    struct Author: Decodable, Sendable {
        var avatar: Object?
    }

    /// An avatar, a medium's still image, or a medium's video file.
    struct Object: Decodable, Sendable {
        var url: String?
        var sha256: String?
        var bytes: Int?
        var contentType: String?
        var width: Int?
        var height: Int?
        var thumbnails: [Thumbnail]?
        /// A medium's video file (never an avatar's or a video's own).
        var video: Video?

        enum CodingKeys: String, CodingKey {
            case url, sha256, bytes, width, height, thumbnails, video
            case contentType = "content_type"
        }
    }

    /// A video file: an ``Object`` without a video of its own.
    struct Video: Decodable, Sendable {
        var url: String
        var sha256: String?
        var bytes: Int?
        var contentType: String?
        var thumbnails: [Thumbnail]?

        enum CodingKeys: String, CodingKey {
            case url, sha256, bytes, thumbnails
            case contentType = "content_type"
        }
    }

    struct Thumbnail: Decodable, Sendable {
        var path: String
        var sha256: String?
    }
}
