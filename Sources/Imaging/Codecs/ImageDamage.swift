/// What was wrong with a file that decoded all the same.
///
/// Browsers show damaged images rather than refuse them: a JPEG whose data ends
/// early shows its top rows, one with bad entropy data shows grey or smeared
/// blocks where the damage is, a GIF with an out-of-spec LZW code size shows its
/// pixels. The archive shows what they show, so a post's image is not missing for
/// a fault the viewer of the original post never saw; but it says so, in the
/// manifest and in `info`, because the bytes are not a whole image.
public struct ImageDamage: Sendable, Hashable, CustomStringConvertible {
    public var format: ImageFormat
    /// What is wrong and what the decoder did about it, in one line.
    public var reason: String

    public init(format: ImageFormat, reason: String) {
        self.format = format
        self.reason = reason
    }

    public var description: String { "damaged \(format): \(reason) (shown as browsers show it)" }
}

/// Pixels decoded from a file, and what was wrong with the file when it decoded
/// only in part or with repairs.
public struct DecodedImage: Sendable {
    public var image: PixelBuffer
    /// Nil for a sound file.
    public var damage: ImageDamage?

    public init(image: PixelBuffer, damage: ImageDamage? = nil) {
        self.image = image
        self.damage = damage
    }
}
