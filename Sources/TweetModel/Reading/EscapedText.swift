/// Tweet text as served (`&`, `<`, `>` HTML-escaped) decoded, with a way to move the
/// API's entity offsets onto the decoded text.
///
/// Both API versions escape those three characters in `text` and count entity offsets
/// in the *escaped* text, so `&amp;` counts as five code points before any entity that
/// follows it. Storing escaped text would show users `&amp;`; storing decoded text with
/// the raw offsets would shift every later range. Decoding and translating the offsets
/// together keeps both right.
struct EscapedText {
    /// The decoded text.
    let text: String
    /// Code-point count of ``text``.
    let count: Int
    /// For each escaped offset 0...escapedCount, the decoded offset, or -1 inside an
    /// escape sequence. `nil` when the text had no escapes (offsets are unchanged).
    private let offsets: [Int]?

    private static let escapes: [(name: [Unicode.Scalar], value: Unicode.Scalar)] = [
        (Array("amp;".unicodeScalars), "&"),
        (Array("lt;".unicodeScalars), "<"),
        (Array("gt;".unicodeScalars), ">"),
    ]

    init(escaped: String) {
        guard escaped.unicodeScalars.contains("&") else {
            text = escaped
            count = escaped.unicodeScalars.count
            offsets = nil
            return
        }
        let scalars = Array(escaped.unicodeScalars)
        var decoded = String.UnicodeScalarView()
        var map = [Int](repeating: -1, count: scalars.count + 1)
        var index = 0
        var produced = 0
        while index < scalars.count {
            map[index] = produced
            if scalars[index] == "&", let match = Self.escape(in: scalars, after: index) {
                decoded.append(match.value)
                index += 1 + match.length   // offsets inside the sequence stay -1
            } else {
                decoded.append(scalars[index])
                index += 1
            }
            produced += 1
        }
        map[scalars.count] = produced
        text = String(decoded)
        count = produced
        offsets = map
    }

    private static func escape(in scalars: [Unicode.Scalar], after ampersand: Int) -> (value: Unicode.Scalar, length: Int)? {
        for escape in escapes {
            let end = ampersand + 1 + escape.name.count
            if end <= scalars.count, scalars[(ampersand + 1)..<end].elementsEqual(escape.name) {
                return (escape.value, escape.name.count)
            }
        }
        return nil
    }

    /// The decoded-text range for an API offset pair, or `nil` when the pair is not a
    /// valid range of the text (out of bounds, inverted, or cutting an escape in half).
    func range(_ indices: [Int]?) -> TextRange? {
        guard let indices, indices.count == 2 else { return nil }
        return range(start: indices[0], end: indices[1])
    }

    func range(start: Int?, end: Int?) -> TextRange? {
        guard let start, let end, let escapedRange = TextRange(start: start, end: end) else { return nil }
        guard let offsets else {
            return escapedRange.end <= count ? escapedRange : nil
        }
        guard escapedRange.end < offsets.count else { return nil }
        return TextRange(start: offsets[escapedRange.start], end: offsets[escapedRange.end])
    }
}
