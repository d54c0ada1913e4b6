import ArgumentParser
import BlobStore
import Foundation
import Imaging

/// Reads files and works on several at once, each on one core: the shape of the
/// `thumb` and `tile` commands, which also make them comparable with vipsthumbnail
/// and `vips dzsave` on plain files.
enum FileBatch {
    static func run(_ paths: [String], jobs: Int, _ work: @escaping @Sendable (String, [UInt8]) throws -> String) -> Int32 {
        let failures = ManagedCounter()
        let lanes = max(1, min(jobs, paths.count))
        let next = ManagedCounter()
        DispatchQueue.concurrentPerform(iterations: lanes) { _ in
            while true {
                let i = next.increment() - 1
                guard i < paths.count else { return }
                let path = paths[i]
                do {
                    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                    let line = try work(path, bytes)
                    if !line.isEmpty { print(line) }
                } catch {
                    failures.increment()
                    StandardStreams.error("tweetcache: \(path): \(error)\n")
                }
            }
        }
        return failures.value > 0 ? 1 : 0
    }

    /// One output name per input, none twice: the file's stem (`photo` for
    /// `photo.webp`, as vipsthumbnail names it) where no other input has it, else its
    /// whole name (`photo.webp`, `photo.gif`), else the whole name with `-2`, `-3`, …
    /// (the same name in two folders). Inputs are never written over each other.
    static func outputNames(_ paths: [String]) -> [String: String] {
        let stems = paths.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
        let files = paths.map { URL(fileURLWithPath: $0).lastPathComponent }
        var stemCounts: [String: Int] = [:]
        // A path named twice is one input.
        for stem in Dictionary(zip(paths, stems), uniquingKeysWith: { first, _ in first }).values {
            stemCounts[stem, default: 0] += 1
        }
        var taken = Set<String>()
        var names: [String: String] = [:]
        for (i, path) in paths.enumerated() where names[path] == nil {
            var name = stemCounts[stems[i], default: 0] > 1 ? files[i] : stems[i]
            var n = 1
            let base = name
            while taken.contains(name) {
                n += 1
                name = "\(base)-\(n)"
            }
            taken.insert(name)
            names[path] = name
        }
        return names
    }
}

final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    @discardableResult func increment() -> Int { lock.withLock { n += 1; return n } }
    var value: Int { lock.withLock { n } }
}

struct ThumbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb", abstract: "Make thumbnails of image files (JPEG, PNG, GIF, WebP, AVIF, HEIF), in sRGB.",
        discussion: "Writes OUT/<name>.jpg (or .png for images with alpha), upright, the long edge SIZE pixels.")

    @Argument(help: "Image files.") var images: [String]
    @Option(name: .long, help: "Long edge in pixels.") var size: Int = 150
    @Option(name: .long, help: "Output directory.") var out: String
    @Option(name: .long, help: "JPEG quality.") var quality: Int = 85
    @Option(name: .long, help: "Images processed at once (default: one per core).") var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    @Flag(name: .long, help: "Resample in sRGB instead of linear light (as vipsthumbnail does by default).") var srgb = false

    func run() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var options = ThumbnailOptions()
        options.quality = quality
        options.linearLight = !srgb
        options.maxThreads = 1
        let (out, size, thumbOptions) = (self.out, self.size, options)
        let names = FileBatch.outputNames(images)
        let status = FileBatch.run(images, jobs: jobs) { path, bytes in
            let t = try Thumbnailer.thumbnail(bytes, longEdge: size, options: thumbOptions)
            let ext = t.format == .png ? "png" : "jpg"
            // Not flushed, as vipsthumbnail and `tile` do not flush theirs: a thumbnail is made
            // again from its image (Foundation's `Data.write` waited on the disk for each).
            let file = URL(fileURLWithPath: out).appendingPathComponent("\(names[path] ?? "unnamed").\(ext)").path
            try FileSystem.writeUnflushed(t.encoded, to: file)
            if let damage = t.damage { StandardStreams.error("tweetcache: warning: \(path): \(damage)\n") }
            return ""
        }
        if status != 0 { throw ExitCode(status) }
    }
}

struct TileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile", abstract: "Make zoom-tile pyramids (Deep Zoom or IIIF 3.0 level 0) of image files.",
        discussion: "dz: OUT/<name>.dzi and OUT/<name>_files/; iiif3: OUT/<name>/info.json and its static tree.")

    @Argument(help: "Image files.") var images: [String]
    @Option(name: .long, help: "Output directory.") var out: String
    @Option(name: .long, help: "dz or iiif3.") var layout: String = "dz"
    @Option(name: .long, help: "Tile size in pixels.") var tileSize: Int = 256
    @Option(name: .long, help: "Deep Zoom overlap in pixels.") var overlap: Int = 0
    @Option(name: .long, help: "JPEG quality.") var quality: Int = 85
    @Option(name: .long, help: "IIIF base URI; info.json's id is BASE/<name>.") var iiifBase: String = "http://127.0.0.1:8080/iiif/3"
    @Flag(name: .long, help: "Apply EXIF orientation (vips dzsave does not).") var autoRotate = false
    @Option(name: .long, help: "Images processed at once (default: one per core).") var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard PyramidLayout(rawValue: layout) != nil else { throw ValidationError("--layout must be dz or iiif3") }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let layout = PyramidLayout(rawValue: self.layout) ?? .deepZoom
        let base = URL(fileURLWithPath: out)
        let (tileSize, overlap, quality, iiifBase, autoRotate) = (tileSize, overlap, quality, iiifBase, autoRotate)
        let threads = images.count >= jobs ? 1 : jobs
        let names = FileBatch.outputNames(images)
        let status = FileBatch.run(images, jobs: jobs) { path, bytes in
            let name = names[path] ?? "unnamed"
            let decoded = try ImageDecoder.decodeReporting(bytes, options: DecodeOptions(applyOrientation: autoRotate))
            let image = decoded.image
            if let damage = decoded.damage { StandardStreams.error("tweetcache: warning: \(path): \(damage)\n") }
            var options = TilePyramidOptions()
            options.tileSize = tileSize
            options.overlap = layout == .deepZoom ? overlap : 0
            options.quality = quality
            // Alpha kept as the server's pyramids keep it (WebP tiles), never flattened onto white.
            options.format = .suited(to: image)
            options.deepZoomName = name
            options.iiifID = "\(iiifBase)/\(name)"
            options.threads = threads
            let dir = layout == .deepZoom ? base : base.appendingPathComponent(name)
            let s = try TilePyramidBuilder.build(image: image, layout: layout, options: options, into: dir)
            return "\(path): \(s.width)x\(s.height), \(s.levels) levels, \(s.tiles) tiles, \(s.bytes) bytes"
        }
        if status != 0 { throw ExitCode(status) }
    }
}

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode", abstract: "Decode image files and discard the pixels (a speed check against djpeg).",
        shouldDisplay: false)

    @Argument(help: "Image files.") var images: [String]
    @Option(name: .long, help: "Images decoded at once.") var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    @Option(name: .long, help: "JPEG DCT scale denominator: 1, 2, 4 or 8.") var scale: Int = 1

    func run() throws {
        let scale = self.scale
        let status = FileBatch.run(images, jobs: jobs) { _, bytes in
            _ = try ImageDecoder.decode(bytes, options: DecodeOptions(scaleDenominator: scale, applyOrientation: false))
            return ""
        }
        if status != 0 { throw ExitCode(status) }
    }
}
