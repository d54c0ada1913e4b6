#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Lookup tables between 8-bit samples and the floating-point values the
/// resampler filters.
///
/// Averaging sRGB-encoded values darkens fine detail and high-contrast edges
/// (a 1-pixel black and white stripe pattern averages to 128 instead of the
/// 188 the eye sees), so by default filtering happens on linear light. Tables
/// rather than `pow` calls keep that conversion out of the cost of a resize:
/// 256 entries in, and 4096 steps out, which is fine enough that every 8-bit
/// level survives the round trip unchanged.
struct TransferTables: Sendable {
    /// Steps of the output table: values are quantised to `k / (outputSteps - 1)`.
    static let outputSteps = 4096

    /// Float value of each 8-bit sample.
    let decode: [Float]
    /// 8-bit sample for each quantised float value in 0...1.
    let encode: [UInt8]

    /// sRGB samples to linear light and back.
    static let linear = TransferTables(
        decode: (0..<256).map { Float(srgbToLinear(Double($0) / 255)) },
        encode: (0..<outputSteps).map { step in
            quantise(linearToSRGB(Double(step) / Double(outputSteps - 1)))
        })

    /// Samples filtered as stored (what libvips and most tools do by default).
    static let identity = TransferTables(
        decode: (0..<256).map { Float($0) / 255 },
        encode: (0..<outputSteps).map { step in quantise(Double(step) / Double(outputSteps - 1)) })

    static func forLinearLight(_ linear: Bool) -> TransferTables { linear ? .linear : .identity }

    /// IEC 61966-2-1 decoding of a value in 0...1.
    static func srgbToLinear(_ c: Double) -> Double {
        c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// IEC 61966-2-1 encoding of a value in 0...1.
    static func linearToSRGB(_ l: Double) -> Double {
        l <= 0.003_130_8 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    private static func quantise(_ value: Double) -> UInt8 {
        UInt8(min(max((value * 255).rounded(), 0), 255))
    }
}
