import Foundation
import Testing
@testable import Imaging

/// Peak memory and time of a 4096x3072 pyramid. Swift Testing runs suites in
/// parallel in one process, so resident memory here includes whatever other
/// tests hold at the time: the bound is generous and the measured figures are
/// printed for the record rather than asserted tightly.
@Suite(.serialized) struct PyramidPerformanceTests {
    /// VmHWM (peak resident set) and VmRSS of this process, in bytes.
    static func memory() -> (peak: Int, resident: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
        guard let peak = field("VmHWM"), let resident = field("VmRSS") else { return nil }
        return (peak, resident)
    }

    /// Resets VmHWM to the current resident size (Linux: `5` into clear_refs).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// A large textured image made quickly (test code is not optimised): a
    /// 512x384 textured patch repeated, row by row.
    static func photoLike(width: Int, height: Int) -> PixelBuffer {
        let patch = TestImages.textured(width: 512, height: 384)
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            let row = patch.bytes[(y % 384) * 512 * 3..<(y % 384 + 1) * 512 * 3]
            for _ in 0..<(width / 512) { bytes += row }
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    @Test func largePyramidStaysWithinASmallMultipleOfTheDecodedImage() throws {
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.photoLike(width: 4096, height: 3072)
        let decoded = image.bytes.count
        let canMeasure = Self.resetPeak()
        let before = Self.memory()
        let clock = ContinuousClock()
        var summary: PyramidSummary?
        let elapsed = try clock.measure {
            summary = try TilePyramidBuilder.build(image: image, layout: .deepZoom, into: folder)
        }
        let after = Self.memory()
        let result = try #require(summary)
        #expect(result.levels == 13)
        #expect(result.tiles == PyramidFixtures.files(under: folder).count - 1)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var line = String(format: "Pyramid 4096x3072 (%.1f MB decoded): %d tiles, %.1f MB, %.3f s with %d threads",
                          Double(decoded) / 1e6, result.tiles, Double(result.bytes) / 1e6, seconds,
                          TilePyramidOptions().workerCount)
        if canMeasure, let before, let after {
            let growth = after.peak - before.resident
            line += String(format: "; peak RSS growth %.1f MB = %.2fx the decoded image", Double(growth) / 1e6,
                           Double(growth) / Double(decoded))
            #expect(growth < 3 * decoded, "peak grew by \(growth) bytes for a \(decoded)-byte image")
        }
        print(line)
    }

    /// Times decode and pyramid for a real file named by TWEETCACHE_PYRAMID_IMAGE
    /// (e.g. a bench corpus photo) and, where vips is installed, `vips dzsave`
    /// on the same file in the same run, checking that the two trees have the
    /// same Deep Zoom files and near-identical tiles.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TWEETCACHE_PYRAMID_IMAGE"] != nil))
    func pyramidOfAFileNamedInTheEnvironment() throws {
        let path = try #require(ProcessInfo.processInfo.environment["TWEETCACHE_PYRAMID_IMAGE"])
        let data = try PyramidFixtures.bytes(URL(fileURLWithPath: path))
        let clock = ContinuousClock()
        let folder = try PyramidFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for layout in PyramidLayout.allCases {
            let ours = folder.appendingPathComponent("ours-\(layout.rawValue)")
            var summary: PyramidSummary?
            let elapsed = try clock.measure {
                let image = try ImageDecoder.decode(data)
                summary = try TilePyramidBuilder.build(image: image, layout: layout,
                                                       options: .init(iiifID: "http://localhost/x"), into: ours)
            }
            let result = try #require(summary)
            #expect(result.tiles > 0)
            var line = "Pyramid \(layout.rawValue) of \(path) (\(result.width)x\(result.height)): decode + build \(elapsed), "
                + "\(result.tiles) tiles, \(result.bytes) bytes"
            if PyramidFixtures.vipsPath != nil {
                let theirs = folder.appendingPathComponent("vips-\(layout.rawValue)")
                try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
                let vips = try clock.measure {
                    try PyramidFixtures.vips(["dzsave", path, theirs.appendingPathComponent("image").path,
                                              "--layout", layout.rawValue, "--tile-size", "256", "--overlap", "0",
                                              "--suffix", ".jpg[Q=85]", "--id", "http://localhost"])
                }
                line += "; vips dzsave \(vips)"
                if layout == .deepZoom {
                    let files = PyramidFixtures.files(under: ours)
                    #expect(files == PyramidFixtures.files(under: theirs).filter { !$0.hasSuffix(".xml") })
                    var worst = 99.0
                    // About 32 tiles: the comparison runs unoptimised and would take a minute for all.
                    let step = max(1, files.count / 32)
                    for (index, file) in files.sorted().enumerated() where index % step == 0 && file.hasSuffix(".jpg") {
                        let a = try ImageDecoder.decode(PyramidFixtures.bytes(ours.appendingPathComponent(file)))
                        let b = try ImageDecoder.decode(PyramidFixtures.bytes(theirs.appendingPathComponent(file)))
                        #expect(a.width == b.width && a.height == b.height, "\(file)")
                        if a.bytes.count == b.bytes.count { worst = min(worst, TestImages.psnr(a, b)) }
                    }
                    line += ", same \(files.count) files, worst sampled tile PSNR vs vips \(worst) dB"
                }
            }
            print(line)
        }
    }
}
