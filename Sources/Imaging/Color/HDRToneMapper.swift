import Foundation

/// Makes PQ and HLG (HDR) images SDR sRGB, as browsers show them on SDR screens.
///
/// The method is ITU-R BT.2408 Annex 5 (the BT.2390 EETF): luminance is mapped in
/// the PQ domain, identity below a knee and a Hermite spline from the knee to the
/// target peak, so mid-tones keep their level and only highlights are compressed.
/// It is applied to max(R, G, B), the three channels scaled by the same ratio, so
/// hues keep (BT.2390 allows this form). The target peak is HDR reference white,
/// 203 cd/m² (BT.2408), which becomes SDR white. The source peak is the file's
/// content light level (`clli` MaxCLL), else its mastering display's peak (`mdcv`),
/// else 1,000 cd/m²; HLG is first shown as on a 1,000 cd/m² display (BT.2100's
/// OOTF, system gamma 1.2). The linear result is converted from the file's
/// primaries to sRGB's and clipped, then sRGB-encoded. Tables make it cheap: one
/// per code value for the curves, so a 12-bit image costs a few lookups per pixel.
struct HDRToneMapper: Sendable {
    enum Transfer: Sendable, Hashable {
        /// SMPTE ST 2084 (H.273 transfer 16).
        case pq
        /// ARIB STD-B67 / BT.2100 hybrid log-gamma (H.273 transfer 18).
        case hlg
    }

    /// HDR reference white, which becomes SDR white (BT.2408).
    static let referenceWhite = 203.0
    /// HLG's nominal display peak, and the peak assumed when a PQ file says none.
    static let defaultPeak = 1000.0

    var transfer: Transfer
    /// Source white and primaries, CIE x, y (white, red, green, blue).
    var xy: [Double]
    /// The brightest the content gets, in cd/m².
    var sourcePeak: Double
    /// Where ``sourcePeak`` came from, for `info`.
    var peakSource: String

    /// The peak from what the file says: content light level, else mastering display, else the default.
    init(transfer: Transfer, xy: [Double], contentLightLevel: Double?, masteringPeak: Double?) {
        self.transfer = transfer
        self.xy = xy
        switch (transfer, contentLightLevel, masteringPeak) {
        case (.hlg, _, _):
            (sourcePeak, peakSource) = (Self.defaultPeak, "HLG's nominal display")
        case (.pq, let level?, _) where level > 0:
            (sourcePeak, peakSource) = (level, "content light level")
        case (.pq, _, let peak?) where peak > 0:
            (sourcePeak, peakSource) = (peak, "mastering display")
        default:
            (sourcePeak, peakSource) = (Self.defaultPeak, "assumed, the file says none")
        }
    }

    /// What `info` says was done.
    var summary: String {
        let curve = transfer == .pq ? "PQ" : "HLG"
        return "\(curve) (HDR) tone-mapped to SDR by BT.2408 Annex 5 from a \(Int(sourcePeak.rounded())) cd/m² peak (\(peakSource))"
    }

    // MARK: The curves

    static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32

    /// PQ signal (0-1) to display light in cd/m².
    static func pqToNits(_ e: Double) -> Double {
        let p = pow(max(e, 0), 1 / m2)
        return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// Display light in cd/m² to PQ signal (0-1).
    static func nitsToPQ(_ nits: Double) -> Double {
        let y = pow(max(nits, 0) / 10_000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    static let hlgA = 0.17883277, hlgB = 1 - 4 * 0.17883277, hlgC = 0.5 - 0.17883277 * log(4 * 0.17883277)

    /// HLG signal (0-1) to relative scene light (0-1), BT.2100's inverse OETF.
    static func hlgToScene(_ e: Double) -> Double {
        e <= 0.5 ? e * e / 3 : (exp((e - hlgC) / hlgA) + hlgB) / 12
    }

    /// The EETF on display light: identity up to the knee, a Hermite spline above
    /// it that reaches the reference white exactly at the source peak.
    func eetf(_ nits: Double) -> Double {
        let peakPQ = Self.nitsToPQ(sourcePeak)
        let maxLum = Self.nitsToPQ(Self.referenceWhite) / peakPQ
        guard maxLum < 1 else { return min(nits, sourcePeak) }
        let e1 = min(Self.nitsToPQ(nits) / peakPQ, 1)
        let knee = max(0, 1.5 * maxLum - 0.5)
        guard e1 >= knee else { return nits }
        let t = (e1 - knee) / (1 - knee)
        let t2 = t * t, t3 = t2 * t
        let e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * maxLum
        return Self.pqToNits(e2 * peakPQ)
    }

    /// Linear RGB in the source primaries to linear sRGB (both D65 in practice; the
    /// white points are each mapped to XYZ through their own primaries).
    var toSRGB: [Double] {
        let source = Self.rgbToXYZ(xy)
        let srgb = Self.rgbToXYZ(ColorSource.sRGBChromaticities)
        return Self.multiply(Self.inverse(srgb), source)
    }

    // MARK: Mapping pixels

    /// `samples`: width x height pixels of `channels` (3, or 4 with alpha) values of
    /// `bitDepth` bits each. The result is 8-bit sRGB with the same channels.
    func map(_ samples: UnsafeBufferPointer<UInt16>, width: Int, height: Int, channels: Int, bitDepth: Int) -> PixelBuffer {
        let maxCode = (1 << bitDepth) - 1
        let scale = 1 / Double(maxCode)
        // Per code value: display light (PQ) or scene light (HLG).
        let light: [Double] = (0...maxCode).map { code in
            transfer == .pq ? Self.pqToNits(Double(code) * scale) : Self.hlgToScene(Double(code) * scale)
        }
        // PQ: the EETF's ratio for the largest channel's code, a table too.
        let ratio: [Double] = transfer == .pq
            ? (0...maxCode).map { code in light[code] > 0 ? eetf(light[code]) / light[code] : 1 } : []
        let m = toSRGB.map { $0 / Self.referenceWhite }
        let encode = Self.srgbEncodeTable
        let last = Double(encode.count - 1)
        var out = [UInt8](repeating: 0, count: width * height * channels)
        out.withUnsafeMutableBufferPointer { dst in
            for i in 0..<(width * height) {
                let s = i * channels
                let r = min(Int(samples[s]), maxCode), g = min(Int(samples[s + 1]), maxCode), b = min(Int(samples[s + 2]), maxCode)
                var lr: Double, lg: Double, lb: Double
                switch transfer {
                case .pq:
                    let k = ratio[max(r, g, b)]
                    (lr, lg, lb) = (light[r] * k, light[g] * k, light[b] * k)
                case .hlg:
                    let (er, eg, eb) = (light[r], light[g], light[b])
                    let ys = 0.2627 * er + 0.6780 * eg + 0.0593 * eb
                    let gain = Self.defaultPeak * pow(max(ys, 1e-9), 0.2)
                    (lr, lg, lb) = (er * gain, eg * gain, eb * gain)
                    let top = max(lr, lg, lb)
                    if top > 0 {
                        let k = eetf(top) / top
                        (lr, lg, lb) = (lr * k, lg * k, lb * k)
                    }
                }
                let outR = m[0] * lr + m[1] * lg + m[2] * lb
                let outG = m[3] * lr + m[4] * lg + m[5] * lb
                let outB = m[6] * lr + m[7] * lg + m[8] * lb
                dst[s] = encode[Int(min(max(outR, 0), 1) * last + 0.5)]
                dst[s + 1] = encode[Int(min(max(outG, 0), 1) * last + 0.5)]
                dst[s + 2] = encode[Int(min(max(outB, 0), 1) * last + 0.5)]
                if channels == 4 {
                    dst[s + 3] = UInt8((min(Int(samples[s + 3]), maxCode) * 255 + maxCode / 2) / maxCode)
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, channels: channels, bytes: out)
    }

    /// Linear light (0-1, 16,384 steps) to 8-bit sRGB.
    static let srgbEncodeTable: [UInt8] = (0..<16_384).map { i in
        let v = Double(i) / 16_383
        let e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(min(255, max(0, (e * 255).rounded())))
    }

    // MARK: Matrices (row-major 3x3)

    /// RGB to XYZ for primaries and white given as CIE x, y (white, red, green, blue).
    static func rgbToXYZ(_ xy: [Double]) -> [Double] {
        func column(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }
        let white = column(xy[0], xy[1])
        let r = column(xy[2], xy[3]), g = column(xy[4], xy[5]), b = column(xy[6], xy[7])
        let p = [r[0], g[0], b[0], r[1], g[1], b[1], r[2], g[2], b[2]]
        let s = apply(inverse(p), white)
        return [p[0] * s[0], p[1] * s[1], p[2] * s[2], p[3] * s[0], p[4] * s[1], p[5] * s[2], p[6] * s[0], p[7] * s[1], p[8] * s[2]]
    }

    static func apply(_ m: [Double], _ v: [Double]) -> [Double] {
        [m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2], m[6] * v[0] + m[7] * v[1] + m[8] * v[2]]
    }

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { i in
            let row = i / 3, col = i % 3
            return a[row * 3] * b[col] + a[row * 3 + 1] * b[3 + col] + a[row * 3 + 2] * b[6 + col]
        }
    }

    static func inverse(_ m: [Double]) -> [Double] {
        let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        let d = det == 0 ? 0 : 1 / det
        return [
            (m[4] * m[8] - m[5] * m[7]) * d, (m[2] * m[7] - m[1] * m[8]) * d, (m[1] * m[5] - m[2] * m[4]) * d,
            (m[5] * m[6] - m[3] * m[8]) * d, (m[0] * m[8] - m[2] * m[6]) * d, (m[2] * m[3] - m[0] * m[5]) * d,
            (m[3] * m[7] - m[4] * m[6]) * d, (m[1] * m[6] - m[0] * m[7]) * d, (m[0] * m[4] - m[1] * m[3]) * d,
        ]
    }
}
