import BlobStore
import Foundation
import Imaging
import Pipeline

/// `/dzi/<hash>.dzi` and `/dzi/<hash>_files/<level>/<column>_<row>.jpg`.
///
/// A pyramid the pipeline made (`--tiles eager`) is served as it is on disk;
/// otherwise the descriptor is computed from the original's header with the
/// server's tile settings and each tile is made on its first request and kept
/// where the pipeline would have written it.
extension TileResponder {
    static let deepZoomType = "application/xml; charset=utf-8"

    func deepZoomDescriptor(_ hash: BlobHash) throws -> Reply {
        let relative = DerivedFiles(cacheRoot: files.root).deepZoom(hash)
        let etag = "\"\(hash.hex)-dzi\""
        if let onDisk = cached(relative, contentType: Self.deepZoomType, etag: etag, cacheControl: Reply.revalidate) {
            return onDisk
        }
        let geometry = try deepZoomGeometry(hash)
        return Reply(text: DeepZoomWriter.descriptor(for: geometry), contentType: Self.deepZoomType,
                     etag: etag, cacheControl: Reply.revalidate)
    }

    func deepZoomTile(_ hash: BlobHash, level: Int, column: Int, row: Int) async throws -> Reply {
        let derived = DerivedFiles(cacheRoot: files.root)
        let folder = derived.deepZoom(hash).dropLast(".dzi".count)
        let relative = "\(folder)_files/\(DeepZoomWriter.tilePath(level: level, column: column, row: row))"
        let etag = "\"\(hash.hex)-dz-\(level)-\(column)-\(row)\""
        if let hit = cached(relative, contentType: "image/jpeg", etag: etag) { return hit }

        let geometry = try deepZoomGeometry(hash)
        guard geometry.tileRect(level: level, column: column, row: row) != nil else {
            throw HTTPFailure.notFound("no tile \(column)_\(row) at level \(level) (levels 0-\(geometry.maxLevel))")
        }
        let options = TilePyramidOptions(tileSize: geometry.tileSize, overlap: geometry.overlap, quality: configuration.quality)
        // The first lazily made tile fixes the pyramid's geometry on disk, so a
        // restart with another --tile-size cannot mix tile sizes in one pyramid.
        let descriptor = DerivedFiles(cacheRoot: files.root).deepZoom(hash)
        if !files.exists(descriptor) {
            try? files.write(Array(DeepZoomWriter.descriptor(for: geometry).utf8), to: descriptor)
        }
        return try await made(relative, contentType: "image/jpeg", etag: etag) { [sources, pool] in
            let image = try await sources.pixels(hash)
            return try await pool.run {
                try TilePyramidBuilder.tile(of: image, level: level, column: column, row: row,
                                            layout: .deepZoom, options: options)
            }
        }
    }

    /// The geometry of the pyramid on disk when there is one (its tile size and
    /// overlap may differ from the server's), else the server's.
    func deepZoomGeometry(_ hash: BlobHash) throws -> PyramidGeometry {
        let facts = try sources.facts(hash)
        var tileSize = configuration.tileSize
        var overlap = configuration.overlap
        let relative = DerivedFiles(cacheRoot: files.root).deepZoom(hash)
        if let descriptor = try? files.read(relative, limit: 64 << 10),
           let parsed = DeepZoomDescriptor(String(decoding: descriptor, as: UTF8.self)) {
            tileSize = parsed.tileSize
            overlap = parsed.overlap
        }
        do {
            return try PyramidGeometry(width: facts.width, height: facts.height, tileSize: tileSize, overlap: overlap)
        } catch {
            throw HTTPFailure.unprocessable("cannot tile \(hash.hex): \(error)")
        }
    }
}

/// The two numbers of a `.dzi` the server needs back: tile size and overlap.
struct DeepZoomDescriptor: Equatable {
    var tileSize: Int
    var overlap: Int

    init?(_ xml: String) {
        guard let size = Self.attribute("TileSize", in: xml), let overlap = Self.attribute("Overlap", in: xml),
              (1...8192).contains(size), (0..<size).contains(overlap) else { return nil }
        tileSize = size
        self.overlap = overlap
    }

    private static func attribute(_ name: String, in xml: String) -> Int? {
        guard let start = xml.range(of: "\(name)=\"") else { return nil }
        let digits = xml[start.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty || digits.count > 5 ? nil : Int(digits)
    }
}
