import Testing
import MediaTypes
@testable import Imaging

/// The expected hashes were computed once by the reference (the `pdqhash` package, which
/// wraps Meta's C++ code) from the same pixels, made by the same integer formulas in numpy.
@Suite struct PDQHasherTests {
    enum Pattern { case pattern, waves, flat }

    static func image(_ width: Int, _ height: Int, _ pattern: Pattern) -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                switch pattern {
                case .pattern:
                    bytes += [UInt8((x * 7 + y * 3) % 256), UInt8((x * y) % 251), UInt8(((x ^ y) * 5) % 256)]
                case .waves:
                    bytes += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)),
                              UInt8(((x / 16 + y / 16) % 2) * 200 + 20)]
                case .flat:
                    bytes += [90, 140, 200]
                }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    @Test(arguments: [
        (97, 61, Pattern.pattern, "38e370e3f18781cf878707061f832d1efc3ef85ec076805c06b87cdab9b07be0", 100),
        (640, 480, .waves, "fc5f8baa5c7583a8fc7f0b80a9aa83885e55a988f67d8ba85c77238a5c5501aa", 100),
        (64, 64, .pattern, "999933114633c6338c6338e371e7e28707873e0e6a0ed43e807c03d43fbcffd8", 100),
        (300, 1000, .waves, "7fffffff00144515411555574515555745155557451555574515555755574515", 100),
        (120, 80, .flat, "000000002c4b820000002c4b8200554b2c4b554b2c4b2c4b0000040313a02c4b", 0),
        (4, 4, .pattern, "0000000000000000000000000000000000000000000000000000000000000000", 0),
    ])
    func matchesTheReference(width: Int, height: Int, pattern: Pattern, hex: String, quality: Int) {
        let signature = PDQHasher.signature(of: Self.image(width, height, pattern))
        #expect(signature.hash.hex == hex)
        #expect(signature.quality == quality)
    }

    @Test func dihedralHashesMatchTheReference() {
        let expected = [
            "fc5f8baa5c7583a8fc7f0b80a9aa83885e55a988f67d8ba85c77238a5c5501aa",
            "4b3057558a6457558cca575555b4a8aa575557552a3957554b555755ca0d5755",
            "ab2aab2aab28ab2aab2aab2afeffab2aab2aab2aab2aab2aab2aab20ab20ab20",
            "0001fdff0001fdff0186fdff002002000200fdff2e24fdff0400fdff9958fdff",
            "54575455547554575477547d01a05c575c5554575675545754575c755c55f455",
            "2902d6df012056d5a92a5ed5f4ffd6dd0b007cdda320d6fd092276df090054ff",
            "db70a8aa8a64a8aaeedaa8aa55b457555755a8aa7a39a8aadb75a8aaca0da8aa",
            "ffff0200ffff0200ffff0200fffffdff02000200ffff0200fff80200dff80200",
        ]
        let signature = PDQHasher.signature(of: Self.image(640, 480, .waves))
        #expect(signature.dihedral.map(\.hex) == expected)
    }

    /// A picture mirrored or turned in pixels hashes close to the matching dihedral hash
    /// of the original: what lets a search find a flipped repost.
    @Test(arguments: [
        (ImageOrientation.upMirrored, PDQTransform.flipY), (.down, .rotate180), (.downMirrored, .flipX),
    ])
    func turnedPixelsMatchTheirDihedralHash(orientation: ImageOrientation, transform: PDQTransform) {
        let original = Self.image(97, 61, .pattern)
        let turned = PDQHasher.signature(of: original.oriented(orientation)).hash
        let signature = PDQHasher.signature(of: original)
        #expect(turned.distance(to: signature.hash(transform)) <= 8)
        #expect(turned.distance(to: signature.hash) > 31)
    }

    /// The one-pass sample (weights applied in double precision) is the reference's
    /// four float passes to within their rounding, at sizes where windows differ per side.
    @Test(arguments: [(640, 480), (1201, 677), (97, 61), (300, 1000)])
    func theFastSampleIsTheReferencesWithinRounding(width: Int, height: Int) {
        let image = TestImages.natural(width: width, height: height)
        let fast = PDQHasher.downsample(image), exact = PDQHasher.exactSample(image)
        let worst = zip(fast, exact).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-3)
    }

    /// Tent weights are the reference's box applied twice: they sum to one, and a
    /// window of one leaves a pixel alone.
    @Test func tentWeightsAreTwoBoxes() {
        for (length, window, index) in [(1000, 8, 500), (1000, 8, 0), (1000, 8, 999), (77, 1, 30), (4096, 32, 2000)] {
            let w = PDQHasher.tentWeights(length: length, window: window, at: index)
            #expect(abs(w.weights.reduce(0, +) - 1) < 1e-12)
            #expect(w.start >= 0 && w.start + w.weights.count <= length)
        }
        let identity = PDQHasher.tentWeights(length: 77, window: 1, at: 30)
        #expect(identity.start == 30 && identity.weights == [1])
    }

    @Test func aFlatImageIsNotUseful() {
        let signature = PDQHasher.signature(of: Self.image(120, 80, .flat))
        #expect(!signature.isUseful)
        #expect(PDQHasher.signature(of: Self.image(640, 480, .waves)).isUseful)
    }

    @Test func hashesAJPEGFileUpright() throws {
        let image = TestImages.natural(width: 640, height: 480)
        let jpeg = try JPEGEncoder.encode(image, quality: 90)
        let fromFile = try PDQHasher.signature(ofFile: jpeg)
        // Lossy coding moves a photo's hash a few bits, never far.
        #expect(fromFile.hash.distance(to: PDQHasher.signature(of: image).hash) <= 16)
        #expect(fromFile.isUseful)
        // Smaller, the same picture: within the match distance.
        let half = try Resampler.resize(image, width: 320, height: 240)
        #expect(PDQHasher.signature(of: half).hash.distance(to: fromFile.hash) <= 31)
        #expect(throws: ImagingError.self) { try PDQHasher.signature(ofFile: Array("not an image".utf8)) }
    }
}

@Suite struct PDQHashTests {
    @Test func readsAndWritesTheReferenceText() throws {
        let hex = "38e370e3f18781cf878707061f832d1efc3ef85ec076805c06b87cdab9b07be0"
        let hash = try #require(PDQHash(hex: hex))
        #expect(hash.hex == hex)
        #expect(PDQHash(hex: hex.uppercased()) == hash)
        #expect(PDQHash(bytes: hash.bytes) == hash)
        #expect(PDQHash(hex: String(hex.dropLast())) == nil)
        #expect(PDQHash(hex: String(hex.dropLast()) + "g") == nil)
        #expect(hash.bitCount == (0..<16).map { hash.piece($0).nonzeroBitCount }.reduce(0, +))
    }

    /// The pieces split the 256 bits: each bit lands in exactly one piece, once; piece c
    /// takes row i's column (i + c) mod 16 as its bit i.
    @Test func piecesPartitionTheBits() {
        var seen = Set<Int>()
        for k in 0..<256 {
            var hash = PDQHash.zero
            hash.setBit(k)
            let lit = (0..<16).filter { hash.piece($0) != 0 }
            #expect(lit.count == 1)
            guard let c = lit.first else { continue }
            let value = hash.piece(c)
            #expect(value.nonzeroBitCount == 1)
            let (i, j) = (k / 16, k % 16)
            #expect(c == (j - i + 16) % 16 && value == UInt16(1) << UInt16(i))
            seen.insert(c * 16 + value.trailingZeroBitCount)
        }
        #expect(seen.count == 256)
    }

    @Test func bitNumberingIsTheReferences() {
        var hash = PDQHash.zero
        hash.setBit(0)
        hash.setBit(255)
        #expect(hash.hex == "8" + String(repeating: "0", count: 62) + "1")
        #expect(hash.bitCount == 2)
    }

    @Test func distances() throws {
        let a = try #require(PDQHash(hex: String(repeating: "f", count: 64)))
        #expect(a.distance(to: .zero) == 256)
        #expect(a.distance(to: .zero, atMost: 31) == nil)
        var b = a
        b.words.3 ^= 0b1011
        #expect(a.distance(to: b) == 3)
        #expect(a.distance(to: b, atMost: 3) == 3)
        #expect(a.distance(to: b, atMost: 2) == nil)
    }
}
