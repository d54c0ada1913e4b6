import Dispatch
import Imaging

/// Deterministic synthetic pictures standing in for tweet media in the demo.
///
/// The demo ships no binary images: it renders them from seeds, and its
/// deep-zoom viewer then cuts them into tiles. Flat fills would make deep
/// tiles look empty, so every style carries structure down to single pixels:
/// value-noise octaves to a 2-pixel cell, or the boundary of the Mandelbrot
/// set. The same seed always gives the same bytes.
///
/// Speed matters because the demo renders ~150 megapixels at start-up: rows
/// are painted in parallel bands, noise is evaluated a row at a time (one
/// interpolation per octave per pixel), the fractal iterates four pixels per
/// SIMD step, and nothing allocates per pixel.
public enum SceneRenderer {
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// Sky with sun and clouds over three hazy mountain ranges: a "photo".
        case landscape
        /// A region of the Mandelbrot set's boundary with smooth colouring.
        case fractal
        /// A stylised head and shoulders on a soft background: an avatar.
        case portrait
        /// A bold retro sunset over a perspective grid: a video still.
        case poster
    }

    /// Largest side rendered; larger requests are clamped, and sizes below 1 become 1.
    public static let maxSide = 16_384

    /// An RGB image of `style`, `width` x `height` pixels (clamped to 1...``maxSide``).
    public static func render(width: Int, height: Int, seed: UInt64, style: Style) -> PixelBuffer {
        let w = min(max(width, 1), maxSide)
        let h = min(max(height, 1), maxSide)
        let painter: any ScenePainter = switch style {
        case .landscape: LandscapePainter(width: w, height: h, seed: seed)
        case .fractal: FractalPainter(width: w, height: h, seed: seed)
        case .portrait: PortraitPainter(width: w, height: h, seed: seed)
        case .poster: PosterPainter(width: w, height: h, seed: seed)
        }
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let canvas = Canvas(base: base, width: w)
            let bands = min(h, 64)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                painter.paint(rows: (h * band / bands)..<(h * (band + 1) / bands), into: canvas)
            }
        }
        do {
            return try PixelBuffer(width: w, height: h, channels: 3, bytes: bytes)
        } catch {
            preconditionFailure("unreachable: the buffer was sized from the clamped dimensions")
        }
    }
}

// MARK: - Plumbing

/// Paints a band of rows; bands are disjoint, so painters run concurrently.
private protocol ScenePainter: Sendable {
    func paint(rows: Range<Int>, into canvas: Canvas)
}

private typealias Color = SIMD3<Float>

/// The output pixels. Unchecked Sendable: each band writes only its own rows.
private struct Canvas: @unchecked Sendable {
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
private func byte(_ v: Float) -> UInt8 {
    let clamped = v > 0 ? (v < 1 ? v : 1) : 0
    return UInt8(truncatingIfNeeded: (clamped * 255 + 12_582_912).bitPattern)
}

@inline(__always)
private func mix(_ a: Color, _ b: Color, _ t: Float) -> Color { a + (b - a) * t }

@inline(__always)
private func clamp01(_ v: Float) -> Float { v > 0 ? (v < 1 ? v : 1) : 0 }

extension SplitMix64 {
    /// Uniform in `range`.
    mutating func float(_ range: ClosedRange<Float>) -> Float {
        range.lowerBound + Float(next() >> 40) / Float(1 << 24) * (range.upperBound - range.lowerBound)
    }

    mutating func int(_ range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    fileprivate mutating func color(_ r: ClosedRange<Float>, _ g: ClosedRange<Float>, _ b: ClosedRange<Float>) -> Color {
        Color(float(r), float(g), float(b))
    }
}

// MARK: - Value noise, one row at a time

/// Smoothstep weights for every offset inside a cell of 2^shift pixels.
private let cellWeights: [[Float]] = (0...14).map { shift in
    let cell = 1 << shift
    return (0..<cell).map { i in
        let t = Float(i) / Float(cell)
        return t * t * (3 - 2 * t)
    }
}

/// Lattice value in 0..<1 at integer point (i, j).
@inline(__always)
private func latticeValue(_ i: Int, _ j: Int, _ salt: UInt32) -> Float {
    var h = UInt32(truncatingIfNeeded: i) &* 0x8DA6_B343 ^ UInt32(truncatingIfNeeded: j) &* 0xD816_3841 ^ salt
    h ^= h >> 15
    h = h &* 0x2C1B_3C6D
    h ^= h >> 12
    h = h &* 0x297A_2D39
    h ^= h >> 15
    return Float(h >> 8) * (1 / 16_777_216)
}

/// Fractal value noise in 0...1: octaves from a cell of 2^coarsest pixels
/// down to 8 pixels, plus a 256x256 tile of finer detail (2-4 pixel cells
/// and per-pixel grain) repeated across the image. The tile makes the finest
/// scales cost one load per pixel instead of several short interpolations,
/// and gives them enough amplitude to show in the deepest zoom tiles.
private struct NoiseSpec: Sendable {
    struct Octave: Sendable {
        let shift: Int
        let amplitude: Float
        let offsetX: Int
        let offsetY: Int
        let salt: UInt32
    }

    static let tileSide = 256

    let octaves: [Octave]
    /// Share of the 0...1 range given to the fine tile.
    let fineAmplitude: Float
    let fine: [Float]
    let fineOffsetX: Int
    let fineOffsetY: Int

    init(seeds: inout SplitMix64, coarsest: Int, persistence: Float = 0.6, fineAmplitude: Float = 0.15) {
        let finest = 3
        let top = min(max(coarsest, finest), 14)
        var amplitude: Float = 1
        var raw: [Octave] = []
        for shift in stride(from: top, through: finest, by: -1) {
            raw.append(Octave(shift: shift, amplitude: amplitude, offsetX: seeds.int(0..<65_536),
                              offsetY: seeds.int(0..<65_536), salt: UInt32(truncatingIfNeeded: seeds.next())))
            amplitude *= persistence
        }
        self.fineAmplitude = fineAmplitude
        let scale = (1 - fineAmplitude) / raw.reduce(0) { $0 + $1.amplitude }
        octaves = raw.map { Octave(shift: $0.shift, amplitude: $0.amplitude * scale, offsetX: $0.offsetX,
                                   offsetY: $0.offsetY, salt: $0.salt) }
        fine = sharedFineTile
        fineOffsetX = seeds.int(0..<Self.tileSide)
        fineOffsetY = seeds.int(0..<Self.tileSide)
    }

    /// Octaves so the coarsest cell is about `fraction` of `size`.
    static func coarsestShift(size: Int, fraction: Double) -> Int {
        var shift = 3
        while shift < 14, Double(1 << (shift + 1)) <= Double(size) * fraction { shift += 1 }
        return shift
    }

    /// Seamless fine detail centred on 0: value noise with 4- and 2-pixel
    /// cells on lattices that wrap at the tile edge, plus per-pixel grain.
    fileprivate static func fineTile(salt: UInt32) -> [Float] {
        let side = tileSide
        func layer(_ x: Int, _ y: Int, shift: Int, salt: UInt32) -> Float {
            let cells = side >> shift
            let (i, j) = (x >> shift, y >> shift)
            let fx = cellWeights[shift][x & ((1 << shift) - 1)]
            let fy = cellWeights[shift][y & ((1 << shift) - 1)]
            let (i1, j1) = ((i + 1) % cells, (j + 1) % cells)
            let top = latticeValue(i, j, salt) + (latticeValue(i1, j, salt) - latticeValue(i, j, salt)) * fx
            let bottom = latticeValue(i, j1, salt) + (latticeValue(i1, j1, salt) - latticeValue(i, j1, salt)) * fx
            return top + (bottom - top) * fy
        }
        var tile = [Float](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let v = 0.45 * layer(x, y, shift: 2, salt: salt) + 0.35 * layer(x, y, shift: 1, salt: salt &+ 1)
                    + 0.2 * latticeValue(x, y, salt &+ 2)
                tile[y * side + x] = v - 0.5
            }
        }
        return tile
    }
}

/// One fine tile for every image (each samples it at its own random offset):
/// building it costs more than painting a small image, and its 256-pixel
/// period is invisible under the coarser octaves.
private let sharedFineTile = NoiseSpec.fineTile(salt: 0x5EED_F1E7)

/// Evaluates a ``NoiseSpec`` for whole rows. Vertical interpolation is done
/// once per lattice column, so each pixel costs one lerp per octave.
private struct RowNoise {
    let spec: NoiseSpec
    let width: Int
    var lattice: [Float]
    var values: [Float]

    init(_ spec: NoiseSpec, width: Int) {
        self.spec = spec
        self.width = width
        lattice = [Float](repeating: 0, count: width / 8 + 4)
        values = [Float](repeating: 0, count: width)
    }

    /// Fills ``values`` with the noise of row `y`.
    mutating func fill(row y: Int) {
        let width = width
        let spec = spec
        lattice.withUnsafeMutableBufferPointer { lat in
            values.withUnsafeMutableBufferPointer { out in
                out.update(repeating: 0.5 * spec.fineAmplitude)
                for o in spec.octaves {
                    Self.add(o, row: y, width: width, lattice: lat, into: out)
                }
                Self.addFine(spec, row: y, width: width, into: out)
            }
        }
    }

    @inline(__always)
    private static func add(_ o: NoiseSpec.Octave, row y: Int, width: Int,
                            lattice lat: UnsafeMutableBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        let shift = o.shift
        let cell = 1 << shift
        let mask = cell - 1
        let yy = y + o.offsetY
        let j = yy >> shift
        let fy = cellWeights[shift][yy & mask]
        let first = o.offsetX >> shift
        let last = (width - 1 + o.offsetX) >> shift + 1
        for i in first...last {
            let a = latticeValue(i, j, o.salt)
            let b = latticeValue(i, j + 1, o.salt)
            lat[i - first] = o.amplitude * (a + (b - a) * fy)
        }
        guard let base = out.baseAddress else { return }
        cellWeights[shift].withUnsafeBufferPointer { weights in
            guard let w = weights.baseAddress else { return }
            var x = 0
            while x < width {
                let xx = x + o.offsetX
                let i = (xx >> shift) - first
                let a = lat[i]
                let d = lat[i + 1] - a
                let start = xx & mask
                let n = min(cell - start, width - x)
                // Pointer loops without overflow checks, so the compiler vectorises them.
                let dst = base + x
                let src = w + start
                for k in 0..<n { dst[k] += a + d * src[k] }
                x += n
            }
        }
    }

    @inline(__always)
    private static func addFine(_ spec: NoiseSpec, row y: Int, width: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let side = NoiseSpec.tileSide
        let amplitude = spec.fineAmplitude
        guard let base = out.baseAddress else { return }
        spec.fine.withUnsafeBufferPointer { tile in
            guard let t = tile.baseAddress else { return }
            let row = t + ((y + spec.fineOffsetY) & (side - 1)) * side
            var x = 0
            while x < width {
                let start = (x + spec.fineOffsetX) & (side - 1)
                let n = min(side - start, width - x)
                let dst = base + x
                let src = row + start
                for k in 0..<n { dst[k] += amplitude * src[k] }
                x += n
            }
        }
    }
}

// MARK: - Landscape

private struct LandscapePainter: ScenePainter {
    let width: Int
    let height: Int
    let texture: NoiseSpec
    /// Per range (far to near): the y of its ridge line at every column.
    let ridges: [[Float]]
    let rangeColors: [Color]
    let haze: [Float]
    let skyTop: Color
    let skyHorizon: Color
    let sunColor: Color
    let cloudColor: Color
    let sunX: Float
    let sunY: Float
    let sunRadius: Float
    let horizonY: Float

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x4C41_4E44)
        self.width = width
        self.height = height
        let h = Float(height)
        texture = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: max(width, height), fraction: 0.12))
        let dusk = seeds.float(0...1)
        skyTop = mix(Color(0.14, 0.34, 0.75), Color(0.10, 0.10, 0.32), dusk)
        skyHorizon = mix(Color(0.70, 0.82, 0.95), Color(0.98, 0.62, 0.40), dusk)
        sunColor = mix(Color(1.0, 0.96, 0.80), Color(1.0, 0.80, 0.50), dusk)
        cloudColor = mix(Color(0.97, 0.97, 1.0), Color(0.95, 0.65, 0.58), dusk)
        sunX = seeds.float(0.15...0.85) * Float(width)
        sunY = seeds.float(0.10...0.30) * h
        sunRadius = max(2, 0.04 * Float(min(width, height)))
        horizonY = h * 0.58
        let rock = seeds.color(0.36...0.48, 0.36...0.46, 0.40...0.52)
        rangeColors = [rock, rock * Color(0.72, 0.78, 0.70), seeds.color(0.16...0.26, 0.30...0.40, 0.12...0.18)]
        haze = [0.45, 0.22, 0.04]

        // Ridge lines: 1-D noise with little fine tile, so they are jagged but not spiky.
        let ridgeSpec = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: width, fraction: 0.3),
                                  persistence: 0.55, fineAmplitude: 0.02)
        var line = RowNoise(ridgeSpec, width: width)
        var ridges: [[Float]] = []
        for range in 0..<3 {
            line.fill(row: range * 9_973)
            let baseY = h * (0.58 + 0.11 * Float(range))
            let amplitude = h * [0.42, 0.26, 0.12][range]
            ridges.append(line.values.map { v in
                let m = clamp01((v - 0.22) * 1.8)
                return baseY - amplitude * (range == 0 ? m * m * (3 - 2 * m) : m)
            })
        }
        self.ridges = ridges
    }

    func paint(rows: Range<Int>, into canvas: Canvas) {
        var noise = RowNoise(texture, width: width)
        let invHorizon = 1 / horizonY
        let invSun2 = 1 / (sunRadius * sunRadius)
        let invHeight = 1 / Float(height)
        ridges[0].withUnsafeBufferPointer { far in
            ridges[1].withUnsafeBufferPointer { mid in
                ridges[2].withUnsafeBufferPointer { near in
                    for y in rows {
                        noise.fill(row: y)
                        let fy = Float(y)
                        let v = clamp01(fy * invHorizon)
                        let sky = mix(skyTop, skyHorizon, v * v)
                        let cloudiness = 1 - 0.8 * v
                        noise.values.withUnsafeBufferPointer { t in
                            for x in 0..<width {
                                let n = t[x]
                                let c: Color
                                if fy >= near[x] {
                                    c = ground(range: 2, depth: (fy - near[x]) * invHeight, n: n)
                                } else if fy >= mid[x] {
                                    c = ground(range: 1, depth: (fy - mid[x]) * invHeight, n: n)
                                } else if fy >= far[x] {
                                    c = ground(range: 0, depth: (fy - far[x]) * invHeight, n: n,
                                               altitude: 1 - fy * invHeight)
                                } else {
                                    c = skyPixel(x: Float(x), y: fy, base: sky, cloudiness: cloudiness, n: n,
                                                 invSun2: invSun2)
                                }
                                canvas.set(x, y, c)
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func skyPixel(x: Float, y: Float, base: Color, cloudiness: Float, n: Float, invSun2: Float) -> Color {
        let dx = x - sunX
        let dy = y - sunY
        let d2 = (dx * dx + dy * dy) * invSun2
        if d2 < 1 { return sunColor * 1.1 }
        let c = base + sunColor * (0.6 / (1 + d2 * 0.15))
        let cloud = clamp01((n - 0.52) * 5.5) * cloudiness
        return mix(c, cloudColor * (0.75 + 0.5 * n), cloud)
    }

    /// Rock or grass lit from above, darker further below the ridge, snow-capped
    /// high up (`altitude` 0 at the bottom edge, 1 at the top), faded by haze with distance.
    @inline(__always)
    private func ground(range: Int, depth: Float, n: Float, altitude: Float = 0) -> Color {
        var c = rangeColors[range] * (0.45 + 1.1 * n - min(depth, 0.3))
        if altitude + 0.25 * (n - 0.5) > 0.66 {
            c = mix(c, Color(0.96, 0.97, 1.0) * (0.8 + 0.4 * n), 0.85)   // snow on the high peaks
        }
        return mix(c, skyHorizon, haze[range])
    }
}

// MARK: - Fractal

/// A filled Julia set of z^2 + c, with c just outside the Mandelbrot set so
/// the set is a spiralling dust: detail at every scale and no solid interior
/// (which would cost the full iteration budget per pixel).
private struct FractalPainter: ScenePainter {
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
private func fastLog2(_ v: Float) -> Float {
    guard v > 0, v.isFinite else { return 0 }
    let m = v.significand - 1
    return Float(v.exponent) + m * (1.3465 - 0.3465 * m)
}

/// cos for the palette (built once per image, so accuracy beats speed here).
private func cosine(_ x: Float) -> Float {
    // Range-reduce to [-pi, pi] and use a Taylor series: plenty for colours.
    let twoPi = 2 * Float.pi
    var r = x - twoPi * (x / twoPi).rounded()
    r = r * r
    return 1 - r / 2 + r * r / 24 - r * r * r / 720 + r * r * r * r / 40_320 - r * r * r * r * r / 3_628_800
}

// MARK: - Portrait

private struct PortraitPainter: ScenePainter {
    let width: Int
    let height: Int
    let texture: NoiseSpec
    let background: (Color, Color)
    let skin: Color
    let hair: Color
    let shirt: Color
    let iris: Color
    let headWidth: Float
    let hairLength: Float

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x504F_5254)
        self.width = width
        self.height = height
        texture = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: max(width, height), fraction: 0.2))
        background = (seeds.color(0.2...0.9, 0.2...0.9, 0.2...0.9), seeds.color(0.1...0.6, 0.1...0.6, 0.1...0.6))
        let tone = seeds.float(0...1)
        skin = mix(Color(0.96, 0.80, 0.68), Color(0.42, 0.28, 0.20), tone)
        hair = seeds.color(0.05...0.6, 0.03...0.4, 0.02...0.3)
        shirt = seeds.color(0.1...0.9, 0.1...0.9, 0.1...0.9)
        iris = seeds.color(0.1...0.5, 0.2...0.6, 0.2...0.7)
        headWidth = seeds.float(0.36...0.44)
        hairLength = seeds.float(-0.05...0.45)
    }

    func paint(rows: Range<Int>, into canvas: Canvas) {
        var noise = RowNoise(texture, width: width)
        let sx = 2 / Float(width)
        let sy = 2 / Float(height)
        for y in rows {
            noise.fill(row: y)
            let v = Float(y) * sy - 1
            noise.values.withUnsafeBufferPointer { t in
                for x in 0..<width {
                    canvas.set(x, y, pixel(u: Float(x) * sx - 1, v: v, n: t[x]))
                }
            }
        }
    }

    /// Squared elliptical distance: below 1 inside the ellipse.
    @inline(__always)
    private func inside(_ u: Float, _ v: Float, cx: Float, cy: Float, rx: Float, ry: Float) -> Float {
        let du = (u - cx) * (1 / rx)
        let dv = (v - cy) * (1 / ry)
        return du * du + dv * dv
    }

    @inline(__always)
    private func pixel(u: Float, v: Float, n: Float) -> Color {
        let grain = 0.85 + 0.3 * n
        let head = inside(u, v, cx: 0, cy: -0.08, rx: headWidth, ry: 0.52)
        let hairShape = inside(u, v, cx: 0, cy: -0.2, rx: headWidth + 0.07, ry: 0.55)
        let hairline = -0.38 + 0.06 * (u * u) * 8
        // Eyes and mouth sit on the face, above everything else.
        if head < 1 {
            let eyeX: Float = u < 0 ? -0.16 : 0.16
            if inside(u, v, cx: eyeX, cy: -0.06, rx: 0.075, ry: 0.042) < 1 {
                let pupil = inside(u, v, cx: eyeX, cy: -0.06, rx: 0.032, ry: 0.032)
                if pupil < 0.3 { return Color(0.03, 0.03, 0.04) }
                if pupil < 1 { return iris * grain }
                return Color(0.95, 0.95, 0.93) * (0.92 + 0.1 * n)
            }
            let mouth = inside(u, v, cx: 0, cy: 0.24, rx: 0.16, ry: 0.05)
            if mouth < 1, v > 0.235 { return Color(0.65, 0.25, 0.28) * grain }
            if v < hairline, hairShape < 1 { return hair * (0.6 + 0.8 * n) }
            let light = 1.05 - 0.45 * clamp01(((u + 0.35) * (u + 0.35) + (v + 0.4) * (v + 0.4)) * 0.8)
            return skin * light * (0.93 + 0.14 * n)
        }
        if hairShape < 1, v < hairLength { return hair * (0.55 + 0.9 * n) }
        let body = inside(u, v, cx: 0, cy: 1.25, rx: 0.95, ry: 0.62)
        if body < 1 {
            if abs(u) * 1.8 < 0.72 - v { return skin * 0.8 * grain }   // the collar's V
            return shirt * (0.7 + 0.4 * n - 0.2 * body)
        }
        if abs(u) < 0.15, v > 0.2 { return skin * 0.78 * grain }
        let g = clamp01((v + 1) * 0.5)
        return mix(background.0, background.1, g) * (0.8 + 0.4 * n)
    }
}

// MARK: - Poster

private struct PosterPainter: ScenePainter {
    let width: Int
    let height: Int
    let texture: NoiseSpec
    let skyTop: Color
    let skyBottom: Color
    let sunTop: Color
    let sunBottom: Color
    let grid: Color
    let horizon: Float
    let sunRadius: Float
    let sunX: Float
    let speed: Float

    init(width: Int, height: Int, seed: UInt64) {
        var seeds = SplitMix64(seed: seed ^ 0x504F_5354)
        self.width = width
        self.height = height
        texture = NoiseSpec(seeds: &seeds, coarsest: NoiseSpec.coarsestShift(size: max(width, height), fraction: 0.15))
        skyTop = seeds.color(0.02...0.15, 0.0...0.1, 0.15...0.4)
        skyBottom = seeds.color(0.6...0.95, 0.15...0.4, 0.4...0.7)
        sunTop = Color(1.0, 0.9, 0.35)
        sunBottom = seeds.color(0.9...1.0, 0.2...0.4, 0.4...0.7)
        grid = seeds.color(0.3...1.0, 0.3...1.0, 0.8...1.0)
        horizon = seeds.float(0.55...0.68) * Float(height)
        sunRadius = seeds.float(0.22...0.32) * Float(min(width, height))
        sunX = seeds.float(0.35...0.65) * Float(width)
        speed = seeds.float(0...1)
    }

    func paint(rows: Range<Int>, into canvas: Canvas) {
        var noise = RowNoise(texture, width: width)
        let invH = 1 / Float(height)
        for y in rows {
            noise.fill(row: y)
            let fy = Float(y)
            noise.values.withUnsafeBufferPointer { t in
                if fy < horizon {
                    let sky = mix(skyTop, skyBottom, clamp01(fy / horizon))
                    let dy = fy - (horizon - sunRadius * 0.35)
                    let stripe = sunStripe(dy: dy)
                    for x in 0..<width {
                        let dx = Float(x) - sunX
                        var c = sky
                        if dx * dx + dy * dy < sunRadius * sunRadius, stripe {
                            c = mix(sunTop, sunBottom, clamp01((dy + sunRadius) / (2 * sunRadius)))
                        }
                        let star = t[x] > 0.78 ? (t[x] - 0.78) * 4 * clamp01(1 - fy / horizon) : 0
                        canvas.set(x, y, c * (0.92 + 0.16 * t[x]) + Color(star, star, star))
                    }
                } else {
                    let depth = max(fy - horizon, 0.5)
                    let z = Float(height) * 0.35 / depth + speed * 4
                    let zLine = abs(z - z.rounded()) < 0.035 * (1 + z * 0.15)
                    let fade = clamp01(depth * invH * 4)
                    for x in 0..<width {
                        let worldX = (Float(x) - sunX) / depth * 0.6
                        let xLine = abs(worldX - worldX.rounded()) < 0.03 * (1 + 1 / (depth * invH * 8 + 0.1))
                        let floor = skyTop * (0.6 + 0.5 * t[x])
                        let c = xLine || zLine ? mix(floor, grid, fade * 0.9 + 0.1) : floor
                        canvas.set(x, y, c)
                    }
                }
            }
        }
    }

    /// The retro sun's horizontal cut-outs, widening towards the horizon.
    @inline(__always)
    private func sunStripe(dy: Float) -> Bool {
        guard dy > -sunRadius * 0.1 else { return true }
        let band = sunRadius * 0.12
        let phase = (dy / band).truncatingRemainder(dividingBy: 1)
        return phase > clamp01(dy / sunRadius) * 0.6 + 0.1
    }
}
