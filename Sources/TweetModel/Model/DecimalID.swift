/// Tweet ids as decimal strings, with the little arithmetic paging needs.
///
/// v1.1 pages backwards with `max_id` = (lowest id seen) - 1. Ids are 64-bit and JSON
/// numbers lose precision past 2^53, so the API gives `id_str`; doing the arithmetic on
/// the digits themselves means no id, however long, can overflow or be rounded.
public struct DecimalID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Digits only, no leading zeros ("0" for zero).
    public let digits: String

    /// Accepts ASCII digits only (leading zeros allowed), at most 40 of them.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 40, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        let trimmed = text.drop(while: { $0 == "0" })
        digits = trimmed.isEmpty ? "0" : String(trimmed)
    }

    private init(normalized: String) { digits = normalized }

    public var description: String { digits }

    /// The id just below this one, or nil for zero.
    public func predecessor() -> DecimalID? {
        guard digits != "0" else { return nil }
        var bytes = Array(digits.utf8)
        var i = bytes.count - 1
        while bytes[i] == UInt8(ascii: "0") {
            bytes[i] = UInt8(ascii: "9")
            i -= 1  // terminates: a nonzero number has a nonzero digit
        }
        bytes[i] -= 1
        let text = String(decoding: bytes.drop(while: { $0 == UInt8(ascii: "0") }), as: UTF8.self)
        return DecimalID(normalized: text.isEmpty ? "0" : text)
    }

    public static func < (a: DecimalID, b: DecimalID) -> Bool {
        a.digits.utf8.count != b.digits.utf8.count
            ? a.digits.utf8.count < b.digits.utf8.count
            : a.digits.utf8.lexicographicallyPrecedes(b.digits.utf8)
    }
}
