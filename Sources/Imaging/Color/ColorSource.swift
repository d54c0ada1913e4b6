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
    /// Chromaticities and a tone curve: PNG gAMA + cHRM or a HEIF/AVIF nclx box
    /// (its primaries and transfer characteristic; libheif applies its matrix).
    /// `whitePoint` then red, green and blue, each CIE x, y.
    case chromaticities(xy: [Double], curve: ToneCurve)

    public enum ToneCurve: Sendable, Hashable {
        /// sRGB's piecewise curve (also used for BT.709-coded HEIF, as browsers do).
        case sRGB
        /// A pure power law with this decoding exponent (2.2 for a PNG gAMA of 0.45455,
        /// 1 for linear light).
        case gamma(Double)
        /// SMPTE ST 2084 (HDR): tone-mapped to SDR at decode (``HDRToneMapper``).
        case pq
        /// Hybrid log-gamma (HDR): tone-mapped to SDR at decode (``HDRToneMapper``).
        case hlg

        /// The curve an nclx box's transfer characteristic (ITU-T H.273) stands for.
        /// BT.709, BT.601 and BT.2020 (1, 6, 14, 15) are drawn with the sRGB curve, as
        /// Chromium draws them; unspecified and unknown ones as sRGB too.
        init(h273 transfer: Int) {
            switch transfer {
            case 4: self = .gamma(2.2)       // BT.470 System M
            case 5: self = .gamma(2.8)       // BT.470 System B, G
            case 8: self = .gamma(1)         // linear
            case 16: self = .pq
            case 17: self = .gamma(2.6)      // SMPTE ST 428-1
            case 18: self = .hlg
            default: self = .sRGB
            }
        }

        /// Whether decoding tone-maps it rather than converting it through a profile.
        var isHDR: Bool { self == .pq || self == .hlg }
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
    /// How an HDR (PQ or HLG) image is made SDR, when it is one.
    public var toneMapping: String? = nil

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
            case .gamma(1): "linear light"
            case .gamma(let g): "gamma \(String(format: "%.2f", g))"
            case .pq: "PQ"
            case .hlg: "HLG"
            }
            if let ignoredBecause { return "chromaticities and \(tone) ignored (\(ignoredBecause)); read as sRGB" }
            if let toneMapping { return "chromaticities and \(toneMapping), converted to sRGB" }
            return "chromaticities and \(tone), converted to sRGB"
        }
    }
}
