/// What a cached image is to the tweets that use it; one image can be several (a
/// photo later used as an avatar), listed in this order of precedence.
public enum ImageKind: String, Sendable, Codable, CaseIterable, Comparable {
    case photo
    /// A video's or GIF's poster frame, or its MP4 when fetched with `--videos`.
    case video
    case avatar
    /// In the cache, but no manifest mentions it (left by a deleted manifest).
    case unreferenced

    public static func < (a: ImageKind, b: ImageKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

extension ImageKind {
    /// The catalog's column value: the order of precedence, so `min` picks the strongest.
    var code: Int { Self.allCases.firstIndex(of: self)! }

    init(code: Int) {
        self = Self.allCases.indices.contains(code) ? Self.allCases[code] : .unreferenced
    }
}
