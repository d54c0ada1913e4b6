import Testing
@testable import Imaging

/// Rendering resolved IIIF requests: pixel checks on generated images
/// decoded back with the project's own decoder.
@Suite struct IIIFRendererTests {
    /// Quadrant colours of ``TestImages/quadrants(width:height:)``.
    static let topLeft = TestImages.quadrantColors[0]
    static let topRight = TestImages.quadrantColors[1]
    static let bottomLeft = TestImages.quadrantColors[2]
    static let bottomRight = TestImages.quadrantColors[3]

    static func render(
        _ path: String, source: PixelBuffer, width: Int? = nil, height: Int? = nil,
        limits: IIIFRequestLimits = .none
    ) throws -> (resolved: IIIFResolvedRequest, image: PixelBuffer, bytes: [UInt8]) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let request = try IIIFImageRequest.parse(
            region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3])
        let resolved = try request.resolve(
            width: width ?? source.width, height: height ?? source.height, limits: limits)
        let bytes = try IIIFRenderer.render(resolved, source: source)
        let image = try ImageDecoder.decode(bytes)
        #expect(image.width == resolved.outputWidth, "\(path)")
        #expect(image.height == resolved.outputHeight, "\(path)")
        return (resolved, image, bytes)
    }

    /// The colours at the centres of the four quadrants of `image`.
    static func quadrantCentres(_ image: PixelBuffer) -> [[UInt8]] {
        let xs = [image.width / 4, image.width * 3 / 4]
        let ys = [image.height / 4, image.height * 3 / 4]
        return [(xs[0], ys[0]), (xs[1], ys[0]), (xs[0], ys[1]), (xs[1], ys[1])].map {
            Array(TestImages.pixel(image, $0.0, $0.1).prefix(3))
        }
    }

    static func expectQuadrants(
        _ image: PixelBuffer, _ expected: [[UInt8]], tolerance: Int = 0, _ note: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let actual = quadrantCentres(image)
        for (a, e) in zip(actual, expected) {
            #expect(TestImages.close(a, e, tolerance: tolerance), "\(note): \(actual) != \(expected)",
                    sourceLocation: sourceLocation)
        }
    }

    // MARK: rotation and mirroring (png: exact pixels)

    @Test(arguments: [
        ("full/max/0/default.png", [topLeft, topRight, bottomLeft, bottomRight]),
        ("full/max/90/default.png", [bottomLeft, topLeft, bottomRight, topRight]),
        ("full/max/180/default.png", [bottomRight, bottomLeft, topRight, topLeft]),
        ("full/max/270/default.png", [topRight, bottomRight, topLeft, bottomLeft]),
        ("full/max/!0/default.png", [topRight, topLeft, bottomRight, bottomLeft]),
        // Mirrored first, then rotated.
        ("full/max/!90/default.png", [bottomRight, topRight, bottomLeft, topLeft]),
        ("full/max/!180/default.png", [bottomLeft, bottomRight, topLeft, topRight]),
        ("full/max/!270/default.png", [topLeft, bottomLeft, topRight, bottomRight]),
    ])
    func rotatesAndMirrors(path: String, expected: [[UInt8]]) throws {
        let source = TestImages.quadrants(width: 64, height: 48)
        let result = try Self.render(path, source: source)
        Self.expectQuadrants(result.image, expected, path)
        let turned = result.resolved.rotation % 180 != 0
        #expect((result.image.width, result.image.height) == (turned ? (48, 64) : (64, 48)))
        // Every pixel, not just the centres, matches a reference built in two steps.
        var reference = result.resolved.mirrored ? source.mirroredHorizontally() : source
        for _ in 0..<(result.resolved.rotation / 90) { reference = Self.rotatedOnce(reference) }
        #expect(result.image == reference, "\(path)")
    }

    /// A straightforward 90 degree clockwise turn, pixel by pixel.
    static func rotatedOnce(_ image: PixelBuffer) -> PixelBuffer {
        var out = try! PixelBuffer(width: image.height, height: image.width, channels: image.channels)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let from = (y * image.width + x) * image.channels
                let to = (x * out.width + (image.height - 1 - y)) * image.channels
                for c in 0..<image.channels { out.bytes[to + c] = image.bytes[from + c] }
            }
        }
        return out
    }

    @Test(arguments: [0, 90, 180, 270, 360, -90, 450])
    func rotationMatchesRepeatedQuarterTurns(degrees: Int) throws {
        let source = TestImages.noise(width: 7, height: 5, channels: 4)
        for mirrored in [false, true] {
            var reference = mirrored ? source.mirroredHorizontally() : source
            for _ in 0..<(((degrees / 90) % 4 + 4) % 4) { reference = Self.rotatedOnce(reference) }
            #expect(try source.rotated(clockwise: degrees, mirrored: mirrored) == reference, "\(degrees) \(mirrored)")
        }
        #expect(throws: ImagingError.self) { try source.rotated(clockwise: 45) }
    }

    // MARK: regions

    @Test(arguments: [
        ("0,0,32,24/max/0/default.png", topLeft),
        ("32,0,32,24/max/0/default.png", topRight),
        ("0,24,32,24/max/0/default.png", bottomLeft),
        ("32,24,32,24/max/0/default.png", bottomRight),
        ("pct:50,50,50,50/max/0/default.png", bottomRight),
        ("40,30,1000,1000/max/0/default.png", bottomRight),
        ("pct:0,50,50,50/16,/0/default.png", bottomLeft),
    ])
    func cropsTheRightQuadrant(path: String, colour: [UInt8]) throws {
        let result = try Self.render(path, source: TestImages.quadrants(width: 64, height: 48))
        let pixels = stride(from: 0, to: result.image.bytes.count, by: 3).map {
            Array(result.image.bytes[$0..<$0 + 3])
        }
        #expect(pixels.allSatisfy { $0 == colour }, "\(path)")
    }

    @Test func squareTakesTheCentre() throws {
        // 90x30: the centred 30x30 square is the middle third, which is the
        // green column of this three-column image.
        var bytes: [UInt8] = []
        for _ in 0..<30 {
            for x in 0..<90 { bytes += x < 30 ? [255, 0, 0] : x < 60 ? [0, 255, 0] : [0, 0, 255] }
        }
        let source = try PixelBuffer(width: 90, height: 30, channels: 3, bytes: bytes)
        let result = try Self.render("square/max/0/default.png", source: source)
        #expect(result.resolved.region == TileRect(x: 30, y: 0, width: 30, height: 30))
        #expect(stride(from: 0, to: result.image.bytes.count, by: 3).allSatisfy {
            Array(result.image.bytes[$0..<$0 + 3]) == [0, 255, 0]
        })
    }

    @Test func cropRefusesRectanglesOutsideTheImage() throws {
        let image = TestImages.gradient(width: 10, height: 8)
        for rect in [TileRect(x: 0, y: 0, width: 0, height: 1), TileRect(x: -1, y: 0, width: 2, height: 2),
                     TileRect(x: 5, y: 0, width: 6, height: 2), TileRect(x: 0, y: 7, width: 1, height: 2),
                     TileRect(x: Int.max, y: 0, width: 1, height: 1)] {
            #expect(throws: ImagingError.self) { try image.cropped(to: rect) }
        }
        #expect(try image.cropped(to: TileRect(x: 0, y: 0, width: 10, height: 8)) == image)
        let corner = try? image.cropped(to: TileRect(x: 9, y: 7, width: 1, height: 1))
        #expect(corner.map { TestImages.pixel($0, 0, 0) } == TestImages.pixel(image, 9, 7))
    }

    // MARK: sizes (jpg: sizes exact, colours close)

    @Test(arguments: [
        "full/max/0/default.jpg", "full/150,/0/default.jpg", "full/,37/0/default.jpg", "full/pct:33.3/90/default.jpg",
        "full/17,91/0/default.jpg", "full/!50,50/270/default.jpg", "125,15,120,140/pct:50/!90/gray.jpg",
        "square/^!400,400/0/default.jpg", "full/^max/180/bitonal.jpg", "pct:10,10,1,1/^,30/0/color.jpg",
    ])
    func producesExactlyTheResolvedSize(path: String) throws {
        let source = TestImages.gradient(width: 300, height: 200)
        let result = try Self.render(path, source: source, limits: IIIFRequestLimits(maxWidth: 500))
        #expect(result.bytes.starts(with: [0xFF, 0xD8]))
        #expect(result.image.width > 0)
    }

    @Test func scalingKeepsTheQuadrants() throws {
        let source = TestImages.quadrants(width: 400, height: 300)
        let result = try Self.render("full/100,/0/default.jpg", source: source)
        #expect((result.image.width, result.image.height) == (100, 75))
        Self.expectQuadrants(result.image, [Self.topLeft, Self.topRight, Self.bottomLeft, Self.bottomRight],
                             tolerance: 12, "jpg 100,")
        let png = try Self.render("full/^!800,800/90/default.png", source: source, limits: .init(maxWidth: 1000))
        #expect((png.image.width, png.image.height) == (600, 800))
        Self.expectQuadrants(png.image, [Self.bottomLeft, Self.topLeft, Self.bottomRight, Self.topRight],
                             tolerance: 2, "png ^!800")
    }

    // MARK: qualities

    @Test func grayHasEqualChannels() throws {
        let source = TestImages.gradient(width: 64, height: 48)
        let result = try Self.render("full/max/0/gray.png", source: source)
        #expect(Self.hasEqualChannels(result.image))
        // Luma, not a single channel: the quadrant image's red is darker than its white.
        let quadrants = try Self.render("full/max/0/gray.png", source: TestImages.quadrants(width: 64, height: 48))
        let centres = Self.quadrantCentres(quadrants.image)
        #expect(centres[0] == [83, 83, 83])   // 0.299*230 + 0.587*20 + 0.114*20
        #expect(centres[3] == [240, 240, 240])
        // JPEG gray is stored as one channel and decodes with equal channels (within rounding).
        let jpeg = try Self.render("full/max/0/gray.jpg", source: source)
        #expect(Self.hasEqualChannels(jpeg.image))
        #expect(try ImageDecoder.info(of: jpeg.bytes).format == .jpeg)
    }

    /// Whether every pixel of an RGB image has r == g == b.
    static func hasEqualChannels(_ image: PixelBuffer) -> Bool {
        let bytes = image.bytes
        for i in stride(from: 0, to: bytes.count, by: 3) where bytes[i] != bytes[i + 1] || bytes[i + 1] != bytes[i + 2] {
            return false
        }
        return true
    }

    @Test func grayKeepsAlphaInPNG() throws {
        let source = TestImages.gradient(width: 20, height: 10, channels: 4)
        let resolved = try IIIFImageRequest.parse(region: "full", size: "max", rotation: "0", qualityAndFormat: "gray.png")
            .resolve(width: 20, height: 10)
        let image = try IIIFRenderer.pixels(resolved, source: source)
        #expect(image.channels == 4)
        let alpha: [UInt8] = stride(from: 3, to: image.bytes.count, by: 4).map { image.bytes[$0] }
        let sourceAlpha: [UInt8] = stride(from: 3, to: source.bytes.count, by: 4).map { source.bytes[$0] }
        #expect(alpha == sourceAlpha)
    }

    @Test func bitonalIsOnlyBlackAndWhite() throws {
        let source = TestImages.gradient(width: 64, height: 48)
        let result = try Self.render("full/max/0/bitonal.png", source: source)
        #expect(result.image.bytes.allSatisfy { $0 == 0 || $0 == 255 })
        #expect(result.image.bytes.contains(0) && result.image.bytes.contains(255))
        let quadrants = try Self.render("full/max/0/bitonal.png", source: TestImages.quadrants(width: 64, height: 48))
        #expect(Self.quadrantCentres(quadrants.image) == [[0, 0, 0], [0, 0, 0], [0, 0, 0], [255, 255, 255]])
        // Transparency is flattened over white first.
        let clear = try PixelBuffer(width: 2, height: 1, channels: 4, bytes: [0, 0, 0, 0, 0, 0, 0, 255])
        #expect(clear.bitonal().bytes == [255, 255, 255, 0, 0, 0])
    }

    @Test func colorAndDefaultRenderTheSameBytes() throws {
        let source = TestImages.gradient(width: 50, height: 40)
        let a = try Self.render("full/30,/0/default.jpg", source: source)
        let b = try Self.render("full/30,/0/color.jpg", source: source)
        #expect(a.bytes == b.bytes)
        #expect(a.resolved.canonicalPath == b.resolved.canonicalPath)
    }

    // MARK: shrink-on-load sources

    /// A JPEG decoded at the suggested 1/8 scale renders the same picture as
    /// the full decode, including regions touching the image's ragged edge.
    @Test(arguments: [
        "full/100,/0/default.png", "400,300,403,301/50,/0/default.png", "0,0,400,300/50,/0/default.png",
        "pct:25,25,50,50/50,/0/default.png",
    ])
    func rendersFromAShrunkDecode(path: String) throws {
        let original = TestImages.quadrants(width: 803, height: 601)
        let jpeg = try JPEGEncoder.encode(original, quality: 95)
        let parts = path.split(separator: "/")
        let resolved = try IIIFImageRequest.parse(
            region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3]
        ).resolve(width: 803, height: 601)
        // Headroom 1 is the most aggressive shrink: the hardest case for alignment.
        #expect(resolved.decodeScaleDenominator(headroom: 1) == 8)
        let shrunk = try ImageDecoder.decode(jpeg, options: resolved.decodeOptions(headroom: 1))
        #expect((shrunk.width, shrunk.height) == (101, 76))
        let full = try ImageDecoder.decode(jpeg)
        let fromShrunk = try IIIFRenderer.pixels(resolved, source: shrunk)
        let fromFull = try IIIFRenderer.pixels(resolved, source: full)
        #expect((fromShrunk.width, fromShrunk.height) == (resolved.outputWidth, resolved.outputHeight))
        #expect(TestImages.psnr(fromShrunk, fromFull) > 24, "\(path)")
        Self.expectQuadrants(fromShrunk, Self.quadrantCentres(fromFull), tolerance: 16, path)
    }

    @Test func refusesASourceOfTheWrongSize() throws {
        let resolved = try IIIFImageRequest.parse(region: "full", size: "max", rotation: "0", qualityAndFormat: "default.png")
            .resolve(width: 100, height: 80)
        for (w, h) in [(99, 80), (100, 81), (50, 41), (3, 3), (80, 100)] {
            #expect(throws: ImagingError.self) {
                try IIIFRenderer.render(resolved, source: TestImages.gradient(width: w, height: h))
            }
        }
        #expect(try IIIFRenderer.pixels(resolved, source: TestImages.gradient(width: 13, height: 10)).width == 100)
    }
}
