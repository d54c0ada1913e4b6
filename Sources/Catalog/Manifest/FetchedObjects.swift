import Foundation

/// What `sync` records of a post in a run's manifest: each URL that was fetched, the
/// bytes it resolved to, and what its thumbnails hash to. Decoded without the rest of
/// the post (text, entities, tiles, errors), which only a reader of the whole post
/// needs: a million posts are decoded on every core in a fraction of the time a whole
/// ``ManifestTweet`` each takes.
package struct FetchedObjects: Decodable, Sendable, Equatable {
    package var author: Author
    package var media: [Object]

    package struct Author: Decodable, Sendable, Equatable {
        package var avatar: Object?
    }

    /// An avatar, a medium's still image, or a medium's video file.
    package struct Object: Decodable, Sendable, Equatable {
        package var url: String?
        package var sha256: String?
        package var bytes: Int?
        package var contentType: String?
        package var width: Int?
        package var height: Int?
        package var thumbnails: [Thumbnail]?
        /// A medium's video file (never an avatar's or a video's own).
        package var video: Video?

        enum CodingKeys: String, CodingKey {
            case url, sha256, bytes, width, height, thumbnails, video
            case contentType = "content_type"
        }
    }

    /// A video file: an ``Object`` without a video of its own.
    package struct Video: Decodable, Sendable, Equatable {
        package var url: String
        package var sha256: String?
        package var bytes: Int?
        package var contentType: String?
        package var thumbnails: [Thumbnail]?

        enum CodingKeys: String, CodingKey {
            case url, sha256, bytes, thumbnails
            case contentType = "content_type"
        }
    }

    package struct Thumbnail: Decodable, Sendable, Equatable {
        package var path: String
        package var sha256: String?
    }

    /// The objects of the post whose JSON is `bytes`: read by hand (a million posts'
    /// worth in a fraction of `Codable`'s time) when the JSON is of the plain kind,
    /// else by Foundation's decoder, as ``StrictJSONReader`` says.
    package static func read(_ bytes: UnsafeRawBufferPointer) throws -> FetchedObjects {
        try StrictJSONReader.decode(FetchedObjects.self, from: bytes) { $0.fetchedObjects() }
    }
}

extension StrictJSONReader {
    mutating func fetchedObjects() -> FetchedObjects? {
        var author: FetchedObjects.Author?, media: [FetchedObjects.Object]?
        let ok = object { r, key in
            switch key {
            case "author":
                var avatar: FetchedObjects.Object??
                let read = r.object { r, key in
                    key == "avatar" ? r.once(&avatar, r.optional { $0.fetchedObject() }) : r.skip()
                }
                return read && r.once(&author, FetchedObjects.Author(avatar: avatar ?? nil))
            case "media": return r.once(&media, r.array { $0.fetchedObject() })
            default: return r.skip()
            }
        }
        guard ok, let author, let media else { return nil }
        return FetchedObjects(author: author, media: media)
    }

    private mutating func fetchedObject() -> FetchedObjects.Object? {
        var url: String??, sha256: String??, bytes: Int??, contentType: String??, width: Int??, height: Int??
        var thumbnails: [FetchedObjects.Thumbnail]??, video: FetchedObjects.Video??
        let ok = object { r, key in
            switch key {
            case "url": return r.once(&url, r.optional { $0.string() })
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            case "bytes": return r.once(&bytes, r.optional { $0.int() })
            case "content_type": return r.once(&contentType, r.optional { $0.string() })
            case "width": return r.once(&width, r.optional { $0.int() })
            case "height": return r.once(&height, r.optional { $0.int() })
            case "thumbnails": return r.once(&thumbnails, r.optional { $0.array { $0.thumbnail() } })
            case "video": return r.once(&video, r.optional { $0.video() })
            default: return r.skip()
            }
        }
        guard ok else { return nil }
        return FetchedObjects.Object(url: url ?? nil, sha256: sha256 ?? nil, bytes: bytes ?? nil, contentType: contentType ?? nil,
                                     width: width ?? nil, height: height ?? nil, thumbnails: thumbnails ?? nil, video: video ?? nil)
    }

    private mutating func video() -> FetchedObjects.Video? {
        var url: String?, sha256: String??, bytes: Int??, contentType: String??, thumbnails: [FetchedObjects.Thumbnail]??
        let ok = object { r, key in
            switch key {
            case "url": return r.once(&url, r.string())
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            case "bytes": return r.once(&bytes, r.optional { $0.int() })
            case "content_type": return r.once(&contentType, r.optional { $0.string() })
            case "thumbnails": return r.once(&thumbnails, r.optional { $0.array { $0.thumbnail() } })
            default: return r.skip()
            }
        }
        guard ok, let url else { return nil }
        return FetchedObjects.Video(url: url, sha256: sha256 ?? nil, bytes: bytes ?? nil, contentType: contentType ?? nil,
                                    thumbnails: thumbnails ?? nil)
    }

    mutating func thumbnail() -> FetchedObjects.Thumbnail? {
        var path: String?, sha256: String??
        let ok = object { r, key in
            switch key {
            case "path": return r.once(&path, r.string())
            case "sha256": return r.once(&sha256, r.optional { $0.string() })
            default: return r.skip()
            }
        }
        guard ok, let path else { return nil }
        return FetchedObjects.Thumbnail(path: path, sha256: sha256 ?? nil)
    }
}
