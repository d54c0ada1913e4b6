import Foundation
@testable import Imaging

/// Deterministic images and comparisons shared by the Imaging tests.
enum TestImages {
    /// Smooth diagonal gradients in each channel: what JPEG handles well, so
    /// round-trip error measures the codec rather than ringing at hard edges.
    static func gradient(width: Int, height: Int, channels: Int = 3) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        let span = max(width, height, 2) - 1   // same slope both ways, so thin images stay smooth
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * channels
                bytes[i] = UInt8(x * 255 / span)
                bytes[i + 1] = UInt8(y * 255 / span)
                bytes[i + 2] = UInt8((x + y) * 255 / (2 * span))
                if channels == 4 { bytes[i + 3] = UInt8((x * 7 + y * 13) % 256) }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    }

    /// Pseudo-random bytes (xorshift), so lossless codecs see incompressible, edge-heavy data.
    static func noise(width: Int, height: Int, channels: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> PixelBuffer {
        var state = seed
        let bytes = (0..<(width * height * channels)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return try! PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
    }

    /// A gradient with mild pseudo-random luminance texture (up to +-25 levels,
    /// the same in every channel so 4:2:0 chroma subsampling loses nothing):
    /// photo-like content whose JPEG fidelity depends visibly on quality.
    static func textured(width: Int, height: Int) -> PixelBuffer {
        let base = gradient(width: width, height: height)
        let grain = noise(width: width, height: height, channels: 3)
        let bytes = base.bytes.indices.map { i in
            UInt8(clamping: Int(base.bytes[i]) + Int(grain.bytes[i - i % 3]) / 5 - 25)
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// Four flat quadrants (top-left, top-right, bottom-left, bottom-right) for orientation checks.
    static let quadrantColors: [[UInt8]] = [[230, 20, 20], [20, 200, 20], [20, 20, 230], [240, 240, 240]]

    static func quadrants(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let q = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                bytes.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: quadrantColors[q])
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// The channel values of one pixel.
    static func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * image.width + x) * image.channels
        return Array(image.bytes[i..<i + image.channels])
    }

    /// Peak signal-to-noise ratio in dB over all channels (99 for identical images).
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.bytes.count == b.bytes.count)
        var squared = 0.0
        for (p, q) in zip(a.bytes, b.bytes) {
            let d = Double(p) - Double(q)
            squared += d * d
        }
        let mse = squared / Double(a.bytes.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// Largest per-channel difference.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        zip(a.bytes, b.bytes).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Whether two colours are within `tolerance` on every channel.
    static func close(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }
}
