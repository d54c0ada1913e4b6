/// A half-open span of a tweet's text, counted in Unicode scalars (code points).
///
/// Both Twitter APIs count entity offsets in code points, not in UTF-16 units or
/// grapheme clusters: an emoji flag is two, a family emoji joined by ZWJs is five,
/// and "e" + a combining accent is two. Keeping the API's unit means offsets can be
/// used as served, and ``Swift/String/substring(codePoints:)`` slices them safely.
public struct TextRange: Sendable, Codable, Hashable, Comparable, CustomStringConvertible {
    /// Index of the first code point.
    public let start: Int
    /// Index one past the last code point.
    public let end: Int

    /// Creates a range, or `nil` when it is negative or inverted: offsets come from
    /// untrusted JSON, so a bad pair must not become a range that traps later.
    public init?(start: Int, end: Int) {
        guard start >= 0, end >= start else { return nil }
        self.start = start
        self.end = end
    }

    /// The number of code points covered.
    public var count: Int { end - start }

    public static func < (lhs: TextRange, rhs: TextRange) -> Bool {
        (lhs.start, lhs.end) < (rhs.start, rhs.end)
    }

    public var description: String { "[\(start), \(end))" }

    // Decoding re-validates so a stored manifest can never smuggle in an inverted range.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Int.self, forKey: .start)
        let end = try container.decode(Int.self, forKey: .end)
        guard let range = TextRange(start: start, end: end) else {
            throw DecodingError.dataCorruptedError(
                forKey: .end, in: container,
                debugDescription: "Text range [\(start), \(end)) is negative or inverted."
            )
        }
        self = range
    }

    private enum CodingKeys: String, CodingKey { case start, end }
}
