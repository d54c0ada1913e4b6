// Value noise, one row at a time.

/// Smoothstep weights for every offset inside a cell of 2^shift pixels.
let cellWeights: [[Float]] = (0...14).map { shift in
    let cell = 1 << shift
    return (0..<cell).map { i in
        let t = Float(i) / Float(cell)
        return t * t * (3 - 2 * t)
    }
}

/// Lattice value in 0..<1 at integer point (i, j).
@inline(__always)
func latticeValue(_ i: Int, _ j: Int, _ salt: UInt32) -> Float {
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
struct NoiseSpec: Sendable {
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
let sharedFineTile = NoiseSpec.fineTile(salt: 0x5EED_F1E7)

/// Evaluates a ``NoiseSpec`` for whole rows. Vertical interpolation is done
/// once per lattice column, so each pixel costs one lerp per octave.
struct RowNoise {
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
