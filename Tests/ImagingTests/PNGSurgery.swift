/// Byte-level construction and edits of PNG files, for inputs no encoder writes.
enum PNGSurgery {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk: length, type, data and a correct CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(UInt32(data.count)) + typeBytes + data + be32(crc32(typeBytes + data))
    }

    /// An IHDR chunk claiming any size, valid in every other respect.
    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 2) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [bitDepth, colorType, 0, 0, 0])
    }

    /// Offset of the first chunk of `type` (pointing at its length field).
    static func chunkOffset(_ data: [UInt8], type: String) -> Int? {
        var i = 8
        let wanted = Array(type.utf8)
        while i + 8 <= data.count {
            let length = Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
            if Array(data[i + 4..<i + 8]) == wanted { return i }
            i += 12 + length
        }
        return nil
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// CRC-32 as PNG (and zlib) define it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Packs one row of samples at `bitDepth` bits each, as PNG stores them
    /// (sub-byte samples from the high bits down, 16-bit big-endian).
    static func packRow(_ samples: [Int], bitDepth: Int) -> [UInt8] {
        switch bitDepth {
        case 16:
            return samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 8:
            return samples.map { UInt8($0) }
        default:
            let perByte = 8 / bitDepth
            var out = [UInt8](repeating: 0, count: (samples.count + perByte - 1) / perByte)
            for (i, sample) in samples.enumerated() {
                let shift = 8 - bitDepth * (i % perByte + 1)
                out[i / perByte] |= UInt8(sample << shift)
            }
            return out
        }
    }
}
