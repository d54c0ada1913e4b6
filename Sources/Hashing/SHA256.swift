public import Foundation

/// SHA-256, computed by OpenSSL's libcrypto (the library libcurl already loads).
///
/// Hashes arrive in pieces: a blob as it streams from an origin or a bucket, a
/// file a chunk at a time. Not copyable: a hash under way has one owner, and
/// `finalize()` ends it.
public struct SHA256: ~Copyable {
    private var context = DigestContext(.sha256)

    public init() {}

    public mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        context.update(bytes)
    }

    public mutating func update(data: some DataProtocol) {
        context.update(data)
    }

    public consuming func finalize() -> SHA256Digest {
        SHA256Digest { context.finish(into: $0) }
    }

    /// The hash of bytes already in memory.
    public static func hash(data: some DataProtocol) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }
}
