import Foundation
@testable import Imaging

/// Photo-like and reference images for the resampling tests.
extension TestImages {
    /// Smooth, non-periodic "landscape" content: a few octaves of bilinearly
    /// interpolated value noise per channel over a soft gradient. Like a photo
    /// it has detail at several scales but no hard synthetic edges, so filter
    /// differences show up as small errors rather than ringing at steps.
    static func natural(width: Int, height: Int, seed: UInt64 = 0x5DEE_CE66_D1CE_4E5B) -> PixelBuffer {
        var state = seed
        func random() -> Float {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Float(state >> 40) / Float(1 << 24)
        }
        var values = [Float](repeating: 0, count: width * height * 3)
        for channel in 0..<3 {
            var cell = 96
            var amplitude: Float = 0.45
            while cell >= 3 {
                let columns = width / cell + 2
                let rows = height / cell + 2
                let grid = (0..<(columns * rows)).map { _ in random() - 0.5 }
                for y in 0..<height {
                    let gy = Float(y) / Float(cell)
                    let y0 = Int(gy)
                    let fy = gy - Float(y0)
                    for x in 0..<width {
                        let gx = Float(x) / Float(cell)
                        let x0 = Int(gx)
                        let fx = gx - Float(x0)
                        let top = grid[y0 * columns + x0] * (1 - fx) + grid[y0 * columns + x0 + 1] * fx
                        let bottom = grid[(y0 + 1) * columns + x0] * (1 - fx) + grid[(y0 + 1) * columns + x0 + 1] * fx
                        values[(y * width + x) * 3 + channel] += amplitude * (top * (1 - fy) + bottom * fy)
                    }
                }
                cell /= 2
                amplitude *= 0.6
            }
        }
        var bytes = [UInt8](repeating: 0, count: values.count)
        for y in 0..<height {
            for x in 0..<width {
                let base = 0.25 + 0.5 * Float(x + y) / Float(width + height)
                for c in 0..<3 {
                    let i = (y * width + x) * 3 + c
                    bytes[i] = UInt8(max(0, min(255, (base + values[i]) * 255)).rounded())
                }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// One flat colour everywhere.
    static func solid(width: Int, height: Int, color: [UInt8]) -> PixelBuffer {
        let bytes = (0..<(width * height)).flatMap { _ in color }
        return try! PixelBuffer(width: width, height: height, channels: color.count, bytes: bytes)
    }

    /// 1-pixel vertical black and white stripes: the pattern where averaging
    /// sRGB values instead of light is most visibly wrong.
    static func stripes(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width where x % 2 == 1 {
                let i = (y * width + x) * 3
                bytes[i] = 255
                bytes[i + 1] = 255
                bytes[i + 2] = 255
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// Exact area averaging by an integer `factor`, in linear light or on the
    /// stored values: the textbook reference a good downscaling filter must
    /// stay close to on smooth content. RGB only.
    static func boxReduced(_ image: PixelBuffer, factor: Int, linearLight: Bool) -> PixelBuffer {
        precondition(image.channels == 3)
        let width = image.width / factor
        let height = image.height / factor
        let channels = image.channels
        func toLight(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            guard linearLight else { return c }
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        func toByte(_ l: Double) -> UInt8 {
            let c = linearLight ? (l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055) : l
            return UInt8(max(0, min(255, (c * 255).rounded())))
        }
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    var sum = 0.0
                    for dy in 0..<factor {
                        for dx in 0..<factor {
                            sum += toLight(image.bytes[((y * factor + dy) * image.width + x * factor + dx) * channels + c])
                        }
                    }
                    bytes[(y * width + x) * channels + c] = toByte(sum / Double(factor * factor))
                }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    }
}
