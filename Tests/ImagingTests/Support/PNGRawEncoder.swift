import CTweetCache
@testable import Imaging

/// Writes PNG colour types and bit depths that ``PNGEncoder`` never produces
/// (palette, 1/2/4/16-bit, gray + alpha, tRNS, Adam7), from rows already packed
/// the way PNG stores them. It exists so tests can build every kind of PNG the
/// decoder must read, so it lives with the tests; production code has no use for it.
public struct PNGRawEncoder {
    public enum ColorType: Int32 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6
    }

    public var colorType: ColorType
    public var bitDepth: Int
    public var interlaced: Bool
    /// RGB triples, for `.palette`.
    public var palette: [UInt8]
    /// Alpha of the first palette entries (tRNS), for `.palette`.
    public var paletteAlpha: [UInt8]
    /// The one sample value meaning "transparent" (tRNS) for `.gray` ([g]) or `.rgb` ([r, g, b]).
    public var transparentColor: [UInt16]?
    /// Colour chunks: an iCCP profile, or gAMA (the stored encoding exponent) and cHRM (white, red, green, blue x, y).
    public var iccProfile: [UInt8]?
    public var gamma: Double?
    public var chromaticities: [Double]?

    public init(
        colorType: ColorType, bitDepth: Int, interlaced: Bool = false, palette: [UInt8] = [],
        paletteAlpha: [UInt8] = [], transparentColor: [UInt16]? = nil,
        iccProfile: [UInt8]? = nil, gamma: Double? = nil, chromaticities: [Double]? = nil
    ) {
        self.iccProfile = iccProfile
        self.gamma = gamma
        self.chromaticities = chromaticities
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.interlaced = interlaced
        self.palette = palette
        self.paletteAlpha = paletteAlpha
        self.transparentColor = transparentColor
    }

    public func encode(rows: [UInt8], width: Int, height: Int, stride: Int) throws(ImagingError) -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), stride > 0,
              stride.multipliedReportingOverflow(by: height).partialValue <= rows.count
        else {
            throw .invalidArgument("rows do not hold \(height) rows of stride \(stride)")
        }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let color = transparentColor ?? []
        let status = rows.withUnsafeBufferPointer { rowBytes in
            palette.withUnsafeBufferPointer { paletteBytes in
                paletteAlpha.withUnsafeBufferPointer { alpha in
                    var format = tc_png_raw_format(
                        color_type: colorType.rawValue, bit_depth: Int32(bitDepth), interlaced: interlaced ? 1 : 0,
                        palette: paletteBytes.baseAddress, palette_count: Int32(palette.count / 3),
                        trns_alpha: alpha.baseAddress, trns_count: Int32(paletteAlpha.count),
                        has_trns_color: transparentColor == nil ? 0 : 1,
                        trns_gray: color.first ?? 0,
                        trns_red: color.first ?? 0,
                        trns_green: color.count > 1 ? color[1] : 0,
                        trns_blue: color.count > 2 ? color[2] : 0,
                        icc: nil, icc_len: 0, srgb: 0, gamma: 0, has_chrm: 0, chrm: (0, 0, 0, 0, 0, 0, 0, 0), exif_orientation: 0)
                    let chrm = chromaticities ?? []
                    format.has_chrm = chrm.count == 8 ? 1 : 0
                    if chrm.count == 8 {
                        format.chrm = (chrm[0], chrm[1], chrm[2], chrm[3], chrm[4], chrm[5], chrm[6], chrm[7])
                    }
                    format.gamma = gamma ?? 0
                    let icc = iccProfile ?? []
                    return icc.withUnsafeBufferPointer { profile in
                        format.icc = profile.count > 0 ? profile.baseAddress : nil
                        format.icc_len = profile.count
                        return tc_png_encode_raw(
                            rowBytes.baseAddress, UInt32(width), UInt32(height), stride, &format, 6,
                            &output, &length, &message)
                    }
                }
            }
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}
