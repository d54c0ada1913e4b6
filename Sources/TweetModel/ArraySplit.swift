import Foundation

/// Where the big array of a JSON document is, so the document can be cut into smaller
/// documents of the same shape, each with a run of the array's elements.
///
/// A results file is almost all one array (`statuses`, `data`, a timeline): 10,000
/// posts decode in ~150 ms on one thread. Cut into one document per core — the bytes
/// before the array, a slice of its elements, the bytes after it — they decode at
/// once through the same path. The scan only finds structure (strings, nesting,
/// commas); it never judges the JSON, and anything it does not understand (a key with
/// an escape, an unbalanced bracket) means "no split": the document is parsed whole.
struct ArraySplit {
    /// The member holding the array, or nil when the document itself is the array.
    let key: String?
    /// Everything up to and including the array's `[`.
    let head: Range<Int>
    /// Each element's bytes, without the separating commas and whitespace.
    let elements: [Range<Int>]
    /// From the array's `]` to the end.
    let tail: Range<Int>

    /// The array that holds at least `minimumShare` of the document's bytes, at the top
    /// level or as a member of a top-level object, or nil.
    static func find(in bytes: UnsafeRawBufferPointer, minimumShare: Double = 0.9) -> ArraySplit? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipSpace()
        guard let first = scanner.peek() else { return nil }
        if first == UInt8(ascii: "[") {
            let open = scanner.position
            guard let (elements, close) = scanner.arrayElements() else { return nil }
            scanner.skipSpace()
            guard scanner.atEnd else { return nil }
            return ArraySplit(key: nil, head: 0..<(open + 1), elements: elements, tail: close..<bytes.count)
        }
        guard first == UInt8(ascii: "{") else { return nil }
        scanner.position += 1
        var best: (key: String, open: Int, elements: [Range<Int>], close: Int)?
        // A key given twice: which copy a decoder keeps is its own business, so no cut.
        var keys = Set<String>()
        scanner.skipSpace()
        if scanner.peek() == UInt8(ascii: "}") { return nil }
        while true {
            scanner.skipSpace()
            guard let key = scanner.plainString(), keys.insert(key).inserted else { return nil }
            scanner.skipSpace()
            guard scanner.peek() == UInt8(ascii: ":") else { return nil }
            scanner.position += 1
            scanner.skipSpace()
            if scanner.peek() == UInt8(ascii: "[") {
                let open = scanner.position
                guard let (elements, close) = scanner.arrayElements() else { return nil }
                if close - open > (best.map { $0.close - $0.open } ?? -1) { best = (key, open, elements, close) }
            } else {
                guard scanner.skipValue() else { return nil }
            }
            scanner.skipSpace()
            guard let next = scanner.peek() else { return nil }
            scanner.position += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        scanner.skipSpace()
        guard scanner.atEnd, let best, Double(best.close - best.open) >= minimumShare * Double(bytes.count) else {
            return nil
        }
        return ArraySplit(key: best.key, head: 0..<(best.open + 1), elements: best.elements,
                          tail: best.close..<bytes.count)
    }

    /// The document with only `elements[range]` in the array.
    func document(_ range: Range<Int>, of bytes: UnsafeRawBufferPointer) -> Data {
        var out = Data(capacity: head.count + tail.count + (range.isEmpty ? 0 : elements[range.upperBound - 1].upperBound - elements[range.lowerBound].lowerBound))
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[head]))
        for i in range {
            if i > range.lowerBound { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[elements[i]]))
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[tail]))
        return out
    }

    /// Finds structure only: strings (with escapes), nesting, separators.
    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var atEnd: Bool { position >= bytes.count }
        func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpace() {
            while position < bytes.count, ResultsParser.isWhitespace(bytes[position]) { position += 1 }
        }

        /// A string without escapes (a key), or nil.
        mutating func plainString() -> String? {
            guard peek() == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            var i = start
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\") { return nil }
                i += 1
            }
            guard i < bytes.count else { return nil }
            position = i + 1
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        }

        /// Past one string; false when it does not end.
        mutating func skipString() -> Bool {
            position += 1
            while position < bytes.count {
                let b = bytes[position]
                if b == UInt8(ascii: "\\") {
                    position += 2
                    continue
                }
                position += 1
                if b == UInt8(ascii: "\"") { return true }
            }
            return false
        }

        /// Past one value of any kind; false when its brackets do not balance.
        mutating func skipValue() -> Bool {
            guard let b = peek() else { return false }
            if b == UInt8(ascii: "\"") { return skipString() }
            if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                var depth = 0
                while position < bytes.count {
                    let c = bytes[position]
                    if c == UInt8(ascii: "\"") {
                        guard skipString() else { return false }
                        continue
                    }
                    position += 1
                    if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                        depth += 1
                    } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 { return true }
                    }
                }
                return false
            }
            // A number, true, false or null: up to the next separator.
            while position < bytes.count {
                let c = bytes[position]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || ResultsParser.isWhitespace(c) {
                    break
                }
                position += 1
            }
            return true
        }

        /// The elements of the array at `position`, and the position of its `]`.
        mutating func arrayElements() -> (elements: [Range<Int>], close: Int)? {
            position += 1  // "["
            var elements: [Range<Int>] = []
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                let close = position
                position += 1
                return (elements, close)
            }
            while true {
                skipSpace()
                let start = position
                guard skipValue(), position > start else { return nil }
                elements.append(start..<position)
                skipSpace()
                guard let next = peek() else { return nil }
                if next == UInt8(ascii: "]") {
                    let close = position
                    position += 1
                    return (elements, close)
                }
                guard next == UInt8(ascii: ",") else { return nil }
                position += 1
            }
        }
    }
}
