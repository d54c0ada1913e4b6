public import BlobStore

/// Somewhere originals can be copied from by hash instead of downloaded from
/// their origin again: a bucket other machines fill (``BucketHydrator``). Every
/// copy is checked against its hash before the store keeps it.
public protocol BlobSource: Sendable {
    /// Copies what it holds of `hashes` into `store`; the hashes now there and
    /// the bytes read.
    func copy(_ hashes: [BlobHash], into store: BlobStore) async -> (hashes: Set<BlobHash>, bytes: Int)
}
