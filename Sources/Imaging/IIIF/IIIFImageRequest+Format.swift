extension IIIFImageRequest {
    /// Output file format (spec 4.5). Every format the spec names parses, so
    /// the ones this server cannot write are told apart (501) from garbage (400).
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case jpg
        case png
        case tif
        case gif
        case jp2
        case pdf
        case webp

        /// Parses the extension after the last segment's dot.
        public static func parse(_ text: some StringProtocol) throws(IIIFRequestError) -> Format {
            guard let format = Format(rawValue: String(text)) else {
                throw .badRequest("format \"\(text)\" is not one of jpg, png, tif, gif, jp2, pdf, webp")
            }
            return format
        }

        /// Whether ``IIIFRenderer`` can write it.
        public var isSupported: Bool { self == .jpg || self == .png || self == .webp }

        /// The `Content-Type` of a response in this format.
        public var mediaType: String {
            switch self {
            case .jpg: "image/jpeg"
            case .png: "image/png"
            case .tif: "image/tiff"
            case .gif: "image/gif"
            case .jp2: "image/jp2"
            case .pdf: "application/pdf"
            case .webp: "image/webp"
            }
        }
    }
}
