import BlobStore
import CTweetCache
import Foundation
import HTTPTypes
import Hummingbird
import Imaging
import CacheCore

/// IIIF Image API 3.0 at `/iiif/3/<hash>/…`, compliance level 2.
///
/// Requests are parsed and resolved by Imaging's ``IIIFImageRequest`` (which
/// decides 400 against 501), answered from the pyramid on disk when the request
/// is one of its tiles, and otherwise rendered once and kept under the request's
/// canonical path, so equivalent spellings of a request share one file.
extension TileResponder {
    static let iiifContentType = "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\""

    var iiifLimits: IIIFRequestLimits {
        IIIFRequestLimits(maxWidth: configuration.maxWidth, maxHeight: configuration.maxHeight, maxArea: configuration.maxArea)
    }

    /// The IIIF tile grid: the pack's when the image has one (so the tiles
    /// `info.json` announces are the pack's own), else the server's.
    func iiifGeometry(_ hash: BlobHash) async throws -> PyramidGeometry {
        if let pack = try await packs.pack(hash) {
            let g = pack.geometry
            if g.overlap == 0 { return g }
            return try PyramidGeometry(width: g.width, height: g.height, tileSize: g.tileSize)
        }
        let facts = try await sources.facts(hash)
        do {
            return try PyramidGeometry(width: facts.width, height: facts.height, tileSize: configuration.tileSize)
        } catch {
            throw HTTPFailure.unprocessable("cannot describe \(hash.hex): \(error)")
        }
    }

    func iiifInfo(_ hash: BlobHash, request: Request) async throws -> Reply {
        let geometry = try await iiifGeometry(hash)
        var info = IIIFImageInfo(geometry: geometry, id: "\(iiifBase(request))/\(hash.hex)").level2(limits: iiifLimits)
        // Viewers ask for jpg unless told otherwise, and jpg has no alpha: for a transparent
        // image, WebP keeps it in a fraction of PNG's bytes, and PNG remains for older viewers.
        if try await tileFormat(hash).keepsAlpha { info.preferredFormats = ["webp", "png"] }
        let body = try info.jsonBytes()
        // What it says depends on the request's host (the id) and the pack: the
        // validator is the bytes' own checksum, so a client revalidates for free.
        let crc = body.withUnsafeBytes { tc_crc32(0, $0.baseAddress, $0.count) }
        var reply = Reply(bytes: body, contentType: Self.iiifContentType,
                          etag: "\"\(hash.hex)-info-\(String(crc, radix: 16))\"", cacheControl: "public, max-age=86400")
        reply.headers[.init("Link")!] = "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""
        return reply
    }

    func iiifImage(
        _ hash: BlobHash, region: String, size: String, rotation: String, qualityFormat: String, base: String
    ) async throws -> Reply {
        let parsed: IIIFImageRequest
        do {
            parsed = try IIIFImageRequest.parse(region: region, size: size, rotation: rotation, qualityAndFormat: qualityFormat)
        } catch {
            throw HTTPFailure(status: error.httpStatus, message: error.message)
        }
        // The pack knows the size: an image served from a bucket is not downloaded whole for it.
        let size: (width: Int, height: Int)
        if let pack = try await packs.pack(hash) {
            size = (pack.geometry.width, pack.geometry.height)
        } else {
            let facts = try await sources.facts(hash)
            size = (facts.width, facts.height)
        }
        let resolved: IIIFResolvedRequest
        do {
            resolved = try parsed.resolve(width: size.width, height: size.height, limits: iiifLimits)
        } catch {
            throw HTTPFailure(status: error.httpStatus, message: error.message)
        }
        let canonical = resolved.canonicalPath
        let contentType = resolved.format.mediaType
        let etag = "\"\(hash.hex)-iiif-\(canonical.replacingOccurrences(of: "\"", with: ""))\""
        // Pyramid tiles are kept in the image's tile format (PNG where it has alpha).
        let tileFormat = try await tileFormat(hash)
        let plain = resolved.rotation == 0 && !resolved.mirrored && resolved.format.rawValue == tileFormat.fileExtension
            && resolved.canonicalQuality == "default"
        let geometry = try await iiifGeometry(hash)
        // One of the pyramid's tiles (or a `sizes` entry): the pack's bytes, the
        // same ones Deep Zoom serves for that tile.
        let pyramidTile = plain ? geometry.iiifTile(region: resolved.canonicalRegion, size: resolved.sizeParameter) : nil
        var reply: Reply
        if let tile = pyramidTile, let pack = try await packs.pack(hash),
           let coordinate = pack.tileForIIIF(region: resolved.canonicalRegion, size: resolved.sizeParameter),
           coordinate == tile {
            let key = Self.tileKey(hash, pack.geometry, level: tile.level, column: tile.column, row: tile.row, format: pack.format)
            if let hit = memoryHit(key, etag: etag) {
                reply = hit
            } else {
                reply = await packTile(hash, pack, level: tile.level, column: tile.column, row: tile.row, key: key, etag: etag)
            }
        } else if let hit = memoryHit("iiif:\(hash.hex)/\(canonical)", etag: etag) {
            reply = hit
        } else {
            // Cut on request and kept in memory only (a crawler must not fill the
            // disk); a pyramid tile also starts the image's pack.
            let key = pyramidTile.map {
                Self.tileKey(hash, geometry, level: $0.level, column: $0.column, row: $0.row, format: tileFormat)
            }
                ?? "iiif:\(hash.hex)/\(canonical)"
            if pyramidTile != nil, let hit = memoryHit(key, etag: etag) {
                reply = hit
            } else {
                reply = try await made(key, contentType: contentType, etag: etag, persist: false) { [sources, pool, configuration] in
                    if let tile = pyramidTile {
                        return try await Self.cutTile(
                            hash, level: tile.level, column: tile.column, row: tile.row, layout: .iiif3,
                            options: TilePyramidOptions(
                                tileSize: geometry.tileSize, quality: configuration.quality, format: tileFormat),
                            sources: sources, pool: pool)
                    }
                    let scale = resolved.decodeScaleDenominator()
                    if scale == 1 {
                        let image = try await sources.pixels(hash)
                        return try await pool.run { try IIIFRenderer.render(resolved, source: image) }
                    }
                    let data = try await sources.bytes(hash)
                    return try await pool.run {
                        let image: PixelBuffer
                        do throws(ImagingError) {
                            image = try ImageDecoder.decode(
                                data, options: resolved.decodeOptions(DecodeOptions(maxPixels: configuration.maxPixels)))
                        } catch { throw sources.failed(hash, error) }
                        return try IIIFRenderer.render(resolved, source: image)
                    }
                }
                if pyramidTile != nil { await schedulePack(hash, geometry: geometry) }
            }
        }
        reply.headers[.init("Link")!] = "<\(base)/\(hash.hex)/\(canonical)>;rel=\"canonical\", <http://iiif.io/api/image/3/level2.json>;rel=\"profile\""
        return reply
    }
}
