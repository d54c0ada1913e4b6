/// Where a seekable zstd file's frames end: content-defined, so the same bytes are cut
/// into the same frames wherever they stand in a file.
///
/// Why: a run repeated over the same posts writes the same JSON after a header of a
/// different length. Frames of a fixed size would all be shifted, and none would match
/// the earlier run's; frames ended where the bytes themselves say match again within a
/// frame of the header, and can be named rather than written (``SeekableZstd/Reference``).
///
/// The rule is a gear hash (as in FastCDC): a 64-bit value shifted left a bit a byte,
/// plus a fixed random number for the byte, so it depends on the last 64 bytes only. A
/// frame ends after a byte where its top 15 bits are zero, but never before
/// ``SeekableZstd/shortestFrame`` bytes and always at ``SeekableZstd/longestFrame``:
/// about 64 KB a frame on average. The numbers are fixed for good: changing them
/// would stop new runs from matching the frames of old ones.
struct FrameCutter {
    private var hash: UInt64 = 0

    /// Where, in `bytes` (the frame being filled, `scanned` of them already looked at),
    /// the frame ends, if it does.
    mutating func cut(_ bytes: UnsafeRawBufferPointer, scanned: Int) -> Int? {
        let start = max(scanned, SeekableZstd.shortestFrame)
        let end = min(bytes.count, SeekableZstd.longestFrame)
        guard start < end else { return bytes.count >= SeekableZstd.longestFrame ? SeekableZstd.longestFrame : nil }
        var hash = self.hash
        let gear = Self.gear
        var found: Int?
        gear.withUnsafeBufferPointer { gear in
            for i in start..<end {
                hash = (hash << 1) &+ gear[Int(bytes[i])]
                if hash & Self.mask == 0 {
                    found = i + 1
                    break
                }
            }
        }
        if let found {
            self.hash = 0
            return found
        }
        self.hash = hash
        if end == SeekableZstd.longestFrame {
            self.hash = 0
            return end
        }
        return nil
    }

    /// Starts again at a frame's start.
    mutating func reset() { hash = 0 }

    private static let mask: UInt64 = 0xFFFE_0000_0000_0000

    /// 256 numbers from SplitMix64, seeded with a constant of this project's.
    private static let gear: [UInt64] = {
        var state: UInt64 = 0x7477_6565_7463_6163  // "tweetcac"
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }()
}
