import Foundation
import Testing
@testable import Imaging

private let environment = ProcessInfo.processInfo.environment

/// Writes a PNG thumbnail of every JPEG/PNG in TWEETCACHE_THUMB_CORPUS to
/// TWEETCACHE_THUMB_OUT, for scripts/compare-thumbs.sh to compare with
/// vipsthumbnail's. PNG so no JPEG re-encoding muddies the comparison.
/// TWEETCACHE_THUMB_SIZE sets the long edge (default 256),
/// TWEETCACHE_THUMB_LINEAR=0 filters on sRGB values, and
/// TWEETCACHE_THUMB_HEADROOM sets the shrink-on-load headroom (default 2;
/// 0 decodes at full size). Runs only when the corpus variable is set: the
/// corpus is not part of the repository.
@Suite(.enabled(if: environment["TWEETCACHE_THUMB_CORPUS"] != nil, "set TWEETCACHE_THUMB_CORPUS to a folder of images"))
struct ThumbnailCorpusExport {
    @Test func exportThumbnails() throws {
        let corpus = URL(fileURLWithPath: try #require(environment["TWEETCACHE_THUMB_CORPUS"]), isDirectory: true)
        let out = URL(fileURLWithPath: try #require(environment["TWEETCACHE_THUMB_OUT"], "set TWEETCACHE_THUMB_OUT"), isDirectory: true)
        let longEdge = Int(environment["TWEETCACHE_THUMB_SIZE"] ?? "256") ?? 256
        let linearLight = environment["TWEETCACHE_THUMB_LINEAR"] != "0"
        let headroom = Int(environment["TWEETCACHE_THUMB_HEADROOM"] ?? "2") ?? 2
        var options = ThumbnailOptions(linearLight: linearLight, shrinkOnLoad: headroom > 0)
        options.shrinkOnLoadHeadroom = max(headroom, 1)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)

        let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
            .filter { ["jpg", "jpeg", "png"].contains($0.pathExtension.lowercased()) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        #expect(!files.isEmpty)
        var failures: [String] = []
        var seconds = 0.0
        for file in files {
            let data = [UInt8](try Data(contentsOf: file))
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let thumb = try Thumbnailer.thumbnail(data, longEdge: longEdge, options: options)
                seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let name = file.deletingPathExtension().lastPathComponent + ".png"
                try Data(try PNGEncoder.encode(thumb.image, compressionLevel: 1)).write(to: out.appendingPathComponent(name))
            } catch {
                failures.append("\(file.lastPathComponent): \(error)")
            }
        }
        print("ThumbnailCorpusExport: \(files.count) files, \(failures.count) failed, \(String(format: "%.2f", seconds)) s in Thumbnailer (linear \(linearLight), \(longEdge) px, shrink-on-load headroom \(headroom))")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
