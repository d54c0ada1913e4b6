import Dispatch
import Imaging

/// Deterministic synthetic pictures standing in for tweet media in the demo.
///
/// The demo ships no binary images: it renders them from seeds, and its
/// deep-zoom viewer then cuts them into tiles. Flat fills would make deep
/// tiles look empty, so every style carries structure down to single pixels:
/// value-noise octaves to a 2-pixel cell, or the boundary of the Mandelbrot
/// set. The same seed always gives the same bytes.
///
/// Speed matters because the demo renders ~150 megapixels at start-up: rows
/// are painted in parallel bands, noise is evaluated a row at a time (one
/// interpolation per octave per pixel), the fractal iterates four pixels per
/// SIMD step, and nothing allocates per pixel.
public enum SceneRenderer {
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// Sky with sun and clouds over three hazy mountain ranges: a "photo".
        case landscape
        /// A region of the Mandelbrot set's boundary with smooth colouring.
        case fractal
        /// A stylised head and shoulders on a soft background: an avatar.
        case portrait
        /// A bold retro sunset over a perspective grid: a video still.
        case poster
    }

    /// Largest side rendered; larger requests are clamped, and sizes below 1 become 1.
    public static let maxSide = 16_384

    /// An RGB image of `style`, `width` x `height` pixels (clamped to 1...``maxSide``).
    public static func render(width: Int, height: Int, seed: UInt64, style: Style) -> PixelBuffer {
        let w = min(max(width, 1), maxSide)
        let h = min(max(height, 1), maxSide)
        let painter: any ScenePainter = switch style {
        case .landscape: LandscapePainter(width: w, height: h, seed: seed)
        case .fractal: FractalPainter(width: w, height: h, seed: seed)
        case .portrait: PortraitPainter(width: w, height: h, seed: seed)
        case .poster: PosterPainter(width: w, height: h, seed: seed)
        }
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let canvas = Canvas(base: base, width: w)
            let bands = min(h, 64)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                painter.paint(rows: (h * band / bands)..<(h * (band + 1) / bands), into: canvas)
            }
        }
        do {
            return try PixelBuffer(width: w, height: h, channels: 3, bytes: bytes)
        } catch {
            preconditionFailure("unreachable: the buffer was sized from the clamped dimensions")
        }
    }
}
