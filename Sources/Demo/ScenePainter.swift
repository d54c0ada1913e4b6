/// Paints a band of rows; bands are disjoint, so painters run concurrently.
protocol ScenePainter: Sendable {
    func paint(rows: Range<Int>, into canvas: Canvas)
}

typealias Color = SIMD3<Float>

/// The output pixels. Unchecked Sendable: each band writes only its own rows.
struct Canvas: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let width: Int

    @inline(__always)
    func set(_ x: Int, _ y: Int, _ c: Color) {
        let p = base + (y * width + x) * 3
        p[0] = byte(c.x)
        p[1] = byte(c.y)
        p[2] = byte(c.z)
    }
}

/// 0...1 to a byte, rounded and clamped; NaN becomes 0. Adding 1.5 * 2^23
/// leaves the rounded integer in the low mantissa bits, which avoids the
/// range checks of a Float-to-integer conversion in the hottest line of every style.
@inline(__always)
func byte(_ v: Float) -> UInt8 {
    let clamped = v > 0 ? (v < 1 ? v : 1) : 0
    return UInt8(truncatingIfNeeded: (clamped * 255 + 12_582_912).bitPattern)
}

@inline(__always)
func mix(_ a: Color, _ b: Color, _ t: Float) -> Color { a + (b - a) * t }

@inline(__always)
func clamp01(_ v: Float) -> Float { v > 0 ? (v < 1 ? v : 1) : 0 }
