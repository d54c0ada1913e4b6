import Foundation

/// The two numbers of a `.dzi` a reader needs back to address its tiles: tile
/// size and overlap (the size comes from the image itself). Read from the text
/// without an XML parser: ``DeepZoomWriter/descriptor(for:format:)`` writes a
/// fixed form, and anything else (a file damaged, or not ours) reads as nil.
public struct DeepZoomDescriptor: Sendable, Equatable {
    public var tileSize: Int
    public var overlap: Int

    public init?(_ xml: String) {
        guard let size = Self.attribute("TileSize", in: xml), let overlap = Self.attribute("Overlap", in: xml),
              PyramidGeometry.tileSizes.contains(size), (0..<size).contains(overlap) else { return nil }
        tileSize = size
        self.overlap = overlap
    }

    private static func attribute(_ name: String, in xml: String) -> Int? {
        guard let start = xml.range(of: "\(name)=\"") else { return nil }
        let digits = xml[start.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty || digits.count > 5 ? nil : Int(digits)
    }
}
