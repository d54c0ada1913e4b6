import Foundation
import Testing
@testable import Imaging

/// Scratch folders, file listings and a reference 2x reducer for the pyramid tests.
enum PyramidFixtures {
    /// A fresh empty folder under the system temporary directory; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("tweetcache-pyramid-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every regular file under `root`, as paths relative to it.
    static func files(under root: URL) -> Set<String> {
        let prefix = root.standardizedFileURL.path + "/"
        var result = Set<String>()
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let path = url.standardizedFileURL.path
            if path.hasPrefix(prefix) { result.insert(String(path.dropFirst(prefix.count))) }
        }
        return result
    }

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// `vips`, when installed, to compare trees with libvips' `dzsave`.
    static let vipsPath: String? = ["/usr/bin/vips", "/usr/local/bin/vips", "/opt/homebrew/bin/vips"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs vips with `arguments` and expects success.
    static func vips(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(vipsPath))
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "vips \(arguments.joined(separator: " "))")
    }

    /// The pyramid level `level` of `image` by the textbook definition: each
    /// pixel the rounded mean of the pixels that exist in its 2x2 block of the
    /// level above, RGBA composited over white first. Written for clarity, not speed.
    static func referenceLevel(_ image: PixelBuffer, reductions: Int) -> PixelBuffer {
        var width = image.width, height = image.height
        var pixels: [Int] = []
        for i in 0..<(width * height) {
            let p = Array(image.bytes[i * image.channels..<i * image.channels + image.channels])
            let alpha = image.channels == 4 ? Int(p[3]) : 255
            for c in 0..<3 { pixels.append(Int(PixelBuffer.div255(UInt32(Int(p[c]) * alpha + 255 * (255 - alpha))))) }
        }
        for _ in 0..<reductions {
            let outWidth = (width + 1) / 2, outHeight = (height + 1) / 2
            var out = [Int](repeating: 0, count: outWidth * outHeight * 3)
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    let block = [(2 * x, 2 * y), (2 * x + 1, 2 * y), (2 * x, 2 * y + 1), (2 * x + 1, 2 * y + 1)]
                        .filter { $0.0 < width && $0.1 < height }
                    for c in 0..<3 {
                        let sum = block.reduce(0) { $0 + pixels[($1.1 * width + $1.0) * 3 + c] }
                        out[(y * outWidth + x) * 3 + c] = (sum + block.count / 2) / block.count
                    }
                }
            }
            pixels = out
            width = outWidth
            height = outHeight
        }
        return try! PixelBuffer(width: width, height: height, channels: 3, bytes: pixels.map { UInt8($0) })
    }

    /// A rectangle of an RGB image.
    static func crop(_ image: PixelBuffer, _ rect: TileRect) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in rect.y..<rect.maxY {
            let start = (y * image.width + rect.x) * image.channels
            bytes += image.bytes[start..<start + rect.width * image.channels]
        }
        return try! PixelBuffer(width: rect.width, height: rect.height, channels: image.channels, bytes: bytes)
    }
}
