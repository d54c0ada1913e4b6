import MediaTypes
/// What a caller wants fetched.
public struct FetchRequest: Sendable, Hashable {
    /// The URL as it appears in the data (before any mirror).
    public var url: String
    /// Tried in order when `url` answers 404 or 410: an avatar's 400x400 variant can be
    /// missing while the URL the API gave still works.
    public var fallbackURLs: [String]
    /// What the body must be, checked from its first bytes rather than trusting Content-Type.
    public var expected: ExpectedContent

    public init(url: String, fallbackURLs: [String] = [], expected: ExpectedContent = .image) {
        self.url = url
        self.fallbackURLs = fallbackURLs
        self.expected = expected
    }
}

/// The kind of body a request accepts.
public enum ExpectedContent: String, Sendable, Hashable, Codable {
    case image, video, any

    func accepts(_ kind: ContentKind) -> Bool {
        switch self {
        case .any: return true
        case .image: return kind.isImage
        case .video: return kind == .mp4
        }
    }
}
