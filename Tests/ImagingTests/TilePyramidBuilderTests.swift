import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Imaging

/// Real builds into temporary folders: every expected file, decodable at the
/// expected size, descriptors that parse, pixels that match the source.
@Suite struct TilePyramidBuilderTests {
    /// Odd in both directions so every level has a cropped last column and row.
    static let image = TestImages.textured(width: 601, height: 299)

    @Test(arguments: [(256, 0), (254, 1)])
    func deepZoomBuildWritesEveryTileAtItsSize(tileSize: Int, overlap: Int) throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let options = TilePyramidOptions(tileSize: tileSize, overlap: overlap, deepZoomName: "photo")
        let summary = try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom, options: options, into: folder)
        let geometry = try PyramidGeometry(width: 601, height: 299, tileSize: tileSize, overlap: overlap)

        var expected: Set<String> = ["photo.dzi"]
        for level in geometry.levels {
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let path = "photo_files/" + DeepZoomWriter.tilePath(level: level.index, column: column, row: row)
                    expected.insert(path)
                    let rect = try #require(geometry.tileRect(level: level.index, column: column, row: row))
                    let tile = try ImageDecoder.decode(PyramidFixtures.bytes(folder.appendingPathComponent(path)))
                    #expect(tile.width == rect.width && tile.height == rect.height, "\(path)")
                }
            }
        }
        #expect(PyramidFixtures.files(under: folder) == expected)
        #expect(summary.levels == geometry.levelCount && summary.levels == 11)
        #expect(summary.tiles == expected.count - 1)
        #expect(summary.width == 601 && summary.height == 299)
        let onDisk = try expected.reduce(0) { total, path in
            total + (try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(path).path)[.size] as! Int)
        }
        #expect(summary.bytes == onDisk)

        let dzi = try DZIAttributes(url: folder.appendingPathComponent("photo.dzi"))
        #expect(dzi.namespace == "http://schemas.microsoft.com/deepzoom/2008")
        #expect(dzi.image == ["Format": "jpg", "Overlap": "\(overlap)", "TileSize": "\(tileSize)"])
        #expect(dzi.size == ["Width": "601", "Height": "299"])
    }

    @Test func topLevelTilesMatchTheSourceAndLowerLevelsItsBoxReduction() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let options = TilePyramidOptions(tileSize: 254, overlap: 1, quality: 90)
        _ = try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom, options: options, into: folder)
        let geometry = try PyramidGeometry(width: 601, height: 299, tileSize: 254, overlap: 1)
        func tile(_ level: Int, _ column: Int, _ row: Int) throws -> PixelBuffer {
            try ImageDecoder.decode(PyramidFixtures.bytes(
                folder.appendingPathComponent("image_files/\(level)/\(column)_\(row).jpg")))
        }
        let top = geometry.maxLevel
        for (column, row) in [(0, 0), (1, 0), (2, 1)] {
            let rect = try #require(geometry.tileRect(level: top, column: column, row: row))
            let psnr = TestImages.psnr(try tile(top, column, row), PyramidFixtures.crop(Self.image, rect))
            #expect(psnr > 33, "top tile \(column)_\(row): \(psnr) dB")
        }
        let reduced = PyramidFixtures.referenceLevel(Self.image, reductions: 1)
        for (column, row) in [(0, 0), (1, 0)] {
            let rect = try #require(geometry.tileRect(level: top - 1, column: column, row: row))
            let expected = PyramidFixtures.crop(reduced, rect)
            let psnr = TestImages.psnr(try tile(top - 1, column, row), expected)
            #expect(psnr > 33, "level max-1 tile \(column)_\(row): \(psnr) dB")
            // The pixels before JPEG: exactly the textbook 2x2 mean.
            let exact = try TilePyramidBuilder.tilePixels(of: Self.image, level: top - 1, column: column, row: row,
                                                          options: options)
            #expect(exact == expected)
        }
        let small = PyramidFixtures.referenceLevel(Self.image, reductions: 5)
        let exact = try TilePyramidBuilder.tilePixels(of: Self.image, level: top - 5, column: 0, row: 0, options: options)
        #expect(exact == small)
    }

    @Test func iiifBuildWritesInfoJSONAndEveryRequestablePath() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = "https://example.org/iiif/3/abc"
        let options = TilePyramidOptions(overlap: 1, iiifID: id)
        let summary = try TilePyramidBuilder.build(image: Self.image, layout: .iiif3, options: options, into: folder)
        let geometry = try PyramidGeometry(width: 601, height: 299, tileSize: 256)

        var expected: Set<String> = ["info.json"]
        for level in geometry.levels {
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let paths = geometry.iiifPaths(level: level.index, column: column, row: row)
                    #expect(!paths.isEmpty || level.index < geometry.singleTileLevel)
                    let rect = geometry.iiifTileRect(level: level.index, column: column, row: row)
                    for path in paths {
                        expected.insert(path)
                        let tile = try ImageDecoder.decode(PyramidFixtures.bytes(folder.appendingPathComponent(path)))
                        #expect(tile.width == rect?.width && tile.height == rect?.height, "\(path)")
                    }
                }
            }
        }
        #expect(expected.contains("0,0,256,256/256,256/0/default.jpg"))
        #expect(expected.contains("512,256,89,43/89,43/0/default.jpg"))
        #expect(expected.contains("512,0,89,299/45,150/0/default.jpg"))
        #expect(expected.contains("full/151,75/0/default.jpg"))
        #expect(PyramidFixtures.files(under: folder) == expected)
        #expect(summary.tiles == expected.count - 1)

        let data = try Data(contentsOf: folder.appendingPathComponent("info.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["@context"] as? String == "http://iiif.io/api/image/3/context.json")
        #expect(json["id"] as? String == id)
        #expect(json["type"] as? String == "ImageService3")
        #expect(json["protocol"] as? String == "http://iiif.io/api/image")
        #expect(json["profile"] as? String == "level0")
        #expect(json["width"] as? Int == 601 && json["height"] as? Int == 299)
        let tiles = try #require(json["tiles"] as? [[String: Any]])
        #expect(tiles.count == 1)
        #expect(tiles.first?["width"] as? Int == 256 && tiles.first?["height"] as? Int == 256)
        #expect(tiles.first?["scaleFactors"] as? [Int] == [1, 2, 4])
        let sizes = try #require(json["sizes"] as? [[String: Int]])
        #expect(sizes.map { [$0["width"]!, $0["height"]!] } == geometry.iiifSizeLevels.map { [$0.width, $0.height] })
        for size in sizes {
            #expect(expected.contains("full/\(size["width"]!),\(size["height"]!)/0/default.jpg"))
        }
        #expect(String(decoding: data, as: UTF8.self).contains("\"https://example.org/iiif/3/abc\""))
        #expect(try JSONDecoder().decode(IIIFImageInfo.self, from: data) == IIIFImageInfo(geometry: geometry, id: id))
    }

    /// Both layouts from one pass into one folder: no collisions, and with no
    /// overlap each shared tile is encoded once and saved under both names.
    @Test func bothLayoutsShareOnePass() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let options = TilePyramidOptions(iiifID: "http://localhost/x")
        let summary = try TilePyramidBuilder.build(image: Self.image, layouts: [.deepZoom, .iiif3], options: options,
                                                   into: folder)
        let files = PyramidFixtures.files(under: folder)
        #expect(files.contains("image.dzi") && files.contains("info.json"))
        #expect(summary.tiles == files.count - 2)
        let dz = try PyramidFixtures.bytes(folder.appendingPathComponent("image_files/10/2_1.jpg"))
        let iiif = try PyramidFixtures.bytes(folder.appendingPathComponent("512,256,89,43/89,43/0/default.jpg"))
        #expect(dz == iiif)
    }

    /// One pass, two folders: each layout's summary counts exactly its own files.
    @Test(arguments: [0, 1])
    func separateFoldersGetTheirOwnSummaries(overlap: Int) throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dz = folder.appendingPathComponent("dz"), iiif = folder.appendingPathComponent("iiif")
        let summaries = try TilePyramidBuilder.build(
            image: Self.image, outputs: [.deepZoom: dz, .iiif3: iiif],
            options: .init(overlap: overlap, iiifID: "http://localhost/x"))
        for (layout, root) in [(PyramidLayout.deepZoom, dz), (.iiif3, iiif)] {
            let summary = try #require(summaries[layout])
            let files = PyramidFixtures.files(under: root)
            #expect(summary.tiles == files.count - 1, "\(layout)")
            let bytes = try files.reduce(0) { total, path in
                total + (try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)[.size] as! Int)
            }
            #expect(summary.bytes == bytes, "\(layout)")
        }
        let dzTile = try PyramidFixtures.bytes(dz.appendingPathComponent("image_files/9/1_0.jpg"))
        let iiifTile = try PyramidFixtures.bytes(iiif.appendingPathComponent("512,0,89,299/45,150/0/default.jpg"))
        #expect((dzTile == iiifTile) == (overlap == 0))
    }

    /// A tile made on demand from the decoded image is byte-identical to the
    /// one a full build writes, so a lazy server and an eager pipeline agree.
    @Test(arguments: [3, 4])
    func onDemandTilesEqualBuiltTiles(channels: Int) throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = channels == 3 ? Self.image : TestImages.gradient(width: 601, height: 299, channels: 4)
        let options = TilePyramidOptions(tileSize: 128, overlap: 1, iiifID: "http://localhost/x", linearLight: channels == 4)
        _ = try TilePyramidBuilder.build(image: image, layouts: [.deepZoom, .iiif3], options: options, into: folder)
        let geometry = try PyramidGeometry(width: 601, height: 299, tileSize: 128, overlap: 1)
        for level in [geometry.maxLevel, geometry.maxLevel - 1, geometry.maxLevel - 3, 2, 0] {
            let last = try #require(geometry.level(level))
            for cell in Set([[0, 0], [last.columns - 1, last.rows - 1]]) {
                let (column, row) = (cell[0], cell[1])
                let built = try PyramidFixtures.bytes(folder.appendingPathComponent(
                    "image_files/" + DeepZoomWriter.tilePath(level: level, column: column, row: row)))
                let made = try TilePyramidBuilder.tile(of: image, level: level, column: column, row: row, options: options)
                #expect(made == built, "DZ level \(level) tile \(column)_\(row)")
                if let path = geometry.iiifPaths(level: level, column: column, row: row).first {
                    let builtIIIF = try PyramidFixtures.bytes(folder.appendingPathComponent(path))
                    let madeIIIF = try TilePyramidBuilder.tile(of: image, level: level, column: column, row: row,
                                                               layout: .iiif3, options: options)
                    #expect(madeIIIF == builtIIIF, "IIIF \(path)")
                }
            }
        }
    }

    @Test func transparentPixelsAreFlattenedOverWhite() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clear = try PixelBuffer(width: 300, height: 40, channels: 4)   // transparent black
        _ = try TilePyramidBuilder.build(image: clear, layout: .deepZoom, into: folder)
        for path in ["image_files/9/0_0.jpg", "image_files/9/1_0.jpg", "image_files/8/0_0.jpg", "image_files/0/0_0.jpg"] {
            let tile = try ImageDecoder.decode(PyramidFixtures.bytes(folder.appendingPathComponent(path)))
            #expect(tile.bytes.allSatisfy { $0 >= 250 }, "\(path)")
        }
    }

    /// Averaging a black and white stripe in sRGB gives 128; in linear light it
    /// gives the grey the eye sees (sRGB 188).
    @Test func linearLightAveragingKeepsPerceivedBrightness() throws {
        var bytes = [UInt8](repeating: 0, count: 8 * 2 * 3)
        for x in stride(from: 0, to: 8, by: 2) {
            for y in 0..<2 { for c in 0..<3 { bytes[(y * 8 + x) * 3 + c] = 255 } }
        }
        let stripes = try PixelBuffer(width: 8, height: 2, channels: 3, bytes: bytes)
        let plain = try TilePyramidBuilder.tilePixels(of: stripes, level: 2, column: 0, row: 0)
        let linear = try TilePyramidBuilder.tilePixels(of: stripes, level: 2, column: 0, row: 0,
                                                       options: .init(linearLight: true))
        #expect(plain.width == 4 && plain.height == 1)
        #expect(plain.bytes.allSatisfy { $0 == 128 })
        #expect(linear.bytes.allSatisfy { (187...188).contains($0) })
        // A flat colour survives every linear-light reduction unchanged.
        let flat = try PixelBuffer(width: 37, height: 21, channels: 3, bytes: [UInt8](repeating: 77, count: 37 * 21 * 3))
        let smallest = try TilePyramidBuilder.tilePixels(of: flat, level: 0, column: 0, row: 0, options: .init(linearLight: true))
        #expect(smallest.bytes == [77, 77, 77])
    }

    @Test func singleThreadedBuildWritesTheSameFiles() throws {
        let parallel = try PyramidFixtures.temporaryDirectory()
        let serial = try PyramidFixtures.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: parallel)
            try? FileManager.default.removeItem(at: serial)
        }
        let a = try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom, options: .init(threads: 4), into: parallel)
        let b = try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom, options: .init(threads: 1), into: serial)
        #expect(a == b)
        let files = PyramidFixtures.files(under: parallel)
        #expect(files == PyramidFixtures.files(under: serial))
        for path in files {
            #expect(try PyramidFixtures.bytes(parallel.appendingPathComponent(path))
                    == PyramidFixtures.bytes(serial.appendingPathComponent(path)), "\(path)")
        }
    }

    @Test func tinyImagesStillMakeAPyramid() throws {
        for (width, height) in [(1, 1), (2, 1), (1, 3)] {
            let folder = try PyramidFixtures.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let image = TestImages.gradient(width: width, height: height)
            let summary = try TilePyramidBuilder.build(image: image, layouts: [.deepZoom, .iiif3],
                                                       options: .init(overlap: 1, iiifID: "http://localhost/t"), into: folder)
            let geometry = try PyramidGeometry(width: width, height: height)
            #expect(summary.levels == geometry.levelCount)
            let files = PyramidFixtures.files(under: folder)
            #expect(files.contains("image_files/0/0_0.jpg") && files.contains("full/max/0/default.jpg"))
            #expect(files.contains("full/\(width),\(height)/0/default.jpg"))
        }
    }

    @Test func badOptionsAreRefusedBeforeAnyFileIsWritten() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad: [(Set<PyramidLayout>, TilePyramidOptions)] = [
            ([.deepZoom], .init(quality: 0)),
            ([.deepZoom], .init(tileSize: 0)),
            ([.deepZoom], .init(tileSize: 16, overlap: 16)),
            ([.deepZoom], .init(deepZoomName: "../escape")),
            ([.deepZoom], .init(deepZoomName: "")),
            ([.deepZoom], .init(threads: 0)),
            ([.iiif3], .init()),
            ([.iiif3], .init(iiifID: "")),
            ([], .init()),
        ]
        for (layouts, options) in bad {
            #expect(throws: ImagingError.self, "\(options)") {
                try TilePyramidBuilder.build(image: Self.image, layouts: layouts, options: options, into: folder)
            }
        }
        #expect(PyramidFixtures.files(under: folder).isEmpty)
    }

    @Test func unwritableDestinationIsAnErrorNotACrash() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let error = #expect(throws: ImagingError.self) {
            try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom, into: blocker.appendingPathComponent("out"))
        }
        guard case .encodeFailed(let message)? = error else {
            Issue.record("expected a write failure, got \(String(describing: error))")
            return
        }
        #expect(message.contains("/file/out"), "\(message)")
    }

    @Test func onDemandRequestsOutsideThePyramidAreRefused() {
        for (level, column, row) in [(-1, 0, 0), (11, 0, 0), (10, 3, 0), (10, 0, 2), (0, 1, 0), (10, -1, 0)] {
            #expect(throws: ImagingError.self, "\(level) \(column) \(row)") {
                try TilePyramidBuilder.tile(of: Self.image, level: level, column: column, row: row)
            }
        }
        #expect(throws: ImagingError.self) {
            try TilePyramidBuilder.levelPixels(of: Self.image, level: 10, rect: TileRect(x: 600, y: 0, width: 2, height: 1))
        }
    }
}

/// The attributes of a `.dzi` file's two elements, read with a real XML parser.
final class DZIAttributes: NSObject, XMLParserDelegate {
    private(set) var image: [String: String] = [:]
    private(set) var size: [String: String] = [:]
    private(set) var namespace: String?

    init(url: URL) throws {
        super.init()
        let parser = try #require(XMLParser(contentsOf: url))
        parser.shouldProcessNamespaces = true
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "Image" {
            image = attributes
            namespace = namespaceURI
        } else if name == "Size" {
            size = attributes
        }
    }
}
