/// The strict number syntax of IIIF request parameters: pixel values are
/// plain non-negative integers; percentages and rotation are decimal digits
/// with at most one `.` (no sign, exponent, `inf`, `nan` or spaces).
enum IIIFRequestNumber {
    /// Digits beyond this are refused: no image has 10^18 pixels on a side.
    static let maxIntegerDigits = 18
    /// Longest decimal accepted; keeps every value far from overflow.
    static let maxDecimalLength = 24

    /// A non-negative integer made only of ASCII digits.
    static func integer(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= maxIntegerDigits, text.utf8.allSatisfy(isDigit) else { return nil }
        return Int(text)
    }

    /// A non-negative decimal made of ASCII digits and at most one `.`, with
    /// at least one digit (`.5` and `5.` are tolerated).
    static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.count <= maxDecimalLength else { return nil }
        var dots = 0
        var digits = 0
        for byte in text.utf8 {
            if isDigit(byte) {
                digits += 1
            } else if byte == UInt8(ascii: ".") {
                dots += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        var normalized = String(text)
        if normalized.hasPrefix(".") { normalized = "0" + normalized }
        if normalized.hasSuffix(".") { normalized += "0" }
        guard let value = Double(normalized), value.isFinite else { return nil }
        return value
    }

    /// Largest pixel count on one side that the arithmetic carries; anything
    /// bigger is refused by limits or region checks long before it matters,
    /// and products of two such values cannot overflow.
    static let maxPixels = 1 << 31

    /// A computed pixel dimension: rounded, at least 1, capped at ``maxPixels``.
    static func pixels(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? maxPixels : 1 }
        return Int(min(max(value.rounded(), 1), Double(maxPixels)))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
