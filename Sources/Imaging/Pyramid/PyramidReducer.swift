internal import Dispatch

/// Halves an image with a 2x2 box filter: each output pixel is the rounded
/// mean of the (up to) four input pixels it covers.
///
/// Pyramids are built by applying this repeatedly, each level from the one
/// above, rather than resampling the original per level: total work is 4/3 of
/// one pass over the image and the levels nest exactly, like libvips dzsave.
/// For odd sizes the last column and row average only the pixels that exist
/// (done by repeating the edge pixel, which gives the same rounded mean), so
/// level sizes are always `ceil(size / 2)`.
///
/// For JPEG tiles the output is RGB: RGBA input is composited over white on the
/// way (the same arithmetic as ``PixelBuffer/flattened(red:green:blue:)``). For PNG
/// tiles RGBA stays RGBA (`keepAlpha`): colours are averaged weighted by their
/// alpha (premultiplied), so a transparent pixel's colour, which nobody sees, does
/// not bleed into its visible neighbours as a dark or coloured fringe.
enum PyramidReducer {
    /// Size of the reduced image: `ceil(width / 2) x ceil(height / 2)`.
    static func reducedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + 1) / 2, (height + 1) / 2)
    }

    /// Reduces `width x height` pixels (`channels` 3 or 4, rows `sourceStride`
    /// bytes apart) into tightly packed pixels at `destination` (RGBA when
    /// `keepAlpha` and the source has alpha, else RGB; see ``outputChannels``),
    /// splitting the output rows across `workers` threads. The buffers must not overlap.
    static func reduce(
        source: UnsafePointer<UInt8>, sourceStride: Int, channels: Int, width: Int, height: Int,
        into destination: UnsafeMutablePointer<UInt8>, linearLight: Bool, keepAlpha: Bool = false, workers: Int
    ) {
        let outHeight = (height + 1) / 2
        let bands = max(1, min(workers, outHeight / 16))
        let job = Job(source: source, sourceStride: sourceStride, width: width, height: height,
                      destination: destination, linear: linearLight ? LinearLightTable.shared : nil)
        let alpha = keepAlpha && channels == 4
        if bands == 1 {
            alpha ? job.runRGBA(rows: 0..<outHeight) : job.run(channels: channels, rows: 0..<outHeight)
            return
        }
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let rows = outHeight * band / bands..<outHeight * (band + 1) / bands
            alpha ? job.runRGBA(rows: rows) : job.run(channels: channels, rows: rows)
        }
    }

    /// Channels of the reduced image: alpha is kept only when asked for and present.
    static func outputChannels(source channels: Int, keepAlpha: Bool) -> Int {
        keepAlpha && channels == 4 ? 4 : 3
    }

    /// One reduction, shared read-only by the threads that each write their
    /// own rows of `destination`, hence `@unchecked Sendable`.
    private struct Job: @unchecked Sendable {
        let source: UnsafePointer<UInt8>
        let sourceStride: Int
        let width: Int
        let height: Int
        let destination: UnsafeMutablePointer<UInt8>
        let linear: LinearLightTable?

        func run(channels: Int, rows: Range<Int>) {
            switch (channels, linear) {
            case (4, nil): run(rows: rows, sampler: FlattenedSampler())
            case (4, let table?): run(rows: rows, sampler: LinearSampler(base: FlattenedSampler(), table: table))
            case (_, nil): run(rows: rows, sampler: RGBSampler())
            case (_, let table?): run(rows: rows, sampler: LinearSampler(base: RGBSampler(), table: table))
            }
        }

        /// RGBA to RGBA: alpha is the rounded mean; each colour is the alpha-weighted
        /// mean of the (up to) four pixels, in linear light when asked; a block with
        /// no opacity at all is transparent black.
        func runRGBA(rows: Range<Int>) {
            let outWidth = (width + 1) / 2
            for y in rows {
                let top = source + 2 * y * sourceStride
                let bottom = 2 * y + 1 < height ? top + sourceStride : top
                var out = destination + y * outWidth * 4
                for x in 0..<outWidth {
                    let left = 2 * x * 4
                    let right = 2 * x + 1 < width ? left + 4 : left
                    var alphaSum: UInt32 = 0
                    var sums: (UInt64, UInt64, UInt64) = (0, 0, 0)
                    @inline(__always) func add(_ p: UnsafePointer<UInt8>) {
                        let a = UInt32(p[3])
                        alphaSum &+= a
                        sums.0 &+= UInt64(load(p[0]) &* a)
                        sums.1 &+= UInt64(load(p[1]) &* a)
                        sums.2 &+= UInt64(load(p[2]) &* a)
                    }
                    add(top + left)
                    add(top + right)
                    add(bottom + left)
                    add(bottom + right)
                    if alphaSum == 0 {
                        out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0
                    } else {
                        let half = UInt64(alphaSum / 2)
                        out[0] = store(UInt32((sums.0 &+ half) / UInt64(alphaSum)))
                        out[1] = store(UInt32((sums.1 &+ half) / UInt64(alphaSum)))
                        out[2] = store(UInt32((sums.2 &+ half) / UInt64(alphaSum)))
                        out[3] = UInt8(truncatingIfNeeded: (alphaSum &+ 2) >> 2)
                    }
                    out += 4
                }
            }
        }

        /// A colour sample in the averaging domain (linear light, or as stored).
        @inline(__always) private func load(_ sample: UInt8) -> UInt32 {
            linear.map { UInt32($0.toLinear[Int(sample)]) } ?? UInt32(sample)
        }

        /// An averaged value back to an 8-bit sample.
        @inline(__always) private func store(_ value: UInt32) -> UInt8 {
            linear.map { $0.toSRGB[Int(value)] } ?? UInt8(truncatingIfNeeded: value)
        }

        /// The loop, specialised per sampler so the per-sample work inlines.
        private func run<S: BoxSampler>(rows: Range<Int>, sampler: S) {
            let step = S.channels
            let pairs = width / 2
            let outRow = ((width + 1) / 2) * 3
            for y in rows {
                let top = source + 2 * y * sourceStride
                let bottom = 2 * y + 1 < height ? top + sourceStride : top
                var out = destination + y * outRow
                for x in 0..<pairs {
                    let a = top + 2 * x * step
                    let b = bottom + 2 * x * step
                    for c in 0..<3 {
                        let sum = sampler.load(a, c) &+ sampler.load(a + step, c)
                            &+ sampler.load(b, c) &+ sampler.load(b + step, c)
                        out[c] = sampler.store(sum)
                    }
                    out += 3
                }
                if width & 1 == 1 {
                    let a = top + 2 * pairs * step
                    let b = bottom + 2 * pairs * step
                    for c in 0..<3 {
                        out[c] = sampler.store(2 &* (sampler.load(a, c) &+ sampler.load(b, c)))
                    }
                }
            }
        }
    }
}

/// How a sample enters the 4-pixel sum and how the sum becomes a sample again.
private protocol BoxSampler {
    /// Bytes per input pixel.
    static var channels: Int { get }
    /// Channel `c` (0-2) of the pixel at `pixel`, in the summing domain.
    func load(_ pixel: UnsafePointer<UInt8>, _ c: Int) -> UInt32
    /// The 8-bit sample for the sum of four loaded values.
    func store(_ sum: UInt32) -> UInt8
}

/// RGB averaged as stored (sRGB-encoded), as libvips does by default.
private struct RGBSampler: BoxSampler {
    static var channels: Int { 3 }
    @inline(__always) func load(_ pixel: UnsafePointer<UInt8>, _ c: Int) -> UInt32 { UInt32(pixel[c]) }
    @inline(__always) func store(_ sum: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: (sum &+ 2) >> 2) }
}

/// RGBA composited over white before averaging.
private struct FlattenedSampler: BoxSampler {
    static var channels: Int { 4 }
    @inline(__always) func load(_ pixel: UnsafePointer<UInt8>, _ c: Int) -> UInt32 {
        let alpha = UInt32(pixel[3])
        return UInt32(PixelBuffer.div255(UInt32(pixel[c]) &* alpha &+ 255 &* (255 &- alpha)))
    }
    @inline(__always) func store(_ sum: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: (sum &+ 2) >> 2) }
}

/// Another sampler's values averaged in 16-bit linear light.
private struct LinearSampler<Base: BoxSampler>: BoxSampler {
    let base: Base
    let table: LinearLightTable
    static var channels: Int { Base.channels }
    @inline(__always) func load(_ pixel: UnsafePointer<UInt8>, _ c: Int) -> UInt32 {
        UInt32(table.toLinear[Int(base.load(pixel, c))])
    }
    @inline(__always) func store(_ sum: UInt32) -> UInt8 { table.toSRGB[Int((sum &+ 2) >> 2)] }
}

extension PixelBuffer {
    /// This image at half size (`ceil(width / 2) x ceil(height / 2)`), each pixel the
    /// mean of the 2x2 it covers, alpha kept (colours weighted by it).
    func halved(linearLight: Bool) -> PixelBuffer {
        let size = PyramidReducer.reducedSize(width: width, height: height)
        let out = PyramidReducer.outputChannels(source: channels, keepAlpha: true)
        var result = [UInt8](repeating: 0, count: size.width * size.height * out)
        bytes.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { destination in
                guard let s = source.baseAddress, let d = destination.baseAddress else { return }
                PyramidReducer.reduce(
                    source: s, sourceStride: bytesPerRow, channels: channels, width: width, height: height,
                    into: d, linearLight: linearLight, keepAlpha: true, workers: 1)
            }
        }
        return PixelBuffer(unchecked: size.width, height: size.height, channels: out, bytes: result)
    }
}
