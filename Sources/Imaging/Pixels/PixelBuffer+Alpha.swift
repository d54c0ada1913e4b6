extension PixelBuffer {
    /// RGB pixels composited over an opaque background colour (white by default).
    ///
    /// For formats without transparency, such as JPEG: dropping alpha instead
    /// would reveal whatever colour transparent pixels happen to store, often black.
    public func flattened(red: UInt8 = 255, green: UInt8 = 255, blue: UInt8 = 255) -> PixelBuffer {
        guard channels == 4 else { return self }
        let pixels = width * height
        var out = [UInt8](repeating: 0, count: pixels * 3)
        let background = (UInt32(red), UInt32(green), UInt32(blue))
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for i in 0..<pixels {
                    let a = UInt32(s[4 * i + 3])
                    let ia = 255 - a
                    d[3 * i] = Self.div255(UInt32(s[4 * i]) * a + background.0 * ia)
                    d[3 * i + 1] = Self.div255(UInt32(s[4 * i + 1]) * a + background.1 * ia)
                    d[3 * i + 2] = Self.div255(UInt32(s[4 * i + 2]) * a + background.2 * ia)
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, channels: 3, bytes: out)
    }

    /// RGBA pixels: RGB gets opaque alpha, RGBA is returned as it is.
    public func withAlpha() -> PixelBuffer {
        guard channels == 3 else { return self }
        let pixels = width * height
        var out = [UInt8](repeating: 255, count: pixels * 4)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for i in 0..<pixels {
                    d[4 * i] = s[3 * i]
                    d[4 * i + 1] = s[3 * i + 1]
                    d[4 * i + 2] = s[3 * i + 2]
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, channels: 4, bytes: out)
    }

    /// `x / 255` rounded, exact for `0...255 * 255`.
    @inline(__always)
    static func div255(_ x: UInt32) -> UInt8 {
        let t = x &+ 128
        return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
    }
}

extension PyramidPack.TileFormat {
    /// WebP for an image with alpha (JPEG has none: its tiles would be drawn on
    /// white; lossy WebP keeps alpha losslessly at about a tenth of PNG's bytes, and
    /// every browser a Deep Zoom viewer runs in reads it), JPEG for everything else.
    /// Packs written earlier with PNG tiles stay valid. Decided from the header alone (the
    /// decoder gives RGBA exactly when the header has alpha), so a server can name
    /// the format in a descriptor before anything is decoded, and a pyramid built
    /// later by `fetch` agrees.
    public static func suited(to info: ImageInfo) -> Self { info.hasAlpha ? .webp : .jpeg }

    /// ``suited(to:)-(ImageInfo)`` for decoded pixels.
    public static func suited(to image: PixelBuffer) -> Self { image.hasAlpha ? .webp : .jpeg }
}
