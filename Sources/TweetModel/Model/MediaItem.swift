/// One attached photo, video or GIF, reduced to what a cache needs to fetch.
public struct MediaItem: Sendable, Codable, Hashable {
    /// v1.1 `id_str` or v2 `media_key` (such as `3_1440535264527405065`).
    public let id: String
    public let type: MediaKind
    /// The still image to fetch: for photos the original-size rendition
    /// (`?format=jpg&name=orig`), since the API's default URL is a downscaled copy; for
    /// videos and GIFs the poster frame.
    public let imageURL: String?
    /// The highest-bitrate MP4 rendition; `nil` for photos and when the API listed none
    /// (v2 omits variants unless asked for them).
    public let videoURL: String?
    /// Pixel size of the original as reported by the API, if it said.
    public let width: Int?
    public let height: Int?
    /// The author's description of the media for screen readers.
    public let altText: String?
    /// The image URL exactly as the API gave it, before the original-size rewrite; the
    /// fallback when the rewritten URL cannot be fetched.
    public let sourceURL: String?

    /// The video is an HLS playlist (Bluesky): a list of segments, not a file to keep.
    /// It is not fetched (its poster is), and the manifest says so.
    public var videoIsPlaylist: Bool {
        guard let videoURL else { return false }
        let path = videoURL.prefix { $0 != "?" && $0 != "#" }
        return path.lowercased().hasSuffix(".m3u8")
    }

    public init(
        id: String,
        type: MediaKind,
        imageURL: String?,
        videoURL: String? = nil,
        width: Int? = nil,
        height: Int? = nil,
        altText: String? = nil,
        sourceURL: String? = nil
    ) {
        self.id = id
        self.type = type
        self.imageURL = imageURL
        self.videoURL = videoURL
        self.width = width
        self.height = height
        self.altText = altText
        self.sourceURL = sourceURL
    }
}
