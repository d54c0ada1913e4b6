import BlobStore
import Foundation
import Imaging

/// One image to derive from, and what already exists for it.
struct DeriveJob: Sendable {
    var hash: BlobHash
    var wantsTiles: Bool
    var existing: [DerivedRecord]
}

/// What deriving one image produced.
struct DeriveOutcome: Sendable {
    var hash: BlobHash
    /// Every derived file the image has now (existing and new).
    var records: [DerivedRecord]
    var newRecords: [DerivedRecord]
    var width: Int?
    var height: Int?
    var error: String?
}

/// Makes the thumbnails and tile pyramids of one cached image, decoding it once.
///
/// With tiles wanted, the image is decoded at full size and everything is cut from
/// that one decode; with thumbnails only, the largest thumbnail is decoded with
/// shrink-on-load (libjpeg's DCT scaling) and the smaller ones are made from it.
/// Work already on disk and in the index is skipped.
struct Deriver: Sendable {
    let store: BlobStore
    let files: DerivedFiles
    let options: DeriveOptions
    /// Threads one image may use: 1 when images run in parallel.
    let threadsPerImage: Int

    func derive(_ job: DeriveJob) -> DeriveOutcome {
        var outcome = DeriveOutcome(hash: job.hash, records: [], newRecords: [])
        let present = job.existing.filter { FileManager.default.fileExists(atPath: files.url($0.path).path) }
        let sizes = options.thumbnailSizes.sorted(by: >)
        let missingSizes = sizes.filter { size in !present.contains { $0.kind == "thumb" && $0.sizeParameter == "\(size)" } }
        let tileKinds = job.wantsTiles && options.tiles == .eager ? options.layouts : []
        let missingLayouts = tileKinds.filter { layout in
            !present.contains { $0.kind == layout.recordKind && $0.sizeParameter == "\(options.tileSize)" }
        }
        outcome.records = present
        outcome.width = present.first { $0.kind != "thumb" }?.width
        outcome.height = present.first { $0.kind != "thumb" }?.height
        guard !missingSizes.isEmpty || !missingLayouts.isEmpty else { return outcome }

        do {
            let bytes = try store.read(job.hash)
            guard let format = ImageFormat.sniff(bytes), format == .jpeg || format == .png else {
                outcome.error = "not a JPEG or PNG: thumbnails and tiles are made for those only"
                return outcome
            }
            var thumbOptions = ThumbnailOptions()
            thumbOptions.quality = options.quality
            thumbOptions.maxPixels = options.maxPixels
            thumbOptions.maxThreads = threadsPerImage
            var made: [DerivedRecord] = []
            if !missingLayouts.isEmpty {
                let image = try ImageDecoder.decode(bytes, options: DecodeOptions(maxPixels: options.maxPixels))
                outcome.width = image.width
                outcome.height = image.height
                var source: PixelBuffer? = nil
                for size in sizes {
                    let thumb = try Thumbnailer.thumbnail(source ?? image, longEdge: size, options: thumbOptions)
                    if missingSizes.contains(size) { made.append(try write(thumb, size: size, hash: job.hash)) }
                    source = thumb.image
                }
                made += try tiles(image, layouts: missingLayouts, hash: job.hash)
            } else {
                // Thumbnails only: the largest from the file with shrink-on-load,
                // the smaller ones from that.
                var source: Thumbnail? = nil
                for size in sizes {
                    let thumb = try source.map { try Thumbnailer.thumbnail($0.image, longEdge: size, options: thumbOptions) }
                        ?? Thumbnailer.thumbnail(bytes, longEdge: size, options: thumbOptions)
                    if source == nil {
                        outcome.width = thumb.sourceWidth
                        outcome.height = thumb.sourceHeight
                    }
                    if missingSizes.contains(size) { made.append(try write(thumb, size: size, hash: job.hash)) }
                    source = thumb
                }
            }
            outcome.newRecords = made
            outcome.records = present.filter { old in !made.contains { $0.kind == old.kind && $0.sizeParameter == old.sizeParameter } } + made
        } catch {
            outcome.error = String(describing: error)
        }
        return outcome
    }

    private func write(_ thumb: Thumbnail, size: Int, hash: BlobHash) throws -> DerivedRecord {
        let path = files.thumbnail(hash, size: size, png: thumb.format == .png)
        try files.write(thumb.encoded, to: path)
        return DerivedRecord(hash: hash, kind: "thumb", sizeParameter: "\(size)", path: path,
                             width: thumb.width, height: thumb.height, bytes: thumb.encoded.count)
    }

    /// Every wanted layout from one pass down the levels (shared halvings; with no
    /// overlap, tiles both layouts share are encoded once).
    private func tiles(_ image: PixelBuffer, layouts: Set<PyramidLayout>, hash: BlobHash) throws -> [DerivedRecord] {
        var outputs: [PyramidLayout: URL] = [:]
        var descriptors: [PyramidLayout: String] = [:]
        for layout in layouts {
            let descriptor = layout == .deepZoom ? files.deepZoom(hash) : files.iiif(hash)
            descriptors[layout] = descriptor
            outputs[layout] = files.url(descriptor).deletingLastPathComponent()
        }
        var tileOptions = TilePyramidOptions()
        tileOptions.tileSize = options.tileSize
        tileOptions.overlap = options.overlap
        tileOptions.quality = options.quality
        tileOptions.iiifID = "\(options.iiifBaseURL)/\(hash.hex)"
        tileOptions.deepZoomName = "image"
        tileOptions.threads = threadsPerImage
        let summaries = try TilePyramidBuilder.build(image: image, outputs: outputs, options: tileOptions)
        return summaries.sorted { $0.key.rawValue < $1.key.rawValue }.map { layout, summary in
            DerivedRecord(hash: hash, kind: layout.recordKind, sizeParameter: "\(options.tileSize)",
                          path: descriptors[layout] ?? "", width: summary.width, height: summary.height,
                          bytes: summary.bytes)
        }
    }
}

extension PyramidLayout {
    /// The `kind` of the index row that records a pyramid of this layout.
    var recordKind: String { self == .deepZoom ? "dzi" : "iiif3" }
}
