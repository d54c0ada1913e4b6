internal import MediaTypes

/// The container formats TweetCache recognises by their first bytes.
///
/// Sniffing rather than trusting URLs or Content-Type: media servers and
/// mirrors mislabel files, and the decoder must pick its codec from what the
/// bytes really are.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg
    case png
    case gif
    case webp
    /// AV1 in HEIF (ISO/IEC 23000-22), decoded by libheif.
    case avif
    /// HEIF with HEVC, as iPhones write; decoded by libheif.
    case heic

    /// The format whose signature `bytes` starts with, or `nil` for anything else.
    ///
    /// Looks at no more than ContentKind.sniffLength bytes. The signatures are ContentKind's;
    /// the image kinds share their names with these cases.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        ImageFormat(rawValue: ContentKind.sniff(bytes).rawValue)
    }

    /// The media type to serve or record the file with (ContentKind's, the one table).
    public var mimeType: String {
        ContentKind(rawValue: rawValue)?.mimeType ?? "application/octet-stream"
    }

    /// The conventional file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .avif: "avif"
        case .heic: "heic"
        }
    }

    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .avif: "AVIF"
        case .heic: "HEIF"
        }
    }
}
