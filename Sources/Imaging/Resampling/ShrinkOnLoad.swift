/// How much to let libjpeg shrink a JPEG while decoding it.
///
/// libjpeg-turbo can decode straight to 1/2, 1/4 or 1/8 size by running a
/// smaller inverse DCT (1/8 reads just each block's average), skipping most
/// of the decode work: this is where libvips's thumbnail speed comes from.
/// The result is only roughly filtered, though, so like `vips_thumbnail` we
/// stop while the decoded image is still at least twice the target and let
/// Lanczos do the final, high-quality reduction.
public enum ShrinkOnLoad {
    /// The scale denominators libjpeg-turbo's scaled IDCT offers, largest first.
    static let denominators = [8, 4, 2]

    /// The largest JPEG scale denominator (8, 4, 2, or 1 for a full decode)
    /// at which a `sourceWidth` x `sourceHeight` image still decodes to at
    /// least `headroom` times `targetWidth` x `targetHeight` on both axes.
    ///
    /// Sizes are all in the stored (not EXIF-rotated) orientation. A
    /// `headroom` of 2 is libvips's rule; 1 decodes smaller and faster but
    /// leaves the 1/8 decode's block averaging visible (a box filter).
    public static func scaleDenominator(
        sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int, headroom: Int = 2
    ) -> Int {
        guard sourceWidth > 0, sourceHeight > 0, targetWidth > 0, targetHeight > 0, headroom > 0 else { return 1 }
        for denominator in denominators {
            if fits(sourceWidth, targetWidth, headroom, denominator),
               fits(sourceHeight, targetHeight, headroom, denominator) {
                return denominator
            }
        }
        return 1
    }

    /// Whether `ceil(source / denominator) >= headroom * target`, overflow-safe.
    private static func fits(_ source: Int, _ target: Int, _ headroom: Int, _ denominator: Int) -> Bool {
        let (needed, overflow) = headroom.multipliedReportingOverflow(by: target)
        guard !overflow else { return false }
        let decoded = source / denominator + (source % denominator == 0 ? 0 : 1)
        return decoded >= needed
    }
}
