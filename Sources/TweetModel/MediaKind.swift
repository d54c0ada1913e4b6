/// What a media attachment is; the raw values are the API's `type` strings.
public enum MediaKind: String, Sendable, Codable, Hashable, CaseIterable {
    case photo
    case video
    /// Twitter stores GIFs as silent looping MP4s with a still poster.
    case animatedGIF = "animated_gif"
}
