extension PixelBuffer {
    /// The pixels inside `rect`, which must lie within the image and be non-empty.
    public func cropped(to rect: TileRect) throws(ImagingError) -> PixelBuffer {
        guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
              rect.x <= width - rect.width, rect.y <= height - rect.height else {
            throw .invalidArgument("crop \(rect) does not fit a \(width)x\(height) image")
        }
        if rect.width == width, rect.height == height { return self }
        let rowBytes = rect.width * channels
        var out = [UInt8](repeating: 0, count: rowBytes * rect.height)
        let sourceRow = bytesPerRow
        let start = rect.x * channels
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for row in 0..<rect.height {
                    (d + row * rowBytes).update(from: s + (rect.y + row) * sourceRow + start, count: rowBytes)
                }
            }
        }
        return PixelBuffer(unchecked: rect.width, height: rect.height, channels: channels, bytes: out)
    }

    /// Reflected about the vertical axis (left becomes right).
    public func mirroredHorizontally() -> PixelBuffer { oriented(.upMirrored) }

    /// Rotated clockwise by `degrees` (a multiple of 90, any sign), after
    /// mirroring left to right when `mirrored`: IIIF's `!n`, in one pass.
    public func rotated(clockwise degrees: Int, mirrored: Bool = false) throws(ImagingError) -> PixelBuffer {
        guard degrees % 90 == 0 else {
            throw .invalidArgument("rotation must be a multiple of 90 degrees, got \(degrees)")
        }
        let quarterTurns = ((degrees / 90) % 4 + 4) % 4
        // oriented(_:) produces what an EXIF orientation displays, so each
        // mirror-then-rotate combination is one orientation.
        let orientation: ImageOrientation = switch (quarterTurns, mirrored) {
        case (0, false): .up
        case (1, false): .right
        case (2, false): .down
        case (3, false): .left
        case (0, true): .upMirrored
        case (1, true): .rightMirrored
        case (2, true): .downMirrored
        default: .leftMirrored
        }
        return oriented(orientation)
    }

    /// Luma (Rec. 601 weights, as JPEG's own colour conversion uses) in every
    /// colour channel; alpha is kept.
    public func grayscale() -> PixelBuffer {
        var out = bytes
        let channels = channels
        let pixels = width * height
        out.withUnsafeMutableBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return }
            for i in 0..<pixels {
                let o = i * channels
                let luma = Self.luma(p[o], p[o + 1], p[o + 2])
                p[o] = luma
                p[o + 1] = luma
                p[o + 2] = luma
            }
        }
        return PixelBuffer(unchecked: width, height: height, channels: channels, bytes: out)
    }

    /// Opaque black and white only: luma at or above `threshold` becomes
    /// white. Transparency is flattened over white first, since a half
    /// transparent pixel is neither black nor white.
    public func bitonal(threshold: UInt8 = 128) -> PixelBuffer {
        var out = flattened().bytes
        let pixels = width * height
        out.withUnsafeMutableBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return }
            for i in 0..<pixels {
                let o = i * 3
                let value: UInt8 = Self.luma(p[o], p[o + 1], p[o + 2]) >= threshold ? 255 : 0
                p[o] = value
                p[o + 1] = value
                p[o + 2] = value
            }
        }
        return PixelBuffer(unchecked: width, height: height, channels: 3, bytes: out)
    }

    /// `0.299 R + 0.587 G + 0.114 B` in fixed point (weights sum to 256, so white stays 255).
    @inline(__always)
    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (77 * UInt32(r) + 150 * UInt32(g) + 29 * UInt32(b) + 128) >> 8)
    }
}
