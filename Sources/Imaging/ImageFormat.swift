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

    /// The format whose signature `bytes` starts with, or `nil` for anything else.
    ///
    /// Looks at no more than the first 12 bytes.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        switch ContentKind.sniff(bytes) {
        case .jpeg: .jpeg
        case .png: .png
        case .gif: .gif
        case .webp: .webp
        case .mp4, .html, .unknown: nil
        }
    }

    /// The media type to serve or record the file with.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        }
    }

    /// The conventional file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        }
    }

    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }
}
