/// A finished SHA-256: 32 bytes, held inline.
///
/// Equality takes the same time wherever two digests differ, so comparing a
/// secret's digest (an operator's token) tells a caller nothing by its timing.
public struct SHA256Digest: Hashable, Sendable {
    // The digest's bytes in order, in the memory of four words.
    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    public static let byteCount = 32

    init(filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
        withUnsafeMutableBytes(of: &storage, fill)
    }

    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let copy = storage
        return try Swift.withUnsafeBytes(of: copy) { (raw) throws(Failure) -> Result in try body(raw) }
    }

    /// The 32 bytes, first to last.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        let difference = (lhs.storage.0 ^ rhs.storage.0) | (lhs.storage.1 ^ rhs.storage.1)
            | (lhs.storage.2 ^ rhs.storage.2) | (lhs.storage.3 ^ rhs.storage.3)
        return difference == 0
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
