public import BlobStore
public import Foundation

extension BlobStore {
    /// A bare store opened by its directory, for tests and test tools: the program
    /// itself opens one through `Cache.open`, which makes the cache's one layout.
    public convenience init(root: URL) throws(BlobStoreError) {
        try self.init(layout: CacheLayout(root: root))
    }
}
