#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Names and describes a Deep Zoom pyramid: `NAME.dzi` beside `NAME_files/`,
/// tiles at `NAME_files/<level>/<column>_<row>.jpg`, the layout OpenSeadragon
/// and `vips dzsave` use.
///
/// The naming and the descriptor are public so a tile server can serve, or
/// make on demand, exactly the files a build would have written.
public struct DeepZoomWriter: Sendable {
    public let geometry: PyramidGeometry
    /// Base name of the descriptor and the tiles folder.
    public let name: String
    /// Folder that holds `NAME.dzi` and `NAME_files`.
    public let directory: URL
    /// The tiles' encoding, named by the descriptor's `Format` and the tiles' extension.
    public let format: PyramidPack.TileFormat
    /// `NAME_files` as a path, computed once rather than per tile.
    private let tilesRoot: String

    public init(geometry: PyramidGeometry, name: String, directory: URL, format: PyramidPack.TileFormat = .jpeg) {
        self.geometry = geometry
        self.name = name
        self.directory = directory
        self.format = format
        tilesRoot = directory.appending(path: "\(name)_files", directoryHint: .isDirectory).pyramidRootPath
    }

    /// `NAME.dzi`.
    public var descriptorURL: URL { directory.appending(path: "\(name).dzi", directoryHint: .notDirectory) }
    /// `NAME_files`, the folder of level folders.
    public var tilesURL: URL { directory.appending(path: "\(name)_files", directoryHint: .isDirectory) }

    /// A tile's path inside `NAME_files`: `<level>/<column>_<row>.<format>`.
    public static func tilePath(level: Int, column: Int, row: Int, format: String = "jpg") -> String {
        "\(level)/\(column)_\(row).\(format)"
    }

    /// The `.dzi` XML: format, overlap, tile size and full-resolution size,
    /// which is all a Deep Zoom viewer needs to compute every tile URL.
    public static func descriptor(for geometry: PyramidGeometry, format: String = "jpg") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="\(format)" \
        Overlap="\(geometry.overlap)" TileSize="\(geometry.tileSize)">
          <Size Width="\(geometry.width)" Height="\(geometry.height)"/>
        </Image>

        """
    }
}

extension DeepZoomWriter: TileSink {
    func target(level: PyramidLevel, column: Int, row: Int) -> TileTarget? {
        guard let rect = geometry.tileRect(level: level.index, column: column, row: row) else { return nil }
        let path = Self.tilePath(level: level.index, column: column, row: row, format: format.fileExtension)
        return TileTarget(rect: rect, paths: [tilesRoot + "/" + path])
    }

    func writeDescriptor() throws(ImagingError) -> Int {
        let bytes = Array(Self.descriptor(for: geometry, format: format.fileExtension).utf8)
        try TileFiles.write(bytes, to: descriptorURL.pyramidRootPath)
        return bytes.count
    }
}
