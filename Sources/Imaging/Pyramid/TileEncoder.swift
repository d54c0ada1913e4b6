internal import CTweetCache

/// Encodes one tile straight out of a level's pixels: JPEG, or PNG for pyramids
/// that keep transparency.
///
/// RGB levels are handed to libjpeg in place (a pointer to the tile's first
/// pixel and the level's row stride), so cutting a tile copies nothing. RGBA
/// (only ever the full-resolution level) is composited over white into a
/// per-thread scratch buffer first, like ``JPEGEncoder``. The settings equal
/// ``JPEGEncoder``'s defaults, so a tile made on demand from a ``PixelBuffer``
/// is byte-identical to the same tile written by the builder.
struct TileEncoder {
    private var settings: tc_jpeg_encode_options
    private let format: PyramidPack.TileFormat
    /// Flattened RGBA tiles; grows once to the largest tile and is reused.
    private var scratch: [UInt8] = []

    init(quality: Int, format: PyramidPack.TileFormat = .jpeg) {
        settings = tc_jpeg_encode_options(
            quality: Int32(quality), progressive: 0, optimize_coding: 0, color: TC_JPEG_ENCODE_YCBCR,
            exif_orientation: 0, icc: nil, icc_len: 0, cmyk_input: 0)
        self.format = format
    }

    /// The tile for `rect` of a level whose pixels start at `pixels`, rows
    /// `stride` bytes apart, `channels` 3 or 4. The caller guarantees that
    /// `rect` lies inside the level.
    mutating func encode(
        _ pixels: UnsafePointer<UInt8>, stride: Int, channels: Int, rect: TileRect
    ) throws(ImagingError) -> [UInt8] {
        let origin = pixels + rect.y * stride + rect.x * channels
        if format.keepsAlpha {
            let row = rect.width * channels
            let tile = [UInt8](unsafeUninitializedCapacity: row * rect.height) { out, count in
                for y in 0..<rect.height {
                    (out.baseAddress! + y * row).update(from: origin + y * stride, count: row)
                }
                count = row * rect.height
            }
            let image = PixelBuffer(unchecked: rect.width, height: rect.height, channels: channels, bytes: tile)
            return format == .webp
                ? try WebPEncoder.encode(image, options: .init(quality: Double(settings.quality)))
                : try PNGEncoder.encode(image)
        }
        guard channels == 4 else {
            return try compress(origin, width: rect.width, height: rect.height, stride: stride)
        }
        let count = rect.width * rect.height * 3
        if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
        let settings = self.settings
        let result = scratch.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(ImagingError) in
                guard let out = buffer.baseAddress else { throw ImagingError.invalidArgument("empty tile") }
                for row in 0..<rect.height {
                    let src = origin + row * stride
                    let dst = out + row * rect.width * 3
                    for x in 0..<rect.width {
                        let alpha = UInt32(src[4 * x + 3])
                        let white = 255 &* (255 &- alpha)
                        dst[3 * x] = PixelBuffer.div255(UInt32(src[4 * x]) &* alpha &+ white)
                        dst[3 * x + 1] = PixelBuffer.div255(UInt32(src[4 * x + 1]) &* alpha &+ white)
                        dst[3 * x + 2] = PixelBuffer.div255(UInt32(src[4 * x + 2]) &* alpha &+ white)
                    }
                }
                return try Self.compress(out, width: rect.width, height: rect.height, stride: rect.width * 3,
                                         settings: settings)
            }
        }
        return try result.get()
    }

    private func compress(_ origin: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) throws(ImagingError) -> [UInt8] {
        try Self.compress(origin, width: width, height: height, stride: stride, settings: settings)
    }

    private static func compress(
        _ origin: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, settings: tc_jpeg_encode_options
    ) throws(ImagingError) -> [UInt8] {
        var settings = settings
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = tc_jpeg_encode(origin, UInt32(width), UInt32(height), 3, stride, &settings, &output, &length, &message)
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}
