public import BlobStore
import Imaging

/// What a cache file's bytes must be to be used, judged the same way wherever
/// they were read from (a cache directory, a bucket, a shared folder): by
/// `verify`, `verify --store` and their repairs.
public enum ObjectCheck {
    public enum Finding: Sendable, Equatable {
        case good
        /// Proven wrong: its bytes are not what its name says.
        case wrong(String)
        /// Nothing is known against it (unread, or a name TweetCache does not write).
        case unreadable(String)
    }

    /// An original must hash to its name; a pack must be sound throughout (header,
    /// index, each tile's CRC) and cut from its original; a thumbnail must hash to
    /// one of the SHA-256s its makers recorded, or, when none was recorded, at
    /// least be an image.
    public static func judge(_ path: String, bytes: [UInt8], expected: Set<BlobHash>) -> Finding {
        let name = String(path.split(separator: "/").last ?? "")
        if path.hasPrefix(CacheLayout.blobsFolder + "/") {
            guard let hash = BlobHash(hex: name) else { return .unreadable("not a name an original is stored under; left alone") }
            let actual = BlobHash(hashing: bytes)
            return actual == hash ? .good : .wrong("its bytes hash to \(actual.hex), not to its name")
        }
        guard let owner = CacheLayout.derivedOwner(fileName: name) else { return .unreadable("not a name TweetCache writes; left alone") }
        if path.hasSuffix(CacheLayout.packSuffix) {
            do {
                let pack = try PyramidPack(bytes)
                try pack.checkAll(bytes)
                return pack.source == owner.bytes ? .good : .wrong("a pack of another original")
            } catch {
                return .wrong("damaged: \(error)")
            }
        }
        if !expected.isEmpty {
            return expected.contains(BlobHash(hashing: bytes)) ? .good
                : .wrong("its bytes are not the thumbnail its maker recorded (SHA-256 differs)")
        }
        return (try? ImageDecoder.info(of: bytes)) != nil ? .good : .wrong("not an image")
    }
}
