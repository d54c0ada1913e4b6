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
/// The output is always RGB: RGBA input is composited over white on the way
/// (the same arithmetic as ``PixelBuffer/flattened(red:green:blue:)``), since
/// pyramid tiles are JPEG.
enum PyramidReducer {
    /// Size of the reduced image: `ceil(width / 2) x ceil(height / 2)`.
    static func reducedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + 1) / 2, (height + 1) / 2)
    }

    /// Reduces `width x height` pixels (`channels` 3 or 4, rows `sourceStride`
    /// bytes apart) into tightly packed RGB at `destination`, splitting the
    /// output rows across `workers` threads. The buffers must not overlap.
    static func reduce(
        source: UnsafePointer<UInt8>, sourceStride: Int, channels: Int, width: Int, height: Int,
        into destination: UnsafeMutablePointer<UInt8>, linearLight: Bool, workers: Int
    ) {
        let outHeight = (height + 1) / 2
        let bands = max(1, min(workers, outHeight / 16))
        let job = Job(source: source, sourceStride: sourceStride, width: width, height: height,
                      destination: destination, linear: linearLight ? LinearLightTable.shared : nil)
        if bands == 1 {
            job.run(channels: channels, rows: 0..<outHeight)
            return
        }
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            job.run(channels: channels, rows: outHeight * band / bands..<outHeight * (band + 1) / bands)
        }
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
