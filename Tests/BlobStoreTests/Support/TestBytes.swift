import Hashing

/// Test content generated on the fly, and an independent way to name it.
enum TestBytes {
    /// SplitMix64 bytes; the same generator as tc-stress, written twice on
    /// purpose so the test checks the tool rather than trusting it.
    static func pattern(seed: UInt64, count: Int) -> [UInt8] {
        var state = seed
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for shift in 0..<8 where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: z >> UInt64(shift * 8)))
            }
        }
        return bytes
    }

    /// The SHA-256 as lowercase hex, computed with Hashing directly rather
    /// than through BlobHash.
    static func sha256Hex(_ bytes: some Sequence<UInt8>) -> String {
        let digest = SHA256.hash(data: Array(bytes))
        return digest.bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
