extension String {
    /// The part of the string covered by `range`, counted in Unicode scalars as Twitter
    /// counts entity offsets; `nil` when the range does not fit, so a stale or hostile
    /// offset yields no text instead of a trap.
    ///
    /// The result may split a grapheme cluster (a ZWJ sequence, a base letter and its
    /// combining mark) when the range does: that is what the offsets say.
    public func substring(codePoints range: TextRange) -> Substring? {
        let scalars = unicodeScalars
        guard let lower = scalars.index(scalars.startIndex, offsetBy: range.start, limitedBy: scalars.endIndex),
              let upper = scalars.index(lower, offsetBy: range.count, limitedBy: scalars.endIndex)
        else { return nil }
        return Substring(scalars[lower..<upper])
    }

    /// The number of Unicode scalars, the unit of ``TextRange``.
    public var codePointCount: Int { unicodeScalars.count }
}
