#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Integer lookup tables between 8-bit sRGB samples and 16-bit linear light,
/// for the pyramid's optional gamma-correct 2x reduction (the transfer functions
/// are ``TransferTables``'; only the table shape differs).
///
/// Averaging sRGB values darkens fine high-contrast detail at every zoomed-out
/// level; converting to linear light first avoids that. 16 bits keep every
/// 8-bit level distinct (sRGB 1 is linear 20/65535), so a flat area survives
/// any number of reductions unchanged, and integer tables keep the inner loop
/// as cheap as the plain sRGB average.
final class LinearLightTable: @unchecked Sendable {
    // @unchecked: both tables are written once in `init` and only read afterwards.

    /// The one shared instance, built on first use (about 1 ms).
    static let shared = LinearLightTable()

    /// Linear light (0...65535) of each 8-bit sRGB sample.
    let toLinear: UnsafeMutablePointer<UInt16>
    /// 8-bit sRGB sample of each linear value 0...65535.
    let toSRGB: UnsafeMutablePointer<UInt8>

    private init() {
        toLinear = .allocate(capacity: 256)
        for value in 0..<256 {
            let linear = TransferTables.srgbToLinear(Double(value) / 255)
            toLinear[value] = UInt16((linear * 65535).rounded())
        }
        toSRGB = .allocate(capacity: 65536)
        for step in 0..<65536 {
            let c = TransferTables.linearToSRGB(Double(step) / 65535)
            toSRGB[step] = UInt8(min(max((c * 255).rounded(), 0), 255))
        }
    }

    deinit {
        toLinear.deallocate()
        toSRGB.deallocate()
    }
}
