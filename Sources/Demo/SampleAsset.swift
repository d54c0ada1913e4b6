/// One file the demo's origin server must be able to serve for the sample results.
///
/// The sample JSON only names URLs; the images behind them are rendered on the fly from
/// these descriptions, so the demo ships no binary files and stays deterministic.
public struct SampleAsset: Sendable, Hashable, Codable {
    /// What the file is, which decides how it is rendered.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A tweet photo (original size).
        case photo
        /// A 400x400 profile image.
        case avatar
        /// The still frame of a video or animated GIF.
        case poster
        /// An MP4 rendition of a video or animated GIF.
        case video
    }

    /// The last path component of the asset's URL without its extension and without a
    /// size suffix (`_normal`): the part every variant of the URL shares, so the origin
    /// can map `…/media/KEY?format=jpg&name=orig` or `…/KEY_400x400.jpg` back to it.
    public let key: String
    public let kind: Kind
    /// Pixel size of the file as the sample JSON reports it.
    public let width: Int
    public let height: Int
    /// Seeds the renderer so each asset looks different but is the same on every run.
    public let seed: UInt64
    /// For a repost: the size the picture was first posted at. The file is that picture
    /// scaled down to ``width`` x ``height`` and saved again at a lower quality, as a
    /// reposter's copy is: other bytes, the same picture.
    public var repostOf: [Int]? = nil

    public init(key: String, kind: Kind, width: Int, height: Int, seed: UInt64, repostOf: [Int]? = nil) {
        self.key = key
        self.kind = kind
        self.width = width
        self.height = height
        self.seed = seed
        self.repostOf = repostOf
    }

    /// A photo drawn at 1/`factor` of its width and height (and a repost's first size
    /// with it, so the copy is still the same picture scaled down); other kinds as they are.
    public func shrunk(by factor: Int) -> SampleAsset {
        guard factor > 1, kind == .photo else { return self }
        func side(_ n: Int) -> Int { max(1, n / factor) }
        return SampleAsset(key: key, kind: kind, width: side(width), height: side(height), seed: seed,
                           repostOf: repostOf?.map(side))
    }

    /// The key a URL of the sample maps to: its last path component, without query,
    /// fragment, extension, `:size` suffix or profile-image size suffix; `nil` for a URL
    /// with no last component.
    public static func key(forURL url: String) -> String? {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        guard var last = path.split(separator: "/").last else { return nil }
        if let colon = last.firstIndex(of: ":") { last = last[..<colon] }
        if let dot = last.lastIndex(of: ".") { last = last[..<dot] }
        for suffix in ["_normal", "_400x400", "_bigger", "_mini"] where last.hasSuffix(suffix) {
            last = last.dropLast(suffix.count)
            break
        }
        return last.isEmpty ? nil : String(last)
    }
}
