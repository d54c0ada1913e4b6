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
        guard let key = CacheKey(path: path) else { return .unreadable("not a name TweetCache writes; left alone") }
        return judge(key, bytes: bytes, expected: expected)
    }

    /// An original whose bytes were hashed as they streamed (``CacheStorage/digest(_:stall:)``).
    public static func judge(original name: BlobHash, hashing actual: BlobHash) -> Finding {
        actual == name ? .good : .wrong("its bytes hash to \(actual.hex), not to its name")
    }

    /// ``judge(_:bytes:expected:)`` for a key already parsed.
    public static func judge(_ key: CacheKey, bytes: [UInt8], expected: Set<BlobHash>) -> Finding {
        switch key {
        case .original(let hash):
            return judge(original: hash, hashing: BlobHash(hashing: bytes))
        case .pack(let owner):
            do {
                let pack = try PyramidPack(bytes)
                try pack.checkAll(bytes)
                return pack.source == owner.bytes ? .good : .wrong("a pack of another original")
            } catch {
                return .wrong("damaged: \(error)")
            }
        case .thumbnail: break
        default: return .unreadable("not an object checked by its bytes; left alone")
        }
        if !expected.isEmpty {
            return expected.contains(BlobHash(hashing: bytes)) ? .good
                : .wrong("its bytes are not the thumbnail its maker recorded (SHA-256 differs)")
        }
        return (try? ImageDecoder.info(of: bytes)) != nil ? .good : .wrong("not an image")
    }
}
