/// What a file says its colour values mean, read from its header.
///
/// Decoding converts every described source to sRGB once (``DecodeOptions/convertToSRGB``),
/// so thumbnails, pyramid tiles, IIIF renditions and the terminal preview all
/// show the colours the photographer saw. A source that cannot be used (a
/// profile that lies about its size or colour space) is decoded as sRGB, as
/// browsers do, and ``ColorReport`` says why.
public enum ColorSource: Sendable, Hashable {
    /// Nothing said, or said to be sRGB (a PNG sRGB chunk): the values are used as they are.
    case sRGB
    /// An embedded ICC profile: JPEG APP2, PNG iCCP, WebP ICCP or HEIF colr.
    case iccProfile([UInt8])
    /// Chromaticities and a tone curve: PNG gAMA + cHRM or a HEIF/AVIF nclx box.
    /// `whitePoint` then red, green and blue, each CIE x, y.
    case chromaticities(xy: [Double], curve: ToneCurve)

    public enum ToneCurve: Sendable, Hashable {
        /// sRGB's piecewise curve (also used for BT.709-coded HEIF, as browsers do).
        case sRGB
        /// A pure power law with this decoding exponent (2.2 for a PNG gAMA of 0.45455).
        case gamma(Double)
    }

    /// sRGB's (and BT.709's) D65 white and primaries.
    static let sRGBChromaticities: [Double] = [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
}

/// What decoding did with an image's colours, for `info` and tests.
public struct ColorReport: Sendable, Hashable {
    /// What the file said.
    public var source: ColorSource
    /// The profile's own name (its `desc` tag) when there is one.
    public var profileName: String?
    /// Whether the pixels are converted to sRGB at decode.
    public var converted: Bool
    /// Why a described source is not used, when it is not.
    public var ignoredBecause: String?

    /// One line for people: "Display P3 (ICC profile, converted to sRGB)".
    public var summary: String {
        switch source {
        case .sRGB: return "sRGB"
        case .iccProfile(let bytes):
            let name = profileName.map { $0.isEmpty ? "unnamed" : $0 } ?? "unnamed"
            if let ignoredBecause { return "ICC profile of \(bytes.count) bytes ignored (\(ignoredBecause)); read as sRGB" }
            return "\(name) (ICC profile, \(converted ? "converted to sRGB" : "kept"))"
        case .chromaticities(_, let curve):
            let tone = switch curve {
            case .sRGB: "sRGB curve"
            case .gamma(let g): "gamma \(String(format: "%.2f", g))"
            }
            if let ignoredBecause { return "chromaticities and \(tone) ignored (\(ignoredBecause)); read as sRGB" }
            return "chromaticities and \(tone), converted to sRGB"
        }
    }
}
