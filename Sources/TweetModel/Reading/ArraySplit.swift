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
        var scanner = JSONStructureScanner(bytes: bytes)
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
}
