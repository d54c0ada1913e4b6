internal import Dispatch

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Resizes ``PixelBuffer``s with a separable Lanczos-3 filter.
///
/// Lanczos-3 keeps edges crisp without the moiré of box or bilinear
/// reduction, which is what users notice in a grid of thumbnails. By default
/// it filters in linear light, as physics averages light: sRGB averaging
/// darkens fine detail (thin bright lines, text, foliage). Alpha is
/// premultiplied while filtering so transparent pixels' hidden colours never
/// bleed into visible ones. Edges are clamped, so a flat image stays exactly
/// flat. Safe to call from any thread concurrently.
public enum Resampler {
    public struct Options: Sendable, Hashable {
        /// Filter in linear light (the default, and what looks right) instead
        /// of on the stored sRGB values (what libvips and most tools do,
        /// slightly darker on fine detail; useful to compare against them).
        public var linearLight: Bool
        /// Most threads one resize may use; `nil` uses every core for large
        /// images. Set 1 when images are already processed in parallel, so
        /// threads are not oversubscribed.
        public var maxThreads: Int?

        public init(linearLight: Bool = true, maxThreads: Int? = nil) {
            self.linearLight = linearLight
            self.maxThreads = maxThreads
        }
    }

    /// `image` resized to `width` x `height` (smaller or larger; the aspect
    /// ratio is the caller's choice). Returns `image` itself when the size is
    /// unchanged, so a no-op resize costs nothing and changes no pixel.
    public static func resize(
        _ image: PixelBuffer, width: Int, height: Int, options: Options = .init()
    ) throws(ImagingError) -> PixelBuffer {
        try resize(
            image, width: width, height: height,
            sourceExtent: (Double(image.width), Double(image.height)), options: options)
    }

    /// Like ``resize(_:width:height:options:)``, with the source's true size in
    /// its own pixels: a DCT-scaled decode of a width not divisible by the
    /// scale is `width / scale` pixels wide, a fraction less than its buffer.
    static func resize(
        _ image: PixelBuffer, width: Int, height: Int, sourceExtent: (width: Double, height: Double),
        options: Options
    ) throws(ImagingError) -> PixelBuffer {
        if let threads = options.maxThreads, threads < 1 {
            throw .invalidArgument("maxThreads must be at least 1, got \(threads)")
        }
        let count = try PixelBuffer.byteCount(width: width, height: height, channels: image.channels)
        if width == image.width, height == image.height,
           sourceExtent.width == Double(image.width), sourceExtent.height == Double(image.height) {
            return image
        }
        let xTaps = try FilterTaps(sourceCount: image.width, outputCount: width, sourceExtent: sourceExtent.width)
        let yTaps = try FilterTaps(sourceCount: image.height, outputCount: height, sourceExtent: sourceExtent.height)
        let threads = threadCount(image, width: width, height: height, limit: options.maxThreads)
        let bands = Self.bands(height: height, yTaps: yTaps, threads: threads)
        let strips = Self.strips(width: width, yTaps: yTaps)
        let tables = TransferTables.forLinearLight(options.linearLight)

        let bytes = image.bytes.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: count) { destination, initialized in
                guard let sourceBase = source.baseAddress, let destinationBase = destination.baseAddress else { return }
                let job = ResampleJob(
                    source: sourceBase, sourceWidth: image.width, channels: image.channels,
                    destination: destinationBase, width: width,
                    xTaps: xTaps, yTaps: yTaps, tables: tables, bands: bands, strips: strips)
                run(job, threads: threads)
                initialized = count
            }
        }
        return PixelBuffer(unchecked: width, height: height, channels: image.channels, bytes: bytes)
    }

    /// Runs every tile, spread over at most `threads` threads.
    private static func run(_ job: ResampleJob, threads: Int) {
        let tiles = job.tileCount
        let workers = min(threads, tiles)
        guard workers > 1 else {
            for tile in 0..<tiles { job.run(tile: tile) }
            return
        }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var tile = worker
            while tile < tiles {
                job.run(tile: tile)
                tile += workers
            }
        }
    }

    /// Images below about a megapixel (in and out) resize in a few
    /// milliseconds: not worth waking other threads for.
    static let parallelThreshold = 1 << 20

    private static func threadCount(_ image: PixelBuffer, width: Int, height: Int, limit: Int?) -> Int {
        // Both sizes are valid buffers, so neither product can overflow.
        guard image.width * image.height + width * height >= parallelThreshold else { return 1 }
        return max(1, min(limit ?? processorCount, processorCount))
    }

    static let processorCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Output rows cut into bands for threads. Each band refilters the source
    /// rows its first window shares with the previous band, so bands are kept
    /// at least eight windows tall (under ~12% extra work), and about four per
    /// thread so a slow thread does not hold the others up.
    private static func bands(height: Int, yTaps: FilterTaps, threads: Int) -> [Range<Int>] {
        guard threads > 1 else { return [0..<height] }
        let scale = max(Double(yTaps.sourceEnd(of: 0..<height)) / Double(height), 1e-9)
        let windows: Double = 8 * Double(yTaps.maxCount) / scale
        let minimum = max(8, Int(windows.rounded(.up)))
        let rows = max(minimum, (height + 4 * threads - 1) / (4 * threads))
        return chunks(of: height, size: rows)
    }

    /// Output columns cut into strips narrow enough that one tile's ring of
    /// filtered rows stays around 2 MB (16 MB at the largest reduction
    /// ``FilterTaps`` accepts), whatever the reduction factor.
    private static func strips(width: Int, yTaps: FilterTaps) -> [Range<Int>] {
        let ringBudget = 2 << 20
        let columns = max(16, ringBudget / (yTaps.maxCount * MemoryLayout<SIMD4<Float>>.stride))
        return chunks(of: width, size: columns)
    }

    private static func chunks(of count: Int, size: Int) -> [Range<Int>] {
        Swift.stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
    }
}
