import BlobStore
import Foundation
import HTTPTypes
import Hummingbird
import Imaging
import Pipeline

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

    func iiifInfo(_ hash: BlobHash, request: Request) throws -> Reply {
        let facts = try sources.facts(hash)
        let geometry: PyramidGeometry
        do {
            geometry = try PyramidGeometry(width: facts.width, height: facts.height, tileSize: configuration.tileSize)
        } catch {
            throw HTTPFailure.unprocessable("cannot describe \(hash.hex): \(error)")
        }
        let info = IIIFImageInfo(geometry: geometry, id: "\(iiifBase(request))/\(hash.hex)").level2(limits: iiifLimits)
        let body = try info.jsonBytes()
        var reply = Reply(bytes: body, contentType: Self.iiifContentType, etag: nil, cacheControl: "public, max-age=86400")
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
        let facts = try sources.facts(hash)
        let resolved: IIIFResolvedRequest
        do {
            resolved = try parsed.resolve(width: facts.width, height: facts.height, limits: iiifLimits)
        } catch {
            throw HTTPFailure(status: error.httpStatus, message: error.message)
        }
        let canonical = resolved.canonicalPath
        let folder = String(DerivedFiles(cacheRoot: files.root).iiif(hash).dropLast("info.json".count))
        let relative = folder + canonical
        let contentType = resolved.format.mediaType
        let etag = "\"\(hash.hex)-iiif-\(canonical.replacingOccurrences(of: "\"", with: ""))\""
        // The pipeline's static tree names tiles `region/w,h/...` even where the
        // canonical size is `max`.
        let staticPath = folder + "\(resolved.canonicalRegion)/\(resolved.sizeParameter)/\(resolved.canonicalRotation)/\(resolved.canonicalQuality).\(resolved.format.rawValue)"
        var reply: Reply
        if let hit = cached(relative, contentType: contentType, etag: etag) {
            reply = hit
        } else if staticPath != relative, let hit = cached(staticPath, contentType: contentType, etag: etag) {
            reply = hit
        } else {
            // One of the pyramid's own tiles: made exactly as a full build makes it,
            // and kept on disk. Other renditions live in memory only.
            let pyramidTile: TileCoordinate? =
                if resolved.rotation == 0, !resolved.mirrored, resolved.format == .jpg, resolved.canonicalQuality == "default",
                   let geometry = try? PyramidGeometry(width: facts.width, height: facts.height, tileSize: configuration.tileSize) {
                    geometry.iiifTile(region: resolved.canonicalRegion, size: resolved.sizeParameter)
                } else { nil }
            reply = try await made(relative, contentType: contentType, etag: etag, persist: pyramidTile != nil) { [sources, pool, configuration] in
                if let tile = pyramidTile {
                    let image = try await sources.pixels(hash)
                    return try await pool.run {
                        try TilePyramidBuilder.tile(
                            of: image, level: tile.level, column: tile.column, row: tile.row, layout: .iiif3,
                            options: TilePyramidOptions(tileSize: configuration.tileSize, quality: configuration.quality))
                    }
                }
                let scale = resolved.decodeScaleDenominator()
                if scale == 1 {
                    let image = try await sources.pixels(hash)
                    return try await pool.run { try IIIFRenderer.render(resolved, source: image) }
                }
                return try await pool.run {
                    let image = try ImageDecoder.decode(
                        try sources.bytes(hash), options: resolved.decodeOptions(DecodeOptions(maxPixels: configuration.maxPixels)))
                    return try IIIFRenderer.render(resolved, source: image)
                }
            }
        }
        reply.headers[.init("Link")!] = "<\(base)/\(hash.hex)/\(canonical)>;rel=\"canonical\", <http://iiif.io/api/image/3/level2.json>;rel=\"profile\""
        return reply
    }
}
