/// A thumbnail made by ``Thumbnailer``: its pixels, its encoded file, and the
/// size of the image it stands for (recorded so a list can lay out the
/// original's aspect ratio without opening it).
public struct Thumbnail: Sendable, Hashable {
    /// The upright thumbnail pixels (RGBA when the source has transparency).
    public let image: PixelBuffer
    /// The file to store: JPEG, or PNG when the image has alpha (JPEG has none).
    public let encoded: [UInt8]
    /// The format of ``encoded``.
    public let format: ImageFormat
    /// Width of the source once its EXIF orientation is applied.
    public let sourceWidth: Int
    /// Height of the source once its EXIF orientation is applied.
    public let sourceHeight: Int
    /// What was wrong with the source file when it decoded only in part or with
    /// repairs, as browsers show it; nil for a sound file or a thumbnail of pixels.
    public var damage: ImageDamage? = nil

    public init(image: PixelBuffer, encoded: [UInt8], format: ImageFormat, sourceWidth: Int, sourceHeight: Int) {
        self.image = image
        self.encoded = encoded
        self.format = format
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
    }

    public var width: Int { image.width }
    public var height: Int { image.height }
}
