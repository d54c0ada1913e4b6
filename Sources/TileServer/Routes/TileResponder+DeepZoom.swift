import BlobStore
import Foundation
import Imaging
import NIOCore
import CacheCore

/// `/dzi/<hash>.dzi` and `/dzi/<hash>_files/<level>/<column>_<row>.jpg` (`.png`
/// for images with alpha: the descriptor's `Format` says which).
///
/// A tile comes from the image's pyramid pack when it has one (one `pread` at
/// the offset its index gives, served as stored), else from a tree of the old
/// layout, else it is cut from the decoded original on request, kept in memory,
/// and the pack is built in the background (``LazyPacks``) for the tiles after it.
extension TileResponder {
    static let deepZoomType = "application/xml; charset=utf-8"

    /// The descriptor of the pyramid the image has (pack, old tree) or would have.
    /// Its ETag names the geometry, so a client revalidating after the pyramid
    /// changed (rebuilt with another tile size) gets the new one, not a 304.
    func deepZoomDescriptor(_ hash: BlobHash) async throws -> Reply {
        let geometry = try await deepZoomGeometry(hash)
        let format = try await tileFormat(hash).fileExtension
        return Reply(text: DeepZoomWriter.descriptor(for: geometry, format: format), contentType: Self.deepZoomType,
                     etag: "\"\(hash.hex)-dzi-\(geometry.tileSize)+\(geometry.overlap)-\(format)\"",
                     cacheControl: Reply.revalidate)
    }

    /// How the image's pyramid tiles are encoded: its pack's format, else PNG when
    /// the header has alpha (as the pack `fetch` or the server builds will be).
    func tileFormat(_ hash: BlobHash) async throws -> PyramidPack.TileFormat {
        if let pack = try await packs.pack(hash) { return pack.format }
        return .suited(to: try await sources.facts(hash).info)
    }

    func deepZoomTile(
        _ hash: BlobHash, level: Int, column: Int, row: Int, format: PyramidPack.TileFormat
    ) async throws -> Reply {
        let geometry = try await deepZoomGeometry(hash)
        let tileFormat = try await tileFormat(hash)
        guard format == tileFormat else {
            throw HTTPFailure.notFound("this pyramid's tiles are .\(tileFormat.fileExtension)")
        }
        let etag = "\"\(hash.hex)-dz-\(geometry.tileSize)+\(geometry.overlap)-\(level)-\(column)-\(row)-\(format.fileExtension)\""
        let key = Self.tileKey(hash, geometry, level: level, column: column, row: row, format: format)
        if let hit = memoryHit(key, etag: etag) { return hit }
        if let pack = try await packs.pack(hash) {
            guard pack.entry(level: level, column: column, row: row) != nil else {
                throw HTTPFailure.notFound("no tile \(column)_\(row) at level \(level) (levels 0-\(pack.geometry.maxLevel))")
            }
            return await packTile(hash, pack, level: level, column: column, row: row, key: key, etag: etag)
        }
        guard geometry.tileRect(level: level, column: column, row: row) != nil else {
            throw HTTPFailure.notFound("no tile \(column)_\(row) at level \(level) (levels 0-\(geometry.maxLevel))")
        }
        let options = TilePyramidOptions(
            tileSize: geometry.tileSize, overlap: geometry.overlap, quality: configuration.quality, format: format)
        let reply = try await made(key, contentType: format.mediaType, etag: etag, persist: false) { [sources, pool] in
            try await Self.cutTile(hash, level: level, column: column, row: row, layout: .deepZoom, options: options,
                                   sources: sources, pool: pool)
        }
        await schedulePack(hash, geometry: geometry)
        return reply
    }

    /// One pyramid tile cut on request. From the decoded image when it is in memory;
    /// else, when the tile reads at most a quarter of the image (the levels near full
    /// size), from a decode of only the part under it: the first tile of a large
    /// photo without a pack then costs a tile's decode, not the photo's. The tile is
    /// byte-identical either way; the whole decode follows for the pack.
    static func cutTile(
        _ hash: BlobHash, level: Int, column: Int, row: Int, layout: PyramidLayout, options: TilePyramidOptions,
        sources: SourceImages, pool: RenderPool
    ) async throws -> [UInt8] {
        let facts = try await sources.facts(hash)
        let source = try TilePyramidBuilder.sourceRect(
            width: facts.width, height: facts.height, level: level, column: column, row: row, layout: layout,
            options: options)
        // Only JPEG decodes in part (``ImageDecoder/decodeRegion(_:_:options:)``): others are not asked.
        if facts.info.format == .jpeg, facts.info.orientation == .up,
           source.width * source.height * 4 <= facts.width * facts.height,
           let region = try await sources.region(hash, source) {
            return try await pool.run {
                try TilePyramidBuilder.tile(ofRegion: region, imageWidth: facts.width, imageHeight: facts.height,
                                            level: level, column: column, row: row, layout: layout, options: options)
            }
        }
        let image = try await sources.pixels(hash)
        return try await pool.run {
            try TilePyramidBuilder.tile(of: image, level: level, column: column, row: row, layout: layout, options: options)
        }
    }

    /// Where a pyramid tile's bytes are kept in memory: shared by Deep Zoom and
    /// IIIF, which name the same tiles differently.
    static func tileKey(
        _ hash: BlobHash, _ geometry: PyramidGeometry, level: Int, column: Int, row: Int, format: PyramidPack.TileFormat
    ) -> String {
        // The format too: a pack rebuilt (`verify --repair`) may change it under the same geometry.
        "tile:\(hash.hex)/\(geometry.tileSize)+\(geometry.overlap)/\(level)/\(column)/\(row).\(format.fileExtension)"
    }

    /// A tile read out of a pack (and kept in memory); cut from the original with
    /// the pack's geometry and format when the pack proves damaged.
    func packTile(
        _ hash: BlobHash, _ pack: PyramidPack, level: Int, column: Int, row: Int, key: String, etag: String
    ) async -> Reply {
        do {
            guard let bytes = try await packs.tile(hash, pack, level: level, column: column, row: row) else {
                return Self.error(.notFound("no tile \(column)_\(row) at level \(level)"))
            }
            metrics.diskHit()
            let body = ByteBuffer(bytes: bytes)
            memory.put(key, .init(body: body, contentType: pack.format.mediaType))
            return Reply(body: body, contentType: pack.format.mediaType, etag: etag, cacheControl: Reply.immutable)
        } catch is PackReader.Damaged {
            let options = TilePyramidOptions(tileSize: pack.geometry.tileSize, overlap: pack.geometry.overlap,
                                             quality: configuration.quality, format: pack.format)
            do {
                return try await made(key, contentType: pack.format.mediaType, etag: etag, persist: false) { [sources, pool] in
                    try await Self.cutTile(hash, level: level, column: column, row: row, layout: .deepZoom,
                                           options: options, sources: sources, pool: pool)
                }
            } catch let failure as HTTPFailure {
                return Self.error(failure)
            } catch {
                return Self.error(.init(status: 500, message: "the tile could not be made"))
            }
        } catch let failure as HTTPFailure {
            return Self.error(failure)
        } catch {
            return Self.error(.init(status: 500, message: "the tile could not be read"))
        }
    }

    /// Builds the image's pack in the background when it is big enough to want
    /// one and has none (a pack with overlap is not replaced because a IIIF tile,
    /// which it cannot hold, was cut).
    func schedulePack(_ hash: BlobHash, geometry: PyramidGeometry) async {
        guard lazyPacks.enabled else { return }
        let hasNoPack: Bool
        do { hasNoPack = try await packs.pack(hash) == nil } catch { hasNoPack = false }  // a damaged one is for verify --repair
        guard hasNoPack, DeriveOptions.wantsPyramid(width: geometry.width, height: geometry.height, tileSize: geometry.tileSize) else {
            return
        }
        // The pack's format follows the decoded image (``PyramidPack/TileFormat/suited(to:)``).
        lazyPacks.schedule(hash, options: TilePyramidOptions(
            tileSize: geometry.tileSize, overlap: geometry.overlap, quality: configuration.quality))
    }

    /// The geometry of the pyramid the image has (its pack's tile size and overlap
    /// may differ from the server's), else the server's.
    func deepZoomGeometry(_ hash: BlobHash) async throws -> PyramidGeometry {
        if let pack = try await packs.pack(hash) { return pack.geometry }
        let facts = try await sources.facts(hash)
        let tileSize = configuration.tileSize
        let overlap = configuration.overlap
        do {
            return try PyramidGeometry(width: facts.width, height: facts.height, tileSize: tileSize, overlap: overlap)
        } catch {
            throw HTTPFailure.unprocessable("cannot tile \(hash.hex): \(error)")
        }
    }
}
