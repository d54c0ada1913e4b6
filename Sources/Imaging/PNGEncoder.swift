internal import CTweetCache

/// Writes ``PixelBuffer``s as 8-bit RGB or RGBA PNG (libpng), losslessly.
public enum PNGEncoder {
    /// The PNG file for `image`. `compressionLevel` is zlib's 0-9: 1-3 are
    /// several times faster and only slightly larger, the right trade for
    /// tiles; 6 is the usual balance; 9 rarely pays for its time.
    public static func encode(_ image: PixelBuffer, compressionLevel: Int = 6) throws(ImagingError) -> [UInt8] {
        guard (0...9).contains(compressionLevel) else {
            throw .invalidArgument("PNG compression level must be 0-9, got \(compressionLevel)")
        }
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .encodeFailed("PNG cannot store \(image.width)x\(image.height) pixels")
        }
        var message = CodecShim.messageBuffer()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            tc_png_encode(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                image.bytesPerRow, Int32(compressionLevel), &output, &length, &message)
        }
        let bytes = CodecShim.takeEncoded(output, count: length)
        guard status == TC_OK else { throw CodecShim.encodeError(status, message) }
        return bytes
    }
}
