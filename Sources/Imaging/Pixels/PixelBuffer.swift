/// Decoded pixels: 8-bit RGB or RGBA, row-major, rows tightly packed.
///
/// One deliberately plain layout for every stage (decode, orient, resample,
/// encode) so no stage converts formats or handles strides, and the bytes can
/// go straight to libjpeg/libpng. Only RGB and RGBA exist: grayscale and CMYK
/// are expanded at decode time.
public struct PixelBuffer: Sendable, Hashable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// 3 for RGB, 4 for RGBA (straight, not premultiplied, alpha).
    public let channels: Int
    /// `height` rows of ``bytesPerRow`` bytes each; always exactly `width * height * channels` long.
    public internal(set) var bytes: [UInt8]

    /// Wraps existing pixel bytes, refusing any mismatch between size and byte count.
    public init(width: Int, height: Int, channels: Int, bytes: [UInt8]) throws(ImagingError) {
        let count = try Self.byteCount(width: width, height: height, channels: channels)
        guard bytes.count == count else {
            throw .invalidArgument("\(width)x\(height)x\(channels) pixels need \(count) bytes, got \(bytes.count)")
        }
        self.init(unchecked: width, height: height, channels: channels, bytes: bytes)
    }

    /// A buffer of the given size with every byte zero (transparent black for RGBA).
    public init(width: Int, height: Int, channels: Int) throws(ImagingError) {
        let count = try Self.byteCount(width: width, height: height, channels: channels)
        self.init(unchecked: width, height: height, channels: channels, bytes: [UInt8](repeating: 0, count: count))
    }

    /// For codecs that have already validated the size against the byte count.
    init(unchecked width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.bytes = bytes
    }

    /// Bytes in one row: `width * channels`.
    public var bytesPerRow: Int { width * channels }

    /// Whether the pixels carry an alpha channel.
    public var hasAlpha: Bool { channels == 4 }

    /// Direct access for fast loops (no per-pixel bounds checks or closures).
    /// The buffer's size cannot change, so the layout invariants hold.
    public mutating func withUnsafeMutableBytes<R>(
        _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        try bytes.withUnsafeMutableBufferPointer { buffer in try body(buffer) }
    }

    /// The byte count of a valid buffer, or why the size is impossible.
    static func byteCount(width: Int, height: Int, channels: Int) throws(ImagingError) -> Int {
        guard channels == 3 || channels == 4 else {
            throw .invalidArgument("channels must be 3 (RGB) or 4 (RGBA), got \(channels)")
        }
        guard width > 0, height > 0 else {
            throw .invalidArgument("image size must be positive, got \(width)x\(height)")
        }
        let (row, rowOverflow) = width.multipliedReportingOverflow(by: channels)
        let (count, overflow) = row.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !overflow else {
            throw .invalidArgument("\(width)x\(height) pixels do not fit in memory")
        }
        return count
    }
}
