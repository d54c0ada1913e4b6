import BlobStore
import MediaFetch

/// Downloads stream straight into the blob store: hashed and written to a temp file as
/// they arrive, published under their hash only once the fetcher accepts the body.
extension BlobWriter: FetchSink {
    public typealias Output = StoredBlob
}
