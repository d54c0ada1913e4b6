#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The Lanczos-3 taps of every output pixel along one axis, computed once per
/// resize so the pixel loops only multiply and add.
///
/// Output pixel `i` reads the `counts[i]` source pixels from `starts[i]`, with
/// the weights at `weights[i * stride ..< i * stride + counts[i]]`. Taps that
/// fall outside the image are folded onto the edge pixel (clamping), so every
/// window lies inside the source and sums to exactly 1: flat areas stay flat
/// right up to the border.
///
/// A class only to own its buffers: the pixel loops read them through raw
/// pointers, without bounds checks or copy-on-write bookkeeping. Immutable
/// once built, hence safe to share between the threads of one resize.
final class FilterTaps: @unchecked Sendable {
    /// The Lanczos window: lobes of the sinc kept on each side.
    static let lobes = 3.0

    let outputCount: Int
    /// Distance between the weight runs of consecutive output pixels.
    let stride: Int
    let starts: UnsafeMutableBufferPointer<Int>
    let counts: UnsafeMutableBufferPointer<Int>
    let weights: UnsafeMutableBufferPointer<Float>

    /// The largest `counts[i]`: how many source rows a vertical pass needs at once.
    let maxCount: Int

    /// Most weights one table may hold (64 MB). Each source pixel lies in about
    /// six windows, so only a reduction of millions of pixels along one axis
    /// (an image a few pixels thick) comes near it.
    static let maxEntries = 16 << 20
    /// Most taps in one window, which bounds the rows a vertical pass keeps.
    static let maxStride = 1 << 16

    /// Taps mapping `sourceCount` pixels onto `outputCount`.
    ///
    /// `sourceExtent` is the width in source pixels that the output spans,
    /// normally `sourceCount`; shrink-on-load passes the exact fractional size
    /// (`1201 / 8 = 150.125`) of a DCT-scaled decode whose last pixel stands
    /// for a partial block, so its geometry still matches the full image.
    /// Refuses reductions so extreme that the table would not fit the limits.
    init(sourceCount: Int, outputCount: Int, sourceExtent: Double) throws(ImagingError) {
        guard sourceCount > 0, outputCount > 0, sourceExtent > 0, sourceExtent.isFinite else {
            throw .invalidArgument("cannot resample \(sourceCount) pixels (extent \(sourceExtent)) to \(outputCount)")
        }
        let scale = sourceExtent / Double(outputCount)
        // Downscaling stretches the kernel over `scale` source pixels so it
        // also filters out what the smaller image cannot represent.
        let filterScale = max(scale, 1)
        let support = Self.lobes * filterScale
        guard 2 * support + 2 <= Double(Self.maxStride) else {
            throw .invalidArgument("cannot reduce \(sourceCount) pixels to \(outputCount): the reduction is too extreme")
        }
        let stride = Int((2 * support).rounded(.up)) + 2
        let (entries, overflow) = outputCount.multipliedReportingOverflow(by: stride)
        guard !overflow, entries <= Self.maxEntries else {
            throw .invalidArgument("cannot resample \(sourceCount) pixels to \(outputCount): the filter table would be too large")
        }

        let starts = UnsafeMutableBufferPointer<Int>.allocate(capacity: outputCount)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: outputCount)
        let weights = UnsafeMutableBufferPointer<Float>.allocate(capacity: entries)
        starts.initialize(repeating: 0)
        counts.initialize(repeating: 0)
        weights.initialize(repeating: 0)
        var window = [Double](repeating: 0, count: stride)
        var maxCount = 1
        let last = sourceCount - 1

        for i in 0..<outputCount {
            let center = (Double(i) + 0.5) * scale
            // Source pixel j covers [j, j + 1); its centre is j + 0.5.
            let first = Int((center - support - 0.5).rounded(.down))
            let end = Int((center + support - 0.5).rounded(.up))
            let lo = min(max(first, 0), last)
            let hi = min(max(end, 0), last)
            for k in 0..<(hi - lo + 1) { window[k] = 0 }
            var sum = 0.0
            for j in first...end {
                let w = Self.lanczos((Double(j) + 0.5 - center) / filterScale)
                guard w != 0 else { continue }
                window[min(max(j, 0), last) - lo] += w
                sum += w
            }
            var from = 0
            var to = hi - lo
            if abs(sum) < 1e-9 {
                // Cannot happen with a positive main lobe, but never divide by ~0:
                // fall back to the nearest pixel.
                let nearest = min(max(Int(center), 0), last)
                window[nearest - lo] = 1
                sum = 1
            }
            while from < to, window[from] == 0 { from += 1 }
            while to > from, window[to] == 0 { to -= 1 }
            let count = to - from + 1
            starts[i] = lo + from
            counts[i] = count
            maxCount = max(maxCount, count)
            for k in 0..<count {
                weights[i * stride + k] = Float(window[from + k] / sum)
            }
        }
        self.outputCount = outputCount
        self.stride = stride
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.maxCount = maxCount
    }

    deinit {
        starts.deallocate()
        counts.deallocate()
        weights.deallocate()
    }

    /// `sinc(x) * sinc(x / 3)` on (-3, 3), zero outside.
    static func lanczos(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < lobes else { return 0 }
        let px = Double.pi * x
        return lobes * sin(px) * sin(px / lobes) / (px * px)
    }

    /// One past the last source pixel any output in `range` reads.
    func sourceEnd(of range: Range<Int>) -> Int {
        var end = 0
        for i in range { end = max(end, starts[i] + counts[i]) }
        return end
    }

    /// The first source pixel any output in `range` reads.
    func sourceStart(of range: Range<Int>) -> Int {
        var start = Int.max
        for i in range { start = min(start, starts[i]) }
        return start
    }
}
