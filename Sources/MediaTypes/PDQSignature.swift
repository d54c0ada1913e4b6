/// An image's PDQ hash, its quality, and the hashes of its seven turned and mirrored
/// versions, all from one decode.
///
/// The dihedral hashes are what let a search find a repost that was flipped or rotated:
/// the reference computes them from the same 16x16 DCT block by sign changes and a
/// transpose, so they cost a few microseconds, not seven more decodes.
public struct PDQSignature: Sendable, Hashable {
    /// The hash of the image as displayed (``PDQTransform/original``).
    public var hash: PDQHash { dihedral[0] }
    /// 0...100: how much the image varies. Below ``PDQSignature/minimumUsefulQuality``
    /// (a flat colour, a nearly blank frame) the hash says little and is not grouped.
    public var quality: Int
    /// One hash per ``PDQTransform``, in its order.
    public var dihedral: [PDQHash]

    public init(quality: Int, dihedral: [PDQHash]) {
        precondition(dihedral.count == PDQTransform.allCases.count, "a PDQ signature has 8 dihedral hashes")
        self.quality = quality
        self.dihedral = dihedral
    }

    /// The reference's advice: hashes of lower quality match too much to be trusted.
    public static let minimumUsefulQuality = 50

    /// Whether the hash is worth matching (see ``minimumUsefulQuality``).
    public var isUseful: Bool { quality >= Self.minimumUsefulQuality }

    /// The hash of the image turned or mirrored by `transform`.
    public func hash(_ transform: PDQTransform) -> PDQHash { dihedral[transform.rawValue] }
}

/// The eight ways to turn or mirror a picture, in the reference's order.
public enum PDQTransform: Int, Sendable, CaseIterable, CustomStringConvertible {
    case original, rotate90, rotate180, rotate270, flipX, flipY, flipPlus1, flipMinus1

    public var description: String {
        switch self {
        case .original: "as is"
        case .rotate90: "rotated 90°"
        case .rotate180: "rotated 180°"
        case .rotate270: "rotated 270°"
        case .flipX: "flipped top to bottom"
        case .flipY: "mirrored left to right"
        case .flipPlus1: "mirrored on the diagonal"
        case .flipMinus1: "mirrored on the anti-diagonal"
        }
    }
}

extension PDQSignature {
    /// The eight hashes as 256 bytes, in ``PDQTransform`` order: how indexes store them.
    public var packed: [UInt8] { dihedral.flatMap(\.bytes) }

    /// Reads ``packed``; nil unless exactly 256 bytes and a quality in 0...100.
    public init?(quality: Int, packed: [UInt8]) {
        guard packed.count == 32 * PDQTransform.allCases.count, (0...100).contains(quality) else { return nil }
        let hashes: [PDQHash] = (0..<PDQTransform.allCases.count).compactMap { (i: Int) -> PDQHash? in
            let start: Int = i * 32
            return PDQHash(bytes: packed[start..<start + 32])
        }
        self.init(quality: quality, dihedral: hashes)
    }
}
