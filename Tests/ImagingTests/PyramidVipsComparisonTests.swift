import Foundation
import Testing
@testable import Imaging

/// Our pyramids against `vips dzsave` on the same pixels (runs only where vips
/// is installed): the same file names and tile sizes, and tiles that look
/// the same (both are 2x2 means of the level above, JPEG at quality 85).
///
/// Deliberate IIIF differences from vips 8.14: the level that fits in one
/// tile is named `full/w,h` (what OpenSeadragon requests and the canonical
/// region for the whole image) where vips writes `0,0,W,H/w,h`; that level is
/// listed in `scaleFactors` (vips leaves it out); and we add `sizes` with a
/// `full/w,h` file for each smaller level.
@Suite(.enabled(if: PyramidFixtures.vipsPath != nil, "needs vips"))
struct PyramidVipsComparisonTests {
    static let image = TestImages.textured(width: 601, height: 299)

    static func vips(_ arguments: [String]) throws { try PyramidFixtures.vips(arguments) }

    static func decode(_ url: URL) throws -> PixelBuffer {
        try ImageDecoder.decode(PyramidFixtures.bytes(url))
    }

    @Test(arguments: [(256, 0), (254, 1)])
    func deepZoomTreeMatchesDzsave(tileSize: Int, overlap: Int) throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.png")
        try Data(PNGEncoder.encode(Self.image)).write(to: input)
        let ours = folder.appendingPathComponent("ours")
        let theirs = folder.appendingPathComponent("theirs")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
        _ = try TilePyramidBuilder.build(image: Self.image, layout: .deepZoom,
                                         options: .init(tileSize: tileSize, overlap: overlap), into: ours)
        try Self.vips(["dzsave", input.path, theirs.appendingPathComponent("image").path, "--layout", "dz",
                       "--tile-size", "\(tileSize)", "--overlap", "\(overlap)", "--suffix", ".jpg[Q=85]"])

        let ourFiles = PyramidFixtures.files(under: ours)
        let theirFiles = PyramidFixtures.files(under: theirs).filter { !$0.hasSuffix("vips-properties.xml") }
        #expect(ourFiles == theirFiles)
        var worst = 99.0
        for path in ourFiles where path.hasSuffix(".jpg") {
            let a = try Self.decode(ours.appendingPathComponent(path))
            let b = try Self.decode(theirs.appendingPathComponent(path))
            #expect(a.width == b.width && a.height == b.height, "\(path)")
            if a.width == b.width && a.height == b.height { worst = min(worst, TestImages.psnr(a, b)) }
        }
        print("Pyramid vs vips dzsave (T\(tileSize) O\(overlap)): \(ourFiles.count) files, worst tile PSNR \(worst) dB")
        #expect(worst > 30)
    }

    @Test func iiifTreeMatchesDzsaveApartFromDocumentedNames() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.png")
        try Data(PNGEncoder.encode(Self.image)).write(to: input)
        let ours = folder.appendingPathComponent("ours")
        _ = try TilePyramidBuilder.build(image: Self.image, layout: .iiif3,
                                         options: .init(iiifID: "http://localhost/iiif"), into: ours)
        try Self.vips(["dzsave", input.path, folder.appendingPathComponent("theirs").path, "--layout", "iiif3",
                       "--tile-size", "256", "--overlap", "0", "--suffix", ".jpg[Q=85]", "--id", "http://localhost"])
        let theirs = folder.appendingPathComponent("theirs")

        let ourFiles = PyramidFixtures.files(under: ours)
        var compared = 0
        for path in PyramidFixtures.files(under: theirs) where path.hasSuffix(".jpg") {
            // vips names the whole-image tile 0,0,W,H; the canonical (and requested) region is `full`.
            let renamed = path.hasPrefix("0,0,601,299/") ? "full/" + path.dropFirst("0,0,601,299/".count) : path
            #expect(ourFiles.contains(String(renamed)), "vips wrote \(path), we did not write \(renamed)")
            guard ourFiles.contains(String(renamed)) else { continue }
            let a = try Self.decode(ours.appendingPathComponent(String(renamed)))
            let b = try Self.decode(theirs.appendingPathComponent(path))
            #expect(a.width == b.width && a.height == b.height, "\(path)")
            #expect(TestImages.psnr(a, b) > 30, "\(path)")
            compared += 1
        }
        let extras = ourFiles.filter { !$0.hasPrefix("full/") && $0 != "info.json" }
        #expect(extras.count == compared - 1, "every tiled path except the one-tile level is vips' too")
        print("Pyramid vs vips dzsave --layout iiif3: \(compared) vips tiles found in ours, \(ourFiles.count) files ours")
    }
}
