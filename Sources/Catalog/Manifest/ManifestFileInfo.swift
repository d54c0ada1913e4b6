import Foundation

/// One manifest file as the catalog saw it.
public struct ManifestFileInfo: Sendable, Equatable, Codable {
    /// Relative to the cache root: `manifests/<stamp>.json`.
    public var path: String
    public var generatedAt: Date
    public var tweets: Int

    public init(path: String, generatedAt: Date, tweets: Int) {
        self.path = path
        self.generatedAt = generatedAt
        self.tweets = tweets
    }

    enum CodingKeys: String, CodingKey {
        case path, tweets
        case generatedAt = "generated_at"
    }
}
