/// What a media attachment is; the raw values are the API's `type` strings.
public enum MediaKind: String, Sendable, Codable, Hashable, CaseIterable {
    case photo
    case video
    /// Twitter stores GIFs as silent looping MP4s with a still poster (Mastodon's `gifv`).
    case animatedGIF = "animated_gif"
    /// A sound file (Mastodon), fetched only with videos; its preview image, if any, is the poster.
    case audio
}
