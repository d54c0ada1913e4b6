extension PixelBuffer {
    /// The pixels as they should be displayed for an EXIF orientation: rotated
    /// and/or mirrored, with width and height swapped for orientations 5-8.
    public func oriented(_ orientation: ImageOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let walk = SourceWalk(orientation, width: width, height: height)
        let (outWidth, outHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
        let channels = channels
        var out = [UInt8](repeating: 0, count: bytes.count)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                var o = 0
                for y in 0..<outHeight {
                    var p = walk.origin + y * walk.stepY
                    for _ in 0..<outWidth {
                        let i = p * channels
                        d[o] = s[i]
                        d[o + 1] = s[i + 1]
                        d[o + 2] = s[i + 2]
                        if channels == 4 { d[o + 3] = s[i + 3] }
                        o += channels
                        p += walk.stepX
                    }
                }
            }
        }
        return PixelBuffer(unchecked: outWidth, height: outHeight, channels: channels, bytes: out)
    }
}

/// Where the output's pixels come from, in source pixel indices: output pixel
/// (x, y) reads source pixel `origin + x * stepX + y * stepY`.
private struct SourceWalk {
    let origin: Int
    let stepX: Int
    let stepY: Int

    init(_ orientation: ImageOrientation, width w: Int, height h: Int) {
        let lastRow = (h - 1) * w
        switch orientation {
        case .up: (origin, stepX, stepY) = (0, 1, w)
        case .upMirrored: (origin, stepX, stepY) = (w - 1, -1, w)
        case .down: (origin, stepX, stepY) = (lastRow + w - 1, -1, -w)
        case .downMirrored: (origin, stepX, stepY) = (lastRow, 1, -w)
        case .leftMirrored: (origin, stepX, stepY) = (0, w, 1)
        case .right: (origin, stepX, stepY) = (lastRow, -w, 1)
        case .rightMirrored: (origin, stepX, stepY) = (lastRow + w - 1, -w, -1)
        case .left: (origin, stepX, stepY) = (w - 1, w, -1)
        }
    }
}
