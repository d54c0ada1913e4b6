/// A filled Julia set of z^2 + c, with c just outside the Mandelbrot set so
/// the set is a spiralling dust: detail at every scale and no solid interior
/// (which would cost the full iteration budget per pixel).
struct FractalPainter: ScenePainter {
    static let maxIterations = 128

    let width: Int
    let height: Int
    let c: (re: Float, im: Float)
    let step: Float
    let rotation: (cos: Float, sin: Float)
    /// 1024 entries of a cyclic cosine palette.
    let palette: [Color]
    let paletteScale: Float
    let background: Color

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x4652_4143)
        self.width = width
        self.height = height
        c = Self.parameter(&seeds)
        step = seeds.float(2.6...3.3) / Float(min(width, height))
        let angle = seeds.float(0...(2 * Float.pi))
        rotation = (cosine(angle), cosine(angle - Float.pi / 2))
        let phase = seeds.color(0...1, 0...1, 0...1)
        // Whole frequencies keep the palette cyclic: index 1023 flows into index 0 without a seam.
        let frequency = Color(1, Float(1 + seeds.int(0..<2)), 1)
        palette = (0..<1024).map { i in
            let t = Float(i) / 1024
            let a = (frequency * t + phase) * (2 * Float.pi)
            return Color(0.5, 0.5, 0.5) + Color(0.5, 0.45, 0.5) * Color(cosine(a.x), cosine(a.y), cosine(a.z))
        }
        paletteScale = seeds.float(0.18...0.3)
        background = Color(0.02, 0.02, 0.05)
    }

    /// A point just outside the main cardioid whose critical orbit escapes in
    /// 12-30 iterations: rich structure, bounded cost.
    static func parameter(_ seeds: inout SplitMix64) -> (re: Float, im: Float) {
        let theta = Double(seeds.float(0.35...(2 * Float.pi - 0.35)))
        var push = Double(seeds.float(0.01...0.03))
        var best = (re: Float(-0.835), im: Float(-0.2321))
        for _ in 0..<24 {
            // Cardioid point e^{it}/2 - e^{2it}/4, pushed outwards from the cardioid's cusp.
            let (ct, st) = (Double(cosine(Float(theta))), Double(cosine(Float(theta) - Float.pi / 2)))
            let (c2t, s2t) = (ct * ct - st * st, 2 * st * ct)
            var re = ct / 2 - c2t / 4
            var im = st / 2 - s2t / 4
            let (dx, dy) = (re - 0.25, im)
            let length = max((dx * dx + dy * dy).squareRoot(), 1e-9)
            re += dx / length * push
            im += dy / length * push
            let escape = criticalEscape(re, im)
            best = (Float(re), Float(im))
            if escape < 12 { push *= 0.7 } else if escape > 30 { push *= 1.4 } else { break }
        }
        return best
    }

    /// Iterations for 0 to escape under z^2 + c (capped at 200).
    static func criticalEscape(_ re: Double, _ im: Double) -> Int {
        var (zr, zi) = (0.0, 0.0)
        for i in 0..<200 {
            let (zr2, zi2) = (zr * zr, zi * zi)
            if zr2 + zi2 > 16 { return i }
            (zr, zi) = (zr2 - zi2 + re, 2 * zr * zi + im)
        }
        return 200
    }

    /// Julia sets are symmetric under z -> -z and the view is centred on 0, so
    /// only the top half is iterated; each row is also written, reversed, as
    /// its mirror row in the bottom half. Bands below the middle have nothing to do.
    func paint(rows: Range<Int>, into canvas: Canvas) {
        let lanes = SIMD4<Float>(0.5, 1.5, 2.5, 3.5)
        let halfW = Float(width) / 2
        let halfH = Float(height) / 2
        let topHalf = rows.clamped(to: 0..<((height + 1) / 2))
        palette.withUnsafeBufferPointer { colors in
            for y in topHalf {
                let mirrorY = height - 1 - y
                let py = (Float(y) + 0.5 - halfH) * step
                var x = 0
                while x < width {
                    // Two independent groups of four pixels keep the FPU busy while each waits on its own chain.
                    let pxA = (lanes + Float(x) - halfW) * step
                    let pxB = pxA + 4 * step
                    let startA = (pxA * rotation.cos - py * rotation.sin, pxA * rotation.sin + py * rotation.cos)
                    let startB = (pxB * rotation.cos - py * rotation.sin, pxB * rotation.sin + py * rotation.cos)
                    let (countA, r2A, countB, r2B) = iterate(startA, startB)
                    for lane in 0..<min(8, width - x) {
                        let (count, r2) = lane < 4 ? (countA[lane], r2A[lane]) : (countB[lane - 4], r2B[lane - 4])
                        let c = color(count: count, r2: r2, colors: colors)
                        canvas.set(x + lane, y, c)
                        canvas.set(width - 1 - x - lane, mirrorY, c)
                    }
                    x += 8
                }
            }
        }
    }

    /// Escape counts and the last |z|^2 inside the bailout for two groups of
    /// four starting points. Escaped lanes keep iterating (towards infinity,
    /// then NaN, both of which fail the bailout test), which is cheaper than
    /// freezing them; their last bounded |z|^2 is kept for smooth colouring.
    @inline(__always)
    private func iterate(_ a: (SIMD4<Float>, SIMD4<Float>), _ b: (SIMD4<Float>, SIMD4<Float>))
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let bailout = SIMD4<Float>(repeating: 256)
        let one = SIMD4<Float>(repeating: 1)
        let zero = SIMD4<Float>(repeating: 0)
        let cr = SIMD4<Float>(repeating: c.re)
        let ci = SIMD4<Float>(repeating: c.im)
        var (ar, ai) = a
        var (br, bi) = b
        var (countA, countB) = (zero, zero)
        var (lastA, lastB) = (zero, zero)
        for _ in 0..<Self.maxIterations {
            let ar2 = ar * ar, ai2 = ai * ai, br2 = br * br, bi2 = bi * bi
            let r2A = ar2 + ai2
            let r2B = br2 + bi2
            let liveA = r2A .<= bailout
            let liveB = r2B .<= bailout
            if !any(liveA .| liveB) { break }
            countA += zero.replacing(with: one, where: liveA)
            countB += zero.replacing(with: one, where: liveB)
            lastA.replace(with: r2A, where: liveA)
            lastB.replace(with: r2B, where: liveB)
            ai = 2 * ar * ai + ci
            ar = ar2 - ai2 + cr
            bi = 2 * br * bi + ci
            br = br2 - bi2 + cr
        }
        return (countA, lastA, countB, lastB)
    }

    /// Smooth (continuous) escape count through the palette; points that never
    /// escape are dark. With |z| past 4 at escape, |z_escaped|^2 is |z_last|^4
    /// to within a few percent, so log2|z_escaped| is about log2(last |z|^2).
    @inline(__always)
    private func color(count: Float, r2: Float, colors: UnsafeBufferPointer<Color>) -> Color {
        if Int(count) >= Self.maxIterations || !(r2 > 1) { return background }
        let mu = max(count + 1 - fastLog2(fastLog2(r2)), 0)
        let index = Int(mu.squareRoot() * paletteScale * 1024) & 1023
        let glow = clamp01(mu * (1 / 24))
        return colors[index] * (0.25 + 0.75 * glow)
    }
}

/// log2 from the float's exponent and a quadratic fit of the significand (error < 0.01).
@inline(__always)
func fastLog2(_ v: Float) -> Float {
    guard v > 0, v.isFinite else { return 0 }
    let m = v.significand - 1
    return Float(v.exponent) + m * (1.3465 - 0.3465 * m)
}

/// cos for the palette (built once per image, so accuracy beats speed here).
func cosine(_ x: Float) -> Float {
    // Range-reduce to [-pi, pi] and use a Taylor series: plenty for colours.
    let twoPi = 2 * Float.pi
    var r = x - twoPi * (x / twoPi).rounded()
    r = r * r
    return 1 - r / 2 + r * r / 24 - r * r * r / 720 + r * r * r * r / 40_320 - r * r * r * r * r / 3_628_800
}
