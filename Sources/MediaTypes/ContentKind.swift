/// A body's real type, told from its magic bytes. Content-Type headers lie (CDNs serve
/// HTML error pages as `image/jpeg`), so nothing downstream trusts them.
///
/// The one magic-byte table of the project: the fetcher checks downloads with it,
/// Imaging's `ImageFormat.sniff` is read from it, the server types `/blob` by it.
public enum ContentKind: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, gif, webp, mp4, html, unknown

    public var isImage: Bool { self == .jpeg || self == .png || self == .gif || self == .webp }

    /// The MIME type recorded in the index and manifest for this kind.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .mp4: "video/mp4"
        case .html: "text/html"
        case .unknown: "application/octet-stream"
        }
    }

    /// Bytes needed to decide; fewer are accepted at the end of a short body.
    public static let sniffLength = 16

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
        if starts(Array("ftyp".utf8), at: 4) { return .mp4 }
        let text = b.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF })
        if text.first == UInt8(ascii: "<") { return .html }
        return .unknown
    }
}
