/// Why a IIIF image request cannot be answered, with the HTTP status the
/// Image API 3.0 asks for, so a server maps errors without knowing the rules.
///
/// Parsing reports syntax errors before unsupported features: a request that
/// is garbage somewhere is a 400 even if another part names a feature this
/// server lacks.
public enum IIIFRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Malformed syntax, impossible numbers, an empty or out-of-bounds region,
    /// or upscaling without `^` (spec 4.1, 4.2, 7.3).
    case badRequest(String)
    /// A valid request for something this server does not do: arbitrary
    /// rotation, formats other than jpg/png, upscaling without size limits.
    case notImplemented(String)
    /// Larger than the announced `maxWidth`/`maxHeight`/`maxArea`. Section 4.2
    /// asks for 400 here (section 7.3's table mentions 404; the specific rule wins).
    case tooLarge(String)

    /// The status code to answer with.
    public var httpStatus: Int {
        switch self {
        case .badRequest, .tooLarge: 400
        case .notImplemented: 501
        }
    }

    /// A human-readable reason, fit for the error response body.
    public var message: String {
        switch self {
        case .badRequest(let detail), .notImplemented(let detail), .tooLarge(let detail): detail
        }
    }

    public var description: String {
        switch self {
        case .badRequest(let detail): "bad IIIF request: \(detail)"
        case .notImplemented(let detail): "not implemented: \(detail)"
        case .tooLarge(let detail): "too large: \(detail)"
        }
    }
}
