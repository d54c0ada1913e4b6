import Demo
import Imaging
import Testing

@Suite struct SceneRendererTests {
    @Test(arguments: SceneRenderer.Style.allCases)
    func sameSeedGivesSameBytes(style: SceneRenderer.Style) {
        let a = SceneRenderer.render(width: 96, height: 64, seed: 42, style: style)
        let b = SceneRenderer.render(width: 96, height: 64, seed: 42, style: style)
        let other = SceneRenderer.render(width: 96, height: 64, seed: 43, style: style)
        #expect(a.width == 96 && a.height == 64 && a.channels == 3)
        #expect(a == b)
        #expect(a != other)
    }

    /// Not flat, and with pixel-scale detail: deep-zoom tiles of these images must show structure.
    @Test(arguments: SceneRenderer.Style.allCases, [1, 7] as [UInt64])
    func imagesHaveContrastAndFineDetail(style: SceneRenderer.Style, seed: UInt64) {
        let image = SceneRenderer.render(width: 160, height: 120, seed: seed, style: style)
        let luma = stride(from: 0, to: image.bytes.count, by: 3).map { i -> Double in
            let r = 0.299 * Double(image.bytes[i])
            let g = 0.587 * Double(image.bytes[i + 1])
            let b = 0.114 * Double(image.bytes[i + 2])
            return r + g + b
        }
        let mean = luma.reduce(0, +) / Double(luma.count)
        let variance = luma.reduce(0.0) { sum, v in sum + (v - mean) * (v - mean) } / Double(luma.count)
        #expect(variance > 100, "standard deviation \(variance.squareRoot()) levels")

        var neighbourDifference = 0.0
        for y in 0..<image.height {
            for x in 1..<image.width {
                neighbourDifference += abs(luma[y * image.width + x] - luma[y * image.width + x - 1])
            }
        }
        neighbourDifference /= Double(image.height * (image.width - 1))
        #expect(neighbourDifference > 0.5, "mean neighbour difference \(neighbourDifference)")
    }

    @Test(arguments: SceneRenderer.Style.allCases)
    func oddAndDegenerateSizesAreSafe(style: SceneRenderer.Style) {
        for (w, h) in [(1, 1), (3, 200), (257, 3), (0, 5), (-4, -4)] {
            let image = SceneRenderer.render(width: w, height: h, seed: 9, style: style)
            #expect(image.width == max(w, 1) && image.height == max(h, 1))
            #expect(image.bytes.count == image.width * image.height * 3)
        }
    }

    @Test func fractalUsesTheJuliaSymmetry() {
        let image = SceneRenderer.render(width: 41, height: 30, seed: 5, style: .fractal)
        var mismatches = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = (y * image.width + x) * 3
                let j = ((image.height - 1 - y) * image.width + (image.width - 1 - x)) * 3
                if image.bytes[i..<i + 3] != image.bytes[j..<j + 3] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func rendersAreEncodable() throws {
        let image = SceneRenderer.render(width: 64, height: 48, seed: 3, style: .landscape)
        let decoded = try ImageDecoder.decode(try PNGEncoder.encode(image, compressionLevel: 1))
        #expect(decoded == image)
    }
}
