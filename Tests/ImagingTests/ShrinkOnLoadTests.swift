import Testing
@testable import Imaging

/// The choice of libjpeg scale, and that using it barely changes the result.
@Suite struct ShrinkOnLoadTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var source: (Int, Int)
        var target: (Int, Int)
        var headroom = 2
        var expected: Int
        var testDescription: String { "\(source) -> \(target) x\(headroom): 1/\(expected)" }
    }

    static let cases: [Case] = [
        // The bench corpus at 256 px: 16x, 8x, ~4.7x, 4x (PNG-sized), ~1.6x reductions.
        Case(source: (4096, 3072), target: (256, 192), expected: 8),
        Case(source: (2048, 1536), target: (256, 192), expected: 4),
        Case(source: (1200, 675), target: (256, 144), expected: 2),
        Case(source: (1024, 1024), target: (256, 256), expected: 2),
        Case(source: (400, 400), target: (256, 256), expected: 1),
        // Exactly at and just below each threshold: decoded ceil(source / d) >= 2 * target.
        Case(source: (4096, 4096), target: (256, 256), expected: 8),
        Case(source: (4088, 4088), target: (256, 256), expected: 4),
        Case(source: (4089, 4089), target: (256, 256), expected: 8),
        Case(source: (1024, 1024), target: (128, 128), expected: 4),
        Case(source: (1020, 1020), target: (128, 128), expected: 2),
        // Both axes must keep the headroom, the short one included.
        Case(source: (4096, 100), target: (256, 6), expected: 8),
        Case(source: (4096, 100), target: (256, 7), expected: 4),
        // Headroom 1: just large enough.
        Case(source: (2048, 1536), target: (256, 192), headroom: 1, expected: 8),
        Case(source: (1200, 675), target: (256, 144), headroom: 1, expected: 4),
        Case(source: (255, 255), target: (256, 256), headroom: 1, expected: 1),
        // No reduction, enlargements and nonsense.
        Case(source: (100, 100), target: (100, 100), expected: 1),
        Case(source: (10, 10), target: (500, 500), expected: 1),
        Case(source: (0, 10), target: (1, 1), expected: 1),
        Case(source: (10, 10), target: (0, 1), expected: 1),
        Case(source: (Int.max, Int.max), target: (Int.max, 1), expected: 1),
        Case(source: (Int.max, Int.max), target: (1, 1), expected: 8),
    ]

    @Test(arguments: cases)
    func picksTheLargestScaleThatKeepsHeadroom(_ c: Case) {
        let d = ShrinkOnLoad.scaleDenominator(
            sourceWidth: c.source.0, sourceHeight: c.source.1,
            targetWidth: c.target.0, targetHeight: c.target.1, headroom: c.headroom)
        #expect(d == c.expected)
    }

    /// The rule itself, checked against a brute-force reading of its definition.
    @Test func agreesWithTheDefinitionEverywhere() {
        for source in stride(from: 1, through: 3000, by: 7) {
            for target in [1, 2, 3, 50, 64, 100, 150, 256, 600] {
                let d = ShrinkOnLoad.scaleDenominator(
                    sourceWidth: source, sourceHeight: source, targetWidth: target, targetHeight: target)
                let decoded = { (d: Int) in (source + d - 1) / d }
                let best = [8, 4, 2].first { decoded($0) >= 2 * target } ?? 1
                #expect(d == best, "\(source) -> \(target)")
            }
        }
    }

    /// Shrink-on-load must change speed, not the picture: the same size, and
    /// within 35 dB of decoding at full size first.
    @Test(arguments: [(1024, 768, 64), (1024, 768, 128), (1000, 750, 200), (750, 1000, 120)])
    func matchesTheFullDecode(width: Int, height: Int, longEdge: Int) throws {
        let file = try JPEGEncoder.encode(TestImages.natural(width: width, height: height), quality: 92)
        for linearLight in [true, false] {
            let fast = try Thumbnailer.thumbnail(file, longEdge: longEdge, options: .init(linearLight: linearLight))
            let full = try Thumbnailer.thumbnail(
                file, longEdge: longEdge, options: .init(linearLight: linearLight, shrinkOnLoad: false))
            #expect(fast.width == full.width && fast.height == full.height)
            let psnr = TestImages.psnr(fast.image, full.image)
            #expect(psnr >= 35, "\(width)x\(height) -> \(longEdge), linear \(linearLight): \(psnr) dB")
        }
    }
}
