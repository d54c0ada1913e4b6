import BlobStore
import MediaFetch

/// Downloads stream straight into the blob store: hashed and written to a temp file as
/// they arrive, published under their hash only once the fetcher accepts the body.
extension BlobWriter: FetchSink {
    public typealias Output = StoredBlob

    /// One flush to disk for the batch (see ``BlobWriter/finishAll(_:)``).
    public static func finishBatch(_ sinks: [BlobWriter]) -> [Result<StoredBlob, any Error>] {
        let results: [Result<StoredBlob, BlobStoreError>] = finishAll(sinks)
        return results.map { $0.mapError { $0 } }
    }
}
