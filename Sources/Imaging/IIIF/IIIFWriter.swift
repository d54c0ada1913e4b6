#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Names and describes a static IIIF Image API 3.0 level-0 tree:
/// `info.json` plus one file per tile and per listed size, at the paths a
/// viewer requests (see ``PyramidGeometry`` `iiifPaths`), so any static file
/// server can serve it.
public struct IIIFWriter: Sendable {
    public let geometry: PyramidGeometry
    /// The image's base URI, written as `info.json`'s `id`.
    public let id: String
    /// Folder that plays the role of the base URI: holds `info.json` and the tile folders.
    public let directory: URL
    /// The tiles' encoding: their extension, and `preferredFormats` for PNG.
    public let format: PyramidPack.TileFormat
    /// ``directory`` as a path, computed once rather than per tile.
    private let root: String

    public init(geometry: PyramidGeometry, id: String, directory: URL, format: PyramidPack.TileFormat = .jpeg) {
        self.geometry = geometry
        self.id = id
        self.directory = directory
        self.format = format
        root = directory.pyramidRootPath
    }

    /// `info.json` inside ``directory``.
    public var infoURL: URL { directory.appending(path: "info.json", directoryHint: .notDirectory) }

    /// What `info.json` says.
    public var info: IIIFImageInfo {
        var info = IIIFImageInfo(geometry: geometry, id: id)
        // A level-0 service promises only jpg: PNG or WebP tiles are named as an extra format too.
        if format.keepsAlpha {
            info.preferredFormats = [format.fileExtension]
            info.extraFormats = [format.fileExtension]
        }
        return info
    }
}

extension IIIFWriter: TileSink {
    func target(level: PyramidLevel, column: Int, row: Int) -> TileTarget? {
        let paths = geometry.iiifPaths(level: level.index, column: column, row: row, format: format.fileExtension)
        guard !paths.isEmpty, let rect = geometry.iiifTileRect(level: level.index, column: column, row: row) else {
            return nil
        }
        return TileTarget(rect: rect, paths: paths.map { root + "/" + $0 })
    }

    func writeDescriptor() throws(ImagingError) -> Int {
        let bytes = try info.jsonBytes()
        try TileFiles.write(bytes, to: infoURL.pyramidRootPath)
        return bytes.count
    }
}
