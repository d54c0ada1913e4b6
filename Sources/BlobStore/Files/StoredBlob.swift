public import Foundation

/// The outcome of publishing bytes into the store.
///
/// `alreadyPresent` lets callers skip work that depends only on the content
/// (decoding, thumbnails) when another URL, run or process already stored it.
public struct StoredBlob: Hashable, Sendable {
    /// The SHA-256 of the bytes, and their name in the store.
    public let hash: BlobHash
    /// The number of bytes in the blob.
    public let size: Int
    /// Where the blob now lives; valid until someone removes it.
    public let path: URL
    /// True when identical bytes were already published before this call.
    public let alreadyPresent: Bool

    public init(hash: BlobHash, size: Int, path: URL, alreadyPresent: Bool) {
        self.hash = hash
        self.size = size
        self.path = path
        self.alreadyPresent = alreadyPresent
    }
}
