/// Small, valid, distinct PNG images, written without any image library.
///
/// Test servers need images the pipeline can really decode (it derives thumbnails),
/// and TestSupport must not depend on the code under test; PNG with stored (not
/// compressed) zlib blocks is a few lines of byte layout. Each `tag` (e.g. a URL path)
/// gives a different gradient and its hash in the first row, so no two tags' images are
/// the same bytes.
public enum TinyPNG {
    public static func make(width: Int, height: Int, tag: String) -> [UInt8] {
        let w = max(1, min(width, 4096)), h = max(1, min(height, 4096))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in tag.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hashBytes = (0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * UInt64($0))) }
        var raw: [UInt8] = []
        raw.reserveCapacity((w * 3 + 1) * h)
        for y in 0..<h {
            raw.append(0)  // filter: none
            for x in 0..<w {
                if y == 0, x < 8 {
                    raw += [hashBytes[x], hashBytes[7 - x], UInt8(x)]
                } else {
                    raw += [UInt8(truncatingIfNeeded: x * 255 / w + Int(hashBytes[0])),
                            UInt8(truncatingIfNeeded: y * 255 / h + Int(hashBytes[1])),
                            UInt8(truncatingIfNeeded: (x + y) * 2 + Int(hashBytes[2]))]
                }
            }
        }
        var ihdr: [UInt8] = []
        ihdr += bigEndian(UInt32(w)) + bigEndian(UInt32(h))
        ihdr += [8, 2, 0, 0, 0]  // 8-bit RGB, deflate, no filter method, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", ihdr) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65_535, data.count - offset)
            let final: UInt8 = offset + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
