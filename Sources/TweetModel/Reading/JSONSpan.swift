import Foundation

/// A JSON value as the byte ranges it was read from: objects with their members,
/// arrays with their elements, strings decoded, anything else left as its bytes.
///
/// What removing a post from a saved page needs (``JSONBlanking``): the page keeps
/// every byte it was served with but the post's, so it stays the API's response for
/// `fetch` and any other tool, and what is removed is found by where it is, not by a
/// decoder's view of it (which would write the page back re-encoded, ids and floats
/// at the mercy of its number types).
package struct JSONSpan: Sendable {
    package enum Value: Sendable {
        /// Members in file order; `item` runs from the key's opening quote to the
        /// value's end, as ``JSONBlanking`` removes a member.
        case object([Member], interior: Range<Int>)
        case array([JSONSpan], interior: Range<Int>)
        case string(String)
        /// A number, `true`, `false` or `null`, as written.
        case literal(String)
    }

    package struct Member: Sendable {
        package var key: String
        package var item: Range<Int>
        package var value: JSONSpan
    }

    package var range: Range<Int>
    package var value: Value

    /// Reads the whole of `bytes` as one JSON value; nil when it is not JSON this
    /// reader can follow (nesting deeper than `maxDepth` included: a stranger's page
    /// is not a stack overflow).
    package static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 128) -> JSONSpan? {
        var reader = Reader(scanner: JSONStructureScanner(bytes: bytes), maxDepth: maxDepth)
        reader.scanner.skipSpace()
        guard let value = reader.value(depth: 0) else { return nil }
        reader.scanner.skipSpace()
        return reader.scanner.atEnd ? value : nil
    }

    package subscript(key: String) -> JSONSpan? {
        guard case let .object(members, _) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, or the literal's text (`id` as a number in v1.1).
    package var text: String? {
        switch value {
        case let .string(s), let .literal(s): s
        default: nil
        }
    }

    package var elements: [JSONSpan] {
        if case let .array(elements, _) = value { return elements }
        return []
    }

    private struct Reader {
        var scanner: JSONStructureScanner
        let maxDepth: Int

        mutating func value(depth: Int) -> JSONSpan? {
            guard depth <= maxDepth, let first = scanner.peek() else { return nil }
            let start = scanner.position
            switch first {
            case UInt8(ascii: "{"):
                scanner.position += 1
                var members: [Member] = []
                scanner.skipSpace()
                let interiorStart = scanner.position
                if scanner.peek() == UInt8(ascii: "}") {
                    scanner.position += 1
                    return JSONSpan(range: start..<scanner.position, value: .object([], interior: interiorStart..<interiorStart))
                }
                while true {
                    scanner.skipSpace()
                    let keyStart = scanner.position
                    guard scanner.peek() == UInt8(ascii: "\""), let key = string() else { return nil }
                    scanner.skipSpace()
                    guard scanner.peek() == UInt8(ascii: ":") else { return nil }
                    scanner.position += 1
                    scanner.skipSpace()
                    guard let member = value(depth: depth + 1) else { return nil }
                    members.append(Member(key: key, item: keyStart..<member.range.upperBound, value: member))
                    scanner.skipSpace()
                    guard let next = scanner.peek() else { return nil }
                    scanner.position += 1
                    if next == UInt8(ascii: ",") { continue }
                    guard next == UInt8(ascii: "}") else { return nil }
                    return JSONSpan(range: start..<scanner.position,
                                    value: .object(members, interior: interiorStart..<(scanner.position - 1)))
                }
            case UInt8(ascii: "["):
                scanner.position += 1
                var elements: [JSONSpan] = []
                scanner.skipSpace()
                let interiorStart = scanner.position
                while true {
                    scanner.skipSpace()
                    if scanner.peek() == UInt8(ascii: "]") {
                        // `[]`, or a comma before the close (which Foundation reads too).
                        guard elements.isEmpty || scanner.bytes[lastNonSpace(before: scanner.position)] == UInt8(ascii: ",") else {
                            return nil
                        }
                        scanner.position += 1
                        return JSONSpan(range: start..<scanner.position,
                                        value: .array(elements, interior: interiorStart..<(scanner.position - 1)))
                    }
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                    scanner.skipSpace()
                    guard let next = scanner.peek() else { return nil }
                    if next == UInt8(ascii: ",") {
                        scanner.position += 1
                        continue
                    }
                    guard next == UInt8(ascii: "]") else { return nil }
                    scanner.position += 1
                    return JSONSpan(range: start..<scanner.position,
                                    value: .array(elements, interior: interiorStart..<(scanner.position - 1)))
                }
            case UInt8(ascii: "\""):
                guard let s = string() else { return nil }
                return JSONSpan(range: start..<scanner.position, value: .string(s))
            default:
                guard scanner.skipValue(), scanner.position > start else { return nil }
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: scanner.bytes[start..<scanner.position]), as: UTF8.self)
                return JSONSpan(range: start..<scanner.position, value: .literal(text))
            }
        }

        func lastNonSpace(before position: Int) -> Int {
            var i = position - 1
            while i > 0, JSONStructureScanner.isSpace(scanner.bytes[i]) { i -= 1 }
            return i
        }

        /// The string at the position, its escapes read by Foundation's decoder.
        mutating func string() -> String? {
            let start = scanner.position
            var plain = scanner
            if let s = plain.plainString() {
                scanner = plain
                return s
            }
            guard scanner.skipString() else { return nil }
            let data = Data(UnsafeRawBufferPointer(rebasing: scanner.bytes[start..<scanner.position]))
            return try? JSONDecoder().decode(String.self, from: data)
        }
    }
}
