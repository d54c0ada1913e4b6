/// Why an image could not be read or written.
///
/// Every case describes a problem with one item, so a pipeline can record the
/// reason, skip that image and carry on with the rest. Decoding untrusted bytes
/// never traps: damaged, truncated or oversized input always ends up here.
public enum ImagingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes do not start like a JPEG, PNG, GIF, WebP, AVIF or HEIF file.
    case unrecognizedFormat
    /// A recognised format this build cannot decode (a libheif without the AV1 or HEVC decoder).
    case unsupportedFormat(ImageFormat)
    /// A valid file using a variant the system codec cannot decode, such as 12-bit or lossless JPEG.
    case unsupportedVariant(ImageFormat, String)
    /// The header declares more pixels than allowed; refused before any pixel memory is allocated.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The data ends before the image does, typically an interrupted download.
    case truncated(ImageFormat)
    /// The data is damaged or breaks the format's rules.
    case corrupt(ImageFormat, String)
    /// A caller mistake: an out-of-range option or an inconsistent pixel buffer.
    case invalidArgument(String)
    /// The encoder could not produce a file from the given pixels.
    case encodeFailed(String)
    /// An allocation failed while decoding or encoding.
    case outOfMemory

    public var description: String {
        switch self {
        case .unrecognizedFormat:
            "not an image: the data does not start like a JPEG, PNG, GIF, WebP, AVIF or HEIF file"
        case .unsupportedFormat(let format):
            "\(format) images are recognised but cannot be decoded"
        case .unsupportedVariant(let format, let detail):
            "cannot decode this kind of \(format): \(detail)"
        case .tooManyPixels(let width, let height, let limit):
            "image is \(width)x\(height) pixels, more than the limit of \(limit) pixels"
        case .truncated(let format):
            "\(format) data ends before the image does (incomplete file?)"
        case .corrupt(let format, let detail):
            "corrupt \(format) data: \(detail)"
        case .invalidArgument(let detail):
            "invalid argument: \(detail)"
        case .encodeFailed(let detail):
            "could not encode image: \(detail)"
        case .outOfMemory:
            "out of memory while processing the image"
        }
    }
}
