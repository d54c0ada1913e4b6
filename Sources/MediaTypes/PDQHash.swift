/// A 256-bit PDQ perceptual hash (Meta's PDQ, as hash-sharing programmes exchange them).
///
/// Two photos that look alike have hashes a few bits apart, whatever their bytes:
/// re-encoded, resized or captioned copies land within PDQ's recommended distance of 31
/// bits, unrelated photos about 128 bits apart. The text form is the reference's: 64 hex
/// digits, most significant first, where bit `k` of the reference's bit numbering
/// (`k = 16 * row + column` of its 16x16 DCT block) has the value 2^k, so hashes read
/// from shared lists and written by this project compare as the same numbers.
public struct PDQHash: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 256 bits as four words, the most significant (reference bits 255...192) first.
    public var words: (UInt64, UInt64, UInt64, UInt64)

    public init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }

    /// The hash of nothing: the reference gives it to images too small or too flat to hash.
    public static let zero = PDQHash(words: (0, 0, 0, 0))

    /// Reads the reference's text form: 64 hex digits, either case; nil for anything else.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var parsed: [UInt64] = [0, 0, 0, 0]
        for (index, digit) in digits.enumerated() {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            parsed[index / 16] = parsed[index / 16] << 4 | UInt64(value)
        }
        words = (parsed[0], parsed[1], parsed[2], parsed[3])
    }

    /// The 32 bytes, most significant first (the hex form's order), as stored in an index.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        // Contiguous bytes (a catalog row's `Data`) as four big-endian loads: byte by
        // byte through `Data`'s iterator was 3% of `dupes`, which reads seven million.
        if let loaded = bytes.withContiguousStorageIfAvailable({ buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            return (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        }) {
            words = loaded
            return
        }
        var w: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var index = 0
        for byte in bytes {
            switch index >> 3 {
            case 0: w.0 = w.0 << 8 | UInt64(byte)
            case 1: w.1 = w.1 << 8 | UInt64(byte)
            case 2: w.2 = w.2 << 8 | UInt64(byte)
            default: w.3 = w.3 << 8 | UInt64(byte)
            }
            index += 1
        }
        words = w
    }

    /// Sets bit `k` in the reference's numbering (0...255, value 2^k).
    public mutating func setBit(_ k: Int) {
        precondition((0..<256).contains(k), "PDQ bit \(k) out of range")
        let mask = UInt64(1) << UInt64(k & 63)
        switch k >> 6 {
        case 3: words.0 |= mask
        case 2: words.1 |= mask
        case 1: words.2 |= mask
        default: words.3 |= mask
        }
    }

    /// The 64 hex digits, lower case.
    public var hex: String {
        [words.0, words.1, words.2, words.3].map { word in
            let text = String(word, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }

    public var description: String { hex }

    /// The 32 bytes, most significant first.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return out
    }

    /// Bits that differ: 0 for the same picture, about 128 for unrelated ones.
    @inline(__always)
    public func distance(to other: PDQHash) -> Int {
        (words.0 ^ other.words.0).nonzeroBitCount + (words.1 ^ other.words.1).nonzeroBitCount
            + (words.2 ^ other.words.2).nonzeroBitCount + (words.3 ^ other.words.3).nonzeroBitCount
    }

    /// The distance when it is at most `limit`, else nil; stops after the first word that
    /// already exceeds it (most candidates of a near-neighbour search are far).
    @inline(__always)
    public func distance(to other: PDQHash, atMost limit: Int) -> Int? {
        var d = (words.0 ^ other.words.0).nonzeroBitCount
        guard d <= limit else { return nil }
        d += (words.1 ^ other.words.1).nonzeroBitCount
        guard d <= limit else { return nil }
        d += (words.2 ^ other.words.2).nonzeroBitCount + (words.3 ^ other.words.3).nonzeroBitCount
        return d <= limit ? d : nil
    }

    /// The sixteen 16-bit pieces a multi-index files this hash under: any two hashes at
    /// most 31 bits apart agree within one bit on at least one piece (pigeonhole: the
    /// pieces split the 256 bits into sixteen disjoint sets).
    ///
    /// Piece `c` holds one bit of each row `i` of the reference's 16x16 coefficient block,
    /// the one in column `(i + c) mod 16` (bit `i` of the piece): a diagonal, so a piece
    /// mixes low and high frequencies both ways. The bits of one row are correlated in
    /// photos (rows as pieces gave 1.6 times the candidates of an even spread on a
    /// million generated photos; diagonals, 1.03 times).
    @inline(__always)
    public func pieces(into keys: UnsafeMutablePointer<UInt16>) {
        for c in 0..<16 { keys[c] = 0 }
        for i in 0..<16 {
            let row = UInt16(truncatingIfNeeded: rows(i >> 2) >> UInt64(16 * (i & 3)))
            // Rotated right by i, bit c of the row is its column (i + c) mod 16.
            let rotated = (row >> UInt16(i)) | (row << UInt16((16 - i) & 15))
            // Without a branch per bit: which bits are set is the hash's own noise, and a
            // branch on each was most of `dupes`' time outside the join (1.8 µs a hash).
            for c in 0..<16 { keys[c] |= ((rotated >> UInt16(c)) & 1) << UInt16(i) }
        }
    }

    /// One piece (see ``pieces(into:)``), read straight from the words: sixteen bits,
    /// one from each row, with no table of all sixteen pieces made (`dupes` sorts a
    /// million hashes by one piece at a time and keeps no pieces: 30 MB a list).
    @inlinable @inline(__always)
    public func piece(_ c: Int) -> UInt16 {
        var key: UInt64 = 0
        for i in 0..<16 {
            // Row i is bits 16(i mod 4) ..< 16(i mod 4) + 16 of its word; its column (i + c) mod 16.
            let bit = UInt64(16 * (i & 3) + ((i + c) & 15))
            key |= ((rows(i >> 2) >> bit) & 1) << UInt64(i)
        }
        return UInt16(truncatingIfNeeded: key)
    }

    /// The word that holds rows `4k` to `4k + 3` of the coefficient block, row `4k` in
    /// its low 16 bits: the last word holds rows 0-3.
    @usableFromInline @inline(__always)
    func rows(_ k: Int) -> UInt64 {
        switch k {
        case 0: words.3
        case 1: words.2
        case 2: words.1
        default: words.0
        }
    }

    /// How many bits are set (the reference's hashes set about half).
    public var bitCount: Int {
        words.0.nonzeroBitCount + words.1.nonzeroBitCount + words.2.nonzeroBitCount + words.3.nonzeroBitCount
    }

    public static func == (a: PDQHash, b: PDQHash) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public static func < (a: PDQHash, b: PDQHash) -> Bool {
        (a.words.0, a.words.1, a.words.2, a.words.3) < (b.words.0, b.words.1, b.words.2, b.words.3)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
