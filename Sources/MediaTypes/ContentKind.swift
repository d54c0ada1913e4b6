/// A body's real type, told from its magic bytes. Content-Type headers lie (CDNs serve
/// HTML error pages as `image/jpeg`), so nothing downstream trusts them.
///
/// The one magic-byte table of the project: the fetcher checks downloads with it,
/// Imaging's `ImageFormat.sniff` is read from it, the server types `/blob` by it.
public enum ContentKind: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, gif, webp, avif, heic, mp4, html, unknown

    public var isImage: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .avif, .heic: true
        case .mp4, .html, .unknown: false
        }
    }

    /// The MIME type recorded in the index and manifest for this kind.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .mp4: "video/mp4"
        case .html: "text/html"
        case .unknown: "application/octet-stream"
        }
    }

    /// The kind a recorded MIME type names (the index's and the manifest's strings are
    /// ``mimeType``s): read back as a kind, not compared as text; nil for any other type.
    public init?(mimeType: String?) {
        guard let mimeType, let kind = Self.allCases.first(where: { $0.mimeType == mimeType }) else { return nil }
        self = kind
    }

    /// Bytes needed to decide; fewer are accepted at the end of a short body.
    /// 32 covers an ISO BMFF `ftyp` box's major brand and its first four compatible
    /// brands, where AVIF and HEIF files that lead with the generic `mif1` say what they are.
    public static let sniffLength = 32

    /// Classifies the first bytes of a body.
    public static func sniff(_ p: some Collection<UInt8>) -> ContentKind {
        let b = Array(p.prefix(sniffLength))
        func starts(_ s: [UInt8], at o: Int = 0) -> Bool {
            b.count >= o + s.count && Array(b[o..<(o + s.count)]) == s
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4) { return isoBrand(b) }
        let text = b.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF })
        if text.first == UInt8(ascii: "<") { return .html }
        return .unknown
    }

    /// AVIF, HEIF or video, from an `ftyp` box's brands (ISO/IEC 14496-12): the major
    /// brand at byte 8, compatible brands from byte 16 to the box's end or the prefix's.
    static func isoBrand(_ b: [UInt8]) -> ContentKind {
        func brand(at offset: Int) -> String? {
            guard b.count >= offset + 4 else { return nil }
            return String(decoding: b[offset..<(offset + 4)], as: UTF8.self)
        }
        let boxSize = b.count >= 4 ? Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3]) : 0
        var brands: [String] = []
        if let major = brand(at: 8) { brands.append(major) }
        var offset = 16
        while offset + 4 <= min(b.count, max(boxSize, 16)), let compatible = brand(at: offset) {
            brands.append(compatible)
            offset += 4
        }
        // Image sequences ('avis', 'msf1') are images here too: the first frame is shown.
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        let heif: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
        if let major = brands.first, heif.contains(major) { return .heic }
        return .mp4
    }
}
