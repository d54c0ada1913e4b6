public import Foundation
public import Hashing

/// The SHA-256 of a blob's bytes, which is also its name in the store.
///
/// Stored as four big-endian words rather than an array so that hashing,
/// equality and ordering cost a few integer operations and no allocation;
/// the word order makes `<` agree with the order of the hex strings, so a
/// sorted listing looks sorted on disk too.
public struct BlobHash: Hashable, Sendable, Comparable, CustomStringConvertible {
    private let w0: UInt64
    private let w1: UInt64
    private let w2: UInt64
    private let w3: UInt64

    /// The number of bytes in a SHA-256 digest.
    public static let byteCount = 32

    /// Accepts only the canonical form: exactly 64 lowercase hex digits.
    ///
    /// Names coming from disk or from a manifest are untrusted; refusing
    /// uppercase or padded spellings guarantees one hash has one path.
    public init?(hex: some StringProtocol) {
        // Over the bytes in place, not a generic walk of the view (which cost a
        // catalog's reindex, parsing millions of these, more than its hashing):
        // native strings and substrings are contiguous; anything else is copied.
        let parsed = hex.utf8.withContiguousStorageIfAvailable(Self.init(hexUTF8:))
            ?? Array(hex.utf8).withUnsafeBufferPointer(Self.init(hexUTF8:))
        guard let parsed else { return nil }
        self = parsed
    }

    package init?(hexUTF8: UnsafeBufferPointer<UInt8>) {
        // Four words of sixteen digits each, without a branch on the position: a
        // million posts' `reindex` parses about four million hashes (0.9 s of its
        // decoding threads when each digit chose its word).
        guard hexUTF8.count == 64, let w0 = Self.word(hexUTF8, at: 0), let w1 = Self.word(hexUTF8, at: 16),
              let w2 = Self.word(hexUTF8, at: 32), let w3 = Self.word(hexUTF8, at: 48)
        else { return nil }
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// Sixteen lower-case hex digits from `start`, nil at any other byte.
    @inline(__always)
    private static func word(_ hex: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt64? {
        guard let high = eight(hex, at: start), let low = eight(hex, at: start + 8) else { return nil }
        return high << 32 | low
    }

    /// Eight lower-case hex digits from `start` as one number, nil at any other byte:
    /// all eight checked and converted at once in a word (a digit-by-digit loop that
    /// chose between digit and letter mispredicted about every other digit, and was
    /// 0.8 s of a million posts' `reindex`, about 200 ns a hash).
    @inline(__always)
    private static func eight(_ hex: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt64? {
        // The first digit in the most significant byte.
        let x = UInt64(bigEndian: UnsafeRawPointer(hex.baseAddress! + start).loadUnaligned(as: UInt64.self))
        let ones: UInt64 = 0x0101_0101_0101_0101, tops: UInt64 = 0x8080_8080_8080_8080
        let low7 = x & (ones &* 0x7F)
        // The top bit of each byte strictly between `m` and `n` (both below 128; bytes
        // of 128 and above never are): no byte borrows from or carries into another.
        func between(_ m: UInt64, _ n: UInt64) -> UInt64 {
            ((ones &* (127 &+ n)) &- low7) & ~x & (low7 &+ ones &* (127 &- m)) & tops
        }
        guard between(0x2F, 0x3A) | between(0x60, 0x67) == tops else { return nil }
        // '0'...'9' are 0x30...0x39, 'a'...'f' 0x61...0x66: the low four bits, plus 9
        // where bit 6 is set.
        let nibbles = (x & (ones &* 0x0F)) &+ ((x >> 6) & ones) &* 9
        // Gathered into the low 32 bits, pairs, then fours, then all eight.
        var value = (nibbles | nibbles >> 4) & 0x00FF_00FF_00FF_00FF
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
        return (value | value >> 16) & 0x0000_0000_FFFF_FFFF
    }

    /// Wraps a finished SHA-256 computation, e.g. from a hasher that saw the
    /// bytes as they streamed in.
    public init(digest: SHA256Digest) {
        let words = digest.withUnsafeBytes { raw -> (UInt64, UInt64, UInt64, UInt64) in
            (Self.loadBigEndian(raw, at: 0), Self.loadBigEndian(raw, at: 8),
             Self.loadBigEndian(raw, at: 16), Self.loadBigEndian(raw, at: 24))
        }
        (w0, w1, w2, w3) = words
    }

    /// Accepts exactly 32 raw digest bytes (e.g. read back from a binary
    /// format); anything else is not a SHA-256.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, byte) in bytes.enumerated() {
            switch index / 8 {
            case 0: words.0 = words.0 << 8 | UInt64(byte)
            case 1: words.1 = words.1 << 8 | UInt64(byte)
            case 2: words.2 = words.2 << 8 | UInt64(byte)
            default: words.3 = words.3 << 8 | UInt64(byte)
            }
        }
        (w0, w1, w2, w3) = words
    }

    /// Hashes bytes already in memory; streaming callers use a `BlobWriter`.
    public init(hashing data: some DataProtocol) {
        self.init(digest: SHA256.hash(data: data))
    }

    /// The digest's first eight bytes as a number: already uniform, so a table of
    /// hashes can index by it without hashing again.
    package var leadingWord: UInt64 { w0 }

    /// The 32 digest bytes, most significant first.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(Self.byteCount)
        for wordIndex in 0..<4 {
            let word = self.word(wordIndex)
            for shift in stride(from: 56, through: 0, by: -8) {
                result.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return result
    }

    /// 64 lowercase hex digits: the blob's file name and its spelling in the
    /// index and in manifests.
    public var hex: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 64) { buffer in
            digits.withUTF8Buffer { table in
                var position = 0
                for wordIndex in 0..<4 {
                    let word = self.word(wordIndex)
                    for shift in stride(from: 60, through: 0, by: -4) {
                        buffer[position] = table[Int((word >> UInt64(shift)) & 0xF)]
                        position += 1
                    }
                }
            }
            return 64
        }
    }

    /// The first two hex digits: the shard directory that holds the blob.
    public var shard: String {
        String(hex.prefix(2))
    }

    public var description: String { hex }

    public static func < (lhs: BlobHash, rhs: BlobHash) -> Bool {
        (lhs.w0, lhs.w1, lhs.w2, lhs.w3) < (rhs.w0, rhs.w1, rhs.w2, rhs.w3)
    }

    private func word(_ index: Int) -> UInt64 {
        switch index {
        case 0: w0
        case 1: w1
        case 2: w2
        default: w3
        }
    }

    private static func loadBigEndian(_ raw: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + 8) {
            value = value << 8 | UInt64(raw[index])
        }
        return value
    }
}

extension BlobHash: Codable {
    /// Encoded as its hex string so manifests and JSON logs stay readable.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let hash = BlobHash(hex: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected 64 lowercase hex digits for a SHA-256, got \(text.prefix(80).debugDescription)"
            )
        }
        self = hash
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
