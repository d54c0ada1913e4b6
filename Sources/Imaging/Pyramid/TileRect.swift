/// A rectangle of pixels, in the coordinates of one pyramid level (or of the
/// full-resolution image for IIIF regions).
///
/// Half-open like Swift ranges: it covers `x..<x + width` by `y..<y + height`,
/// which keeps edge arithmetic free of off-by-one corrections.
public struct TileRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// One past the last column covered.
    public var maxX: Int { x + width }
    /// One past the last row covered.
    public var maxY: Int { y + height }

    /// `x,y,w,h`: the IIIF region syntax, also handy in messages.
    public var description: String { "\(x),\(y),\(width),\(height)" }
}
