@testable import BlobStore
import Foundation

extension BlobStore {
    /// `allowUnnamedFiles: false` writes named temporary files even where unnamed
    /// ones work, so tests cover the path other systems take.
    convenience init(root: URL, allowUnnamedFiles: Bool) throws(BlobStoreError) {
        try self.init(layout: CacheLayout(root: root), allowUnnamedFiles: allowUnnamedFiles)
    }
}
