import MediaFetch

/// Why a URL is fetched: decides what the body must be and how it is reported.
public enum MediaRole: String, Sendable, Codable, Hashable, CaseIterable {
    case avatar, photo, poster, video

    var expected: ExpectedContent { self == .video ? .video : .image }
}
