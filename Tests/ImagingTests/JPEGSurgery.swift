/// Byte-level edits of JPEG files, for building damaged and unusual inputs.
enum JPEGSurgery {
    /// Offset of the first segment with `marker` (the byte after 0xFF) before
    /// the scan data, pointing at its 0xFF.
    static func segment(_ data: [UInt8], marker: UInt8) -> Int? {
        var i = 2
        while i + 4 <= data.count, data[i] == 0xFF {
            if data[i + 1] == marker { return i }
            if data[i + 1] == 0xDA { return nil }
            i += 2 + Int(data[i + 2]) << 8 + Int(data[i + 3])
        }
        return nil
    }

    /// Offset of the first byte of entropy-coded data (just after the SOS header).
    static func scanData(_ data: [UInt8]) -> Int? {
        guard let sos = segment(data, marker: 0xDA) else { return nil }
        return sos + 2 + Int(data[sos + 2]) << 8 + Int(data[sos + 3])
    }

    /// The file with an APP1 segment carrying `payload` inserted right after SOI.
    static func insertingAPP1(_ payload: [UInt8], into data: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Array(data[0..<2]) + segment + Array(data[2...])
    }

    /// The file with the frame header's (SOF0/SOF2) width and height replaced.
    static func settingSize(width: Int, height: Int, of data: [UInt8]) -> [UInt8] {
        var out = data
        guard let sof = segment(data, marker: 0xC0) ?? segment(data, marker: 0xC2) else { return out }
        out[sof + 5] = UInt8(height >> 8)
        out[sof + 6] = UInt8(height & 0xFF)
        out[sof + 7] = UInt8(width >> 8)
        out[sof + 8] = UInt8(width & 0xFF)
        return out
    }

    /// A little-endian ("II") TIFF structure holding one IFD0 entry, prefixed with "Exif\0\0".
    static func littleEndianExif(tag: UInt16 = 0x0112, type: UInt16 = 3, count: UInt32 = 1, value: UInt32,
                                 ifdOffset: UInt32 = 8, entries: UInt16 = 1) -> [UInt8] {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
        return Array("Exif".utf8) + [0, 0] + Array("II".utf8) + le16(42) + le32(ifdOffset)
            + le16(entries) + le16(tag) + le16(type) + le32(count) + le32(value) + le32(0)
    }
}
