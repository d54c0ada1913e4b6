/// Picks the rendition of a video or GIF worth caching.
enum VideoVariant {
    /// The URL of the highest-bitrate `video/mp4` variant. HLS playlists
    /// (`application/x-mpegURL`) are skipped: they are not a file one can store.
    static func bestMP4(_ variants: [(bitrate: Int?, contentType: String?, url: String?)]) -> String? {
        var best: (bitrate: Int, url: String)?
        for variant in variants {
            guard variant.contentType?.lowercased() == "video/mp4", let url = variant.url, !url.isEmpty else { continue }
            let bitrate = variant.bitrate ?? 0
            if best == nil || bitrate > best!.bitrate { best = (bitrate, url) }
        }
        return best?.url
    }
}
