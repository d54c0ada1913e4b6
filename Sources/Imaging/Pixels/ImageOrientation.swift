/// How stored pixels must be turned to appear upright: the EXIF Orientation tag (1-8).
///
/// Cameras write pixels in sensor order and record the rotation instead of
/// applying it, so a decoder that ignores this shows phone photos sideways.
/// Case names follow the usual convention (UIKit's, among others) for the same
/// EXIF values.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180 degrees.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: must be rotated 90 degrees clockwise to display.
    case right = 6
    /// 7: mirrored along the anti-diagonal (transversed).
    case rightMirrored = 7
    /// 8: must be rotated 90 degrees counter-clockwise to display.
    case left = 8

    /// Whether displaying the image swaps its width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
