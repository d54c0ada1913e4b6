/// A file computed from a blob (a thumbnail, a tile pyramid), so it can be
/// found again without recomputing and removed with its source.
public struct DerivedRecord: Hashable, Sendable, Codable {
    /// The source blob.
    public var hash: BlobHash
    /// What was derived.
    public var kind: DerivedKind
    /// The parameter that distinguishes variants of one kind ("256",
    /// "512x512"); empty when there is only one.
    public var sizeParameter: String
    /// Where the derived file lives, relative to the cache root when possible.
    public var path: String
    public var width: Int?
    public var height: Int?
    /// The derived file's size in bytes.
    public var bytes: Int?
    /// The SHA-256 of the derived file's bytes, recorded when it was made (for
    /// thumbnails): derived files are named by their source, so a copy read back
    /// from disk or a bucket is checked against this instead of its name.
    public var contentSHA256: BlobHash?

    /// The size parameter as a number (a thumbnail's long edge, a pack's tile size).
    public var size: Int? { Int(sizeParameter) }

    public init(
        hash: BlobHash,
        kind: DerivedKind,
        sizeParameter: String = "",
        path: String,
        width: Int? = nil,
        height: Int? = nil,
        bytes: Int? = nil,
        contentSHA256: BlobHash? = nil
    ) {
        self.hash = hash
        self.kind = kind
        self.sizeParameter = sizeParameter
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
        self.contentSHA256 = contentSHA256
    }
}
