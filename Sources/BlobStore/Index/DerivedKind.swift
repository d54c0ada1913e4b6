/// What a derived-file row in the index is: a thumbnail or a pyramid pack today,
/// and the per-tile trees of the layout before packs, which `LayoutMigration`
/// still reads once.
///
/// A string underneath (the index's `kind` column), so a row written by a newer
/// build reads as a kind this one does not know rather than failing the whole
/// query; code compares against the named kinds, never against literals.
public struct DerivedKind: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    /// A thumbnail; the row's size parameter is its long edge in pixels.
    public static let thumbnail = DerivedKind(rawValue: "thumb")
    /// A pyramid pack; the row's size parameter is its tile size.
    public static let pack = DerivedKind(rawValue: "pack")
    /// The old layout's Deep Zoom tree (`derived/ab/<hex>/dz/`).
    public static let deepZoomTree = DerivedKind(rawValue: "dzi")
    /// The old layout's IIIF tree (`derived/ab/<hex>/iiif/`).
    public static let iiifTree = DerivedKind(rawValue: "iiif3")

    public var description: String { rawValue }

    public static func < (lhs: DerivedKind, rhs: DerivedKind) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
