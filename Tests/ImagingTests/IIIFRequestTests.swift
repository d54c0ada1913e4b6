import Foundation
import Testing
@testable import Imaging

/// Parsing and resolving IIIF Image API 3.0 requests. Sizes use the spec's
/// own worked examples where it gives them (a 300x200 image).
@Suite struct IIIFRequestTests {
    typealias Request = IIIFImageRequest

    static func parse(_ path: String) throws(IIIFRequestError) -> IIIFImageRequest {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw .badRequest("test path needs four segments") }
        return try Request.parse(region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3])
    }

    static func resolve(
        _ path: String, width: Int = 300, height: Int = 200, limits: IIIFRequestLimits = .none
    ) throws(IIIFRequestError) -> IIIFResolvedRequest {
        try parse(path).resolve(width: width, height: height, limits: limits)
    }

    /// The error a request produces, parse or resolve, or nil when it succeeds.
    static func error(
        _ path: String, width: Int = 300, height: Int = 200, limits: IIIFRequestLimits = .none
    ) -> IIIFRequestError? {
        do {
            _ = try resolve(path, width: width, height: height, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    // MARK: parsing

    @Test(arguments: [
        ("full", Request.Region.full),
        ("square", .square),
        ("125,15,120,140", .pixels(x: 125, y: 15, width: 120, height: 140)),
        ("0,0,1,1", .pixels(x: 0, y: 0, width: 1, height: 1)),
        ("pct:41.6,7.5,40,70", .percent(x: 41.6, y: 7.5, width: 40, height: 70)),
        ("pct:0,0,100,100", .percent(x: 0, y: 0, width: 100, height: 100)),
    ])
    func parsesRegions(text: String, expected: Request.Region) throws {
        #expect(try Request.Region.parse(text) == expected)
    }

    @Test(arguments: [
        "", "FULL", " full", "full ", "1,2,3", "1,2,3,4,5", "-1,0,10,10", "a,b,c,d", "1.5,0,10,10",
        "1,,3,4", "pct:1,2,3", "pct:+1,2,3,4", "pct:1e2,0,1,1", "pct:-1,0,10,10", "pct:1..2,0,1,1",
        "pct:", "pct:.,1,1,1", "0x10,0,1,1", "99999999999999999999,0,1,1", "１,2,3,4",
    ])
    func refusesMalformedRegions(text: String) {
        #expect(throws: IIIFRequestError.self) { try Request.Region.parse(text) }
    }

    @Test(arguments: [
        ("max", Request.Size(.max)),
        ("^max", Request.Size(.max, upscale: true)),
        ("150,", Request.Size(.width(150))),
        ("^360,", Request.Size(.width(360), upscale: true)),
        (",150", Request.Size(.height(150))),
        ("^,240", Request.Size(.height(240), upscale: true)),
        ("pct:50", Request.Size(.percent(50))),
        ("^pct:120.5", Request.Size(.percent(120.5), upscale: true)),
        ("225,100", Request.Size(.exact(width: 225, height: 100))),
        ("^360,360", Request.Size(.exact(width: 360, height: 360), upscale: true)),
        ("!225,100", Request.Size(.confined(width: 225, height: 100))),
        ("^!360,360", Request.Size(.confined(width: 360, height: 360), upscale: true)),
    ])
    func parsesSizes(text: String, expected: Request.Size) throws {
        #expect(try Request.Size.parse(text) == expected)
    }

    @Test(arguments: [
        "", "^", "^^max", "!max", "full", "MAX", "!10,", "!,10", ",", "10,10,10", "pct:", "pct:-1", "pct:abc",
        "abc", "10x10", "-10,", ",-10", "10.5,", "!^10,10", "^!10", "pct:50,", "a,", ",b", "10,b",
    ])
    func refusesMalformedSizes(text: String) {
        #expect(throws: IIIFRequestError.self) { try Request.Size.parse(text) }
    }

    @Test(arguments: [
        ("0", 0.0, false), ("90", 90, false), ("!180", 180, true), ("270", 270, false),
        ("360", 360, false), ("90.0", 90, false), ("!0", 0, true), ("22.5", 22.5, false),
    ])
    func parsesRotations(text: String, degrees: Double, mirrored: Bool) throws {
        let rotation = try Request.Rotation.parse(text)
        #expect(rotation.degrees == degrees)
        #expect(rotation.mirrored == mirrored)
    }

    @Test(arguments: ["-90", "361", "360.5", "abc", "", "!", "!!90", "+90", "90deg", "1e2", " 90", "inf", "nan"])
    func refusesMalformedRotations(text: String) {
        #expect(throws: IIIFRequestError.self) { try Request.Rotation.parse(text) }
    }

    @Test func parsesAFullRequest() throws {
        let request = try Self.parse("pct:10,20,30,40/^!100,50/!270/gray.png")
        #expect(request.region == .percent(x: 10, y: 20, width: 30, height: 40))
        #expect(request.size == .init(.confined(width: 100, height: 50), upscale: true))
        #expect(request.rotation == .init(degrees: 270, mirrored: true))
        #expect(request.quality == .gray)
        #expect(request.format == .png)
        for quality in Request.Quality.allCases {
            #expect(try Self.parse("full/max/0/\(quality.rawValue).jpg").quality == quality)
        }
    }

    /// 400 for syntax, 501 for well-formed requests this server does not do;
    /// syntax errors anywhere win over unsupported features elsewhere.
    @Test(arguments: [
        ("full/max/45/default.jpg", 501),
        ("full/max/!22.5/default.png", 501),
        ("full/max/90.5/default.jpg", 501),
        ("full/max/0/default.tif", 501),
        ("full/max/0/gray.gif", 501),
        ("full/max/0/default.jp2", 501),
        ("full/max/0/default.pdf", 501),
        ("full/max/0/default.foo", 400),
        ("full/max/0/default.JPG", 400),
        ("full/max/0/default.jpeg", 400),
        ("full/max/0/foo.jpg", 400),
        ("full/max/0/Default.jpg", 400),
        ("full/max/0/default", 400),
        ("full/max/0/.jpg", 400),
        ("full/max/0/default.", 400),
        ("full/max/0/default.jpg.png", 400),
        ("foo/max/45/default.jpg", 400),
        ("full/max/45/default.foo", 400),
        ("full/max/0/foo.webp", 400),
        ("full/max/400/default.jpg", 400),
    ])
    func classifiesErrors(path: String, status: Int) {
        #expect(Self.error(path)?.httpStatus == status, "\(path)")
    }

    @Test func refusesOverlongSegments() {
        let long = String(repeating: "1", count: 200)
        let error = Self.error("full/\(long),/0/default.jpg")
        #expect(error?.httpStatus == 400)
        #expect(error?.message.contains("too long") == true)
    }

    // MARK: regions

    @Test(arguments: [
        ("full/max/0/default.jpg", TileRect(x: 0, y: 0, width: 300, height: 200), "full"),
        ("square/max/0/default.jpg", TileRect(x: 50, y: 0, width: 200, height: 200), "50,0,200,200"),
        ("125,15,120,140/max/0/default.jpg", TileRect(x: 125, y: 15, width: 120, height: 140), "125,15,120,140"),
        ("pct:41.6,7.5,40,70/max/0/default.jpg", TileRect(x: 125, y: 15, width: 120, height: 140), "125,15,120,140"),
        // Beyond the edge: cropped (the spec's 175x185 examples).
        ("125,15,200,200/max/0/default.jpg", TileRect(x: 125, y: 15, width: 175, height: 185), "125,15,175,185"),
        ("pct:41.6,7.5,66.6,100/max/0/default.jpg", TileRect(x: 125, y: 15, width: 175, height: 185), "125,15,175,185"),
        // The whole image however spelled is canonically `full`.
        ("0,0,300,200/max/0/default.jpg", TileRect(x: 0, y: 0, width: 300, height: 200), "full"),
        ("0,0,999999999999999999,999999999999999999/max/0/default.jpg",
         TileRect(x: 0, y: 0, width: 300, height: 200), "full"),
        ("pct:0,0,100,100/max/0/default.jpg", TileRect(x: 0, y: 0, width: 300, height: 200), "full"),
        ("pct:0,0,500,500/max/0/default.jpg", TileRect(x: 0, y: 0, width: 300, height: 200), "full"),
        ("299,199,1,1/max/0/default.jpg", TileRect(x: 299, y: 199, width: 1, height: 1), "299,199,1,1"),
        // A tiny positive percentage still covers a pixel.
        ("pct:0,0,0.01,0.01/max/0/default.jpg", TileRect(x: 0, y: 0, width: 1, height: 1), "0,0,1,1"),
    ])
    func resolvesRegions(path: String, rect: TileRect, canonical: String) throws {
        let resolved = try Self.resolve(path)
        #expect(resolved.region == rect)
        #expect(resolved.canonicalRegion == canonical)
    }

    @Test func squareOfASquareImageIsFull() throws {
        let resolved = try Self.resolve("square/max/0/default.jpg", width: 200, height: 200)
        #expect(resolved.canonicalRegion == "full")
        let tall = try Self.resolve("square/max/0/default.jpg", width: 100, height: 301)
        #expect(tall.region == TileRect(x: 0, y: 100, width: 100, height: 100))
    }

    @Test(arguments: [
        "300,0,10,10", "0,200,10,10", "1000,1000,5,5", "0,0,0,0", "0,0,10,0", "0,0,0,10",
        "pct:100,0,10,10", "pct:0,100,10,10", "pct:0,0,0,10", "pct:0,0,10,0", "pct:99.9,0,10,10",
    ])
    func refusesEmptyOrOutsideRegions(region: String) {
        #expect(Self.error("\(region)/max/0/default.jpg")?.httpStatus == 400, "\(region)")
    }

    // MARK: sizes

    @Test(arguments: [
        ("full/max/0/default.jpg", 300, 200, "max"),
        ("full/150,/0/default.jpg", 150, 100, "150,100"),
        ("full/,150/0/default.jpg", 225, 150, "225,150"),
        ("full/pct:50/0/default.jpg", 150, 100, "150,100"),
        ("full/225,100/0/default.jpg", 225, 100, "225,100"),
        ("full/!225,100/0/default.jpg", 150, 100, "150,100"),
        ("full/!1000,1000/0/default.jpg", 300, 200, "max"),
        ("full/!100,1000/0/default.jpg", 100, 67, "100,67"),
        ("full/300,/0/default.jpg", 300, 200, "max"),
        ("full/300,200/0/default.jpg", 300, 200, "max"),
        ("full/pct:100/0/default.jpg", 300, 200, "max"),
        ("full/1,/0/default.jpg", 1, 1, "1,1"),
        ("full/300,1/0/default.jpg", 300, 1, "300,1"),
        ("125,15,120,140/90,/0/default.jpg", 90, 105, "90,105"),
        // ^ that does not enlarge needs no limits and is canonically plain.
        ("full/^150,/0/default.jpg", 150, 100, "150,100"),
        ("full/^max/0/default.jpg", 300, 200, "max"),
        ("full/^pct:50/0/default.jpg", 150, 100, "150,100"),
    ])
    func resolvesSizesWithoutLimits(path: String, width: Int, height: Int, canonical: String) throws {
        let resolved = try Self.resolve(path)
        #expect(resolved.width == width)
        #expect(resolved.height == height)
        #expect(resolved.canonicalSize == canonical)
        #expect(resolved.sizeParameter == "\(width),\(height)")
    }

    /// The spec's upscaling examples, with limits that allow them.
    @Test(arguments: [
        ("full/^360,/0/default.jpg", 360, 240, "^360,240"),
        ("full/^,240/0/default.jpg", 360, 240, "^360,240"),
        ("full/^pct:120/0/default.jpg", 360, 240, "^360,240"),
        ("full/^360,360/0/default.jpg", 360, 360, "^360,360"),
        ("full/^!360,360/0/default.jpg", 360, 240, "^360,240"),
        ("full/^max/0/default.jpg", 600, 400, "^max"),
        ("full/^600,/0/default.jpg", 600, 400, "^max"),
        ("full/max/0/default.jpg", 300, 200, "max"),
        ("full/^301,200/0/default.jpg", 301, 200, "^301,200"),
    ])
    func resolvesUpscaledSizes(path: String, width: Int, height: Int, canonical: String) throws {
        let resolved = try Self.resolve(path, limits: IIIFRequestLimits(maxWidth: 600, maxHeight: 600))
        #expect(resolved.width == width)
        #expect(resolved.height == height)
        #expect(resolved.canonicalSize == canonical)
        #expect(resolved.isUpscaled == (canonical.hasPrefix("^")))
    }

    @Test(arguments: [
        // Enlarging without ^ is a client error.
        ("full/301,/0/default.jpg", 400),
        ("full/,201/0/default.jpg", 400),
        ("full/301,200/0/default.jpg", 400),
        ("full/300,201/0/default.jpg", 400),
        ("full/pct:101/0/default.jpg", 400),
        ("full/pct:100.5/0/default.jpg", 400),
        ("125,15,120,140/121,/0/default.jpg", 400),
        // Less than one pixel.
        ("full/0,/0/default.jpg", 400),
        ("full/,0/0/default.jpg", 400),
        ("full/0,10/0/default.jpg", 400),
        ("full/!0,10/0/default.jpg", 400),
        ("full/pct:0/0/default.jpg", 400),
        // Enlarging with ^ but without announced limits: not offered.
        ("full/^pct:120/0/default.jpg", 501),
        ("full/^360,/0/default.jpg", 501),
        ("full/^,201/0/default.jpg", 501),
        ("full/^301,200/0/default.jpg", 501),
        ("full/^!600,600/0/default.jpg", 501),
        ("full/^99999999999999999,/0/default.jpg", 501),
    ])
    func refusesImpossibleSizes(path: String, status: Int) {
        #expect(Self.error(path)?.httpStatus == status, "\(path)")
    }

    // MARK: limits

    @Test func maxShrinksToTheLimits() throws {
        // The spec's example: max with a maxWidth of 200.
        let narrow = try Self.resolve("full/max/0/default.jpg", limits: .init(maxWidth: 200))
        #expect((narrow.width, narrow.height) == (200, 133))
        #expect(narrow.canonicalSize == "max")
        // maxHeight defaults to maxWidth.
        let tall = try Self.resolve("full/max/0/default.jpg", width: 200, height: 300, limits: .init(maxWidth: 250))
        #expect((tall.width, tall.height) == (167, 250))
        // The info.json example: 6000x4000 within 3000x2000 and 4 Mpx.
        let big = try Self.resolve(
            "full/max/0/default.jpg", width: 6000, height: 4000,
            limits: .init(maxWidth: 3000, maxHeight: 2000, maxArea: 4_000_000))
        #expect((big.width, big.height) == (2449, 1633))
        #expect(big.width * big.height <= 4_000_000)
    }

    @Test(arguments: [1, 7, 100, 10_000, 59_999, 123_457])
    func maxAreaIsNeverExceeded(area: Int) throws {
        for (w, h) in [(300, 200), (200, 300), (1, 5000), (5000, 1), (999, 998)] {
            let resolved = try Self.resolve("full/max/0/default.jpg", width: w, height: h, limits: .init(maxArea: area))
            #expect(resolved.width * resolved.height <= max(area, 1), "\(w)x\(h) area \(area)")
            #expect(resolved.width >= 1 && resolved.height >= 1)
            #expect(resolved.width <= w && resolved.height <= h)
        }
    }

    @Test func confinedSizesShrinkToTheLimitsInsteadOfFailing() throws {
        let resolved = try Self.resolve("full/!300,300/0/default.jpg", limits: .init(maxWidth: 120))
        #expect((resolved.width, resolved.height) == (120, 80))
        let up = try Self.resolve("full/^!3000,3000/0/default.jpg", limits: .init(maxArea: 60_000 * 4))
        #expect((up.width, up.height) == (600, 400))
    }

    @Test(arguments: [
        ("full/250,/0/default.jpg", IIIFRequestLimits(maxWidth: 200)),
        ("full/,190/0/default.jpg", IIIFRequestLimits(maxWidth: 300, maxHeight: 150)),
        ("full/200,100/0/default.jpg", IIIFRequestLimits(maxArea: 10_000)),
        ("full/pct:90/0/default.jpg", IIIFRequestLimits(maxArea: 10_000)),
        ("full/^1000,/0/default.jpg", IIIFRequestLimits(maxWidth: 600)),
        ("full/^99999999999999999,/0/default.jpg", IIIFRequestLimits(maxWidth: 600)),
        ("full/^99999999999999999,99999999999999999/0/default.jpg", IIIFRequestLimits(maxArea: 1_000_000)),
        ("full/^pct:99999999999999999999/0/default.jpg", IIIFRequestLimits(maxArea: 1_000_000)),
    ])
    func refusesSizesBeyondTheLimits(path: String, limits: IIIFRequestLimits) {
        let error = Self.error(path, limits: limits)
        #expect(error?.httpStatus == 400, "\(path)")
        if case .tooLarge = error {} else { Issue.record("\(path): expected tooLarge, got \(String(describing: error))") }
    }

    @Test func sizesWithinTheLimitsPass() throws {
        let limits = IIIFRequestLimits(maxArea: 10_000)
        #expect(try Self.resolve("full/100,100/0/default.jpg", limits: limits).width == 100)
        #expect(Self.error("full/101,100/0/default.jpg", limits: limits) != nil)
    }

    // MARK: rotation, quality and the canonical path

    @Test(arguments: [
        ("full/max/0/default.jpg", 300, 200, "full/max/0/default.jpg"),
        ("full/max/0/color.jpg", 300, 200, "full/max/0/default.jpg"),
        ("full/max/90/default.jpg", 200, 300, "full/max/90/default.jpg"),
        ("full/max/90.0/default.png", 200, 300, "full/max/90/default.png"),
        ("full/max/!180/gray.jpg", 300, 200, "full/max/!180/gray.jpg"),
        ("full/150,/270/bitonal.png", 100, 150, "full/150,100/270/bitonal.png"),
        ("full/max/360/default.jpg", 300, 200, "full/max/0/default.jpg"),
        ("full/max/!360/default.jpg", 300, 200, "full/max/!0/default.jpg"),
        ("pct:41.6,7.5,40,70/pct:50/!90/gray.png", 70, 60, "125,15,120,140/60,70/!90/gray.png"),
        ("square/!100,100/0/color.png", 100, 100, "50,0,200,200/100,100/0/default.png"),
    ])
    func buildsCanonicalPaths(path: String, width: Int, height: Int, canonical: String) throws {
        let resolved = try Self.resolve(path)
        #expect(resolved.outputWidth == width)
        #expect(resolved.outputHeight == height)
        #expect(resolved.canonicalPath == canonical)
        // The canonical path is itself a request for the same output.
        let again = try Self.resolve(canonical)
        #expect(again.canonicalPath == canonical)
        #expect(again.region == resolved.region)
        #expect((again.width, again.height) == (resolved.width, resolved.height))
    }

    // MARK: decode scale

    @Test(arguments: [
        ("full/256,/0/default.jpg", 4096, 3072, 8),
        ("full/max/0/default.jpg", 4096, 3072, 1),
        ("full/pct:25/0/default.jpg", 4096, 3072, 2),
        ("full/pct:20/0/default.jpg", 4096, 3072, 2),
        ("full/pct:12.5/0/default.jpg", 4096, 3072, 4),
        ("0,0,4096,4096/256,256/0/default.jpg", 8192, 8192, 8),
        ("0,0,512,512/256,256/0/default.jpg", 8192, 8192, 1),
        ("0,0,256,256/256,256/0/default.jpg", 8192, 8192, 1),
        ("full/!256,256/90/default.jpg", 4096, 3072, 8),
    ])
    func choosesADecodeScale(path: String, width: Int, height: Int, denominator: Int) throws {
        let resolved = try Self.resolve(path, width: width, height: height)
        #expect(resolved.decodeScaleDenominator() == denominator)
        #expect(resolved.decodeOptions(DecodeOptions(maxPixels: 77)).scaleDenominator == denominator)
        #expect(resolved.decodeOptions(DecodeOptions(maxPixels: 77)).maxPixels == 77)
    }

    // MARK: agreement with the static pyramid and info.json

    /// Every file of a static IIIF tree, requested by its path, resolves to a
    /// request whose region and `w,h` size name that same tile.
    @Test func pyramidTilePathsResolveToTheirTiles() throws {
        let geometry = try PyramidGeometry(width: 1000, height: 700, tileSize: 256)
        var checked = 0
        for index in 0...geometry.maxLevel {
            guard let level = geometry.level(index) else { continue }
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    for path in geometry.iiifPaths(level: index, column: column, row: row) {
                        let resolved = try Self.resolve(path, width: 1000, height: 700)
                        let region = resolved.canonicalRegion
                        let tile = geometry.iiifTile(region: region, size: resolved.sizeParameter)
                            ?? geometry.iiifTile(region: region, size: resolved.canonicalSize)
                        #expect(tile == TileCoordinate(level: index, column: column, row: row), "\(path)")
                        #expect(resolved.region == geometry.iiifRegion(level: index, column: column, row: row)
                            ?? TileRect(x: 0, y: 0, width: 1000, height: 700))
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 10)
    }

    @Test func infoJSONLeavesLevel0UnchangedAndDescribesLevel2() throws {
        let geometry = try PyramidGeometry(width: 1000, height: 700, tileSize: 256)
        let level0 = IIIFImageInfo(geometry: geometry, id: "https://example.org/iiif/abc")
        let json0 = try #require(String(bytes: try level0.jsonBytes(), encoding: .utf8))
        for key in ["maxWidth", "maxHeight", "maxArea", "extraQualities", "extraFormats", "extraFeatures", "preferredFormats"] {
            #expect(!json0.contains(key))
        }
        #expect(json0.contains("\"level0\""))

        let level2 = level0.level2(limits: IIIFRequestLimits(maxWidth: 2000, maxArea: 2_000_000))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try level2.jsonBytes())) as? [String: Any])
        #expect(object["profile"] as? String == "level2")
        #expect(object["maxWidth"] as? Int == 2000)
        #expect(object["maxHeight"] == nil)
        #expect(object["maxArea"] as? Int == 2_000_000)
        #expect(object["extraQualities"] as? [String] == ["color", "gray", "bitonal"])
        #expect(object["extraFeatures"] as? [String] == ["mirroring", "sizeUpscaling"])
        #expect(try JSONDecoder().decode(IIIFImageInfo.self, from: Data(try level2.jsonBytes())) == level2)
        #expect(level0.level2().extraFeatures == ["mirroring"])
    }
}
