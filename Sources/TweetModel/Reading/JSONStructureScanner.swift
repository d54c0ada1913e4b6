import Foundation

/// Finds the structure of JSON bytes without reading their values: strings (with
/// their escapes), nesting, separators. What cuts a document into parts before a
/// decoder reads them: the results array of a search page (``ArraySplit``) and the
/// posts of a run's manifest (the catalog's `ManifestFile`).
///
/// It never judges the JSON: it only says where things are, and gives up (nil,
/// false) where the structure does not add up, a bracket closed by the other kind or
/// a string that does not end; whatever it hands out is still decoded by a decoder
/// that does judge.
package struct JSONStructureScanner {
    package let bytes: UnsafeRawBufferPointer
    package var position = 0
    /// A faster way past an object or array, given the bytes and the offset of its
    /// bracket: the offset just past its close, or nil to walk it here. It must end
    /// every container where ``skipValue()`` does; a container it gives up on (or does
    /// not end) is walked here, which also says where it went wrong.
    package typealias ContainerEnd = (UnsafeRawBufferPointer, Int) -> Int?
    private let containerEnd: ContainerEnd?

    package init(bytes: UnsafeRawBufferPointer, position: Int = 0, containerEnd: ContainerEnd? = nil) {
        self.bytes = bytes
        self.position = position
        self.containerEnd = containerEnd
    }

    package var atEnd: Bool { position >= bytes.count }
    package func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    package mutating func skipSpace() {
        while position < bytes.count, Self.isSpace(bytes[position]) {
            position += 1
            skipSpaces()
        }
    }

    /// Past a run of ` `, eight bytes at a time (``spaces(in:at:)``).
    @inline(__always)
    private mutating func skipSpaces() {
        position += Self.spaces(in: bytes, at: position)
    }

    /// How many ` ` start at `offset`, counted eight bytes at a time up to the last
    /// whole word (the caller's byte loop does the rest): a pretty-printed manifest is
    /// a third indentation, and a scan of a million posts' went through it byte by byte.
    /// Also the catalog's strict reader's.
    @inline(__always)
    package static func spaces(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
        var position = offset
        while position + 8 <= bytes.count {
            let other = word(in: bytes, at: position) ^ 0x2020_2020_2020_2020
            // The first byte that is not a space: the lowest non-zero byte.
            guard other == 0 else { return position - offset + other.trailingZeroBitCount >> 3 }
            position += 8
        }
        return position - offset
    }

    /// The eight bytes at `offset` (at most `bytes.count - 8`), the first the lowest.
    @inline(__always)
    package static func word(in bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.baseAddress!.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A string without escapes (a key), or nil.
    package mutating func plainString() -> String? {
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
    package mutating func skipString() -> Bool {
        position += 1
        let count = bytes.count
        while true {
            // Eight bytes at a time up to the next quote or backslash: most of a post's
            // bytes are in its strings, and a scan of a million posts' manifests went
            // byte by byte through them (one scan took 1.5 s of 2 GB).
            while position + 8 <= count, !Self.hasQuoteOrBackslash(Self.word(in: bytes, at: position)) {
                position += 8
            }
            guard position < count else { return false }
            let b = bytes[position]
            if b == UInt8(ascii: "\\") {
                position += 2
                continue
            }
            position += 1
            if b == UInt8(ascii: "\"") { return true }
        }
    }

    /// Whether any of the eight bytes of `word` is a quote or a backslash (a byte equal to one
    /// is a zero byte of the word xor'ed with it; the classic zero-byte test).
    @inline(__always)
    static func hasQuoteOrBackslash(_ word: UInt64) -> Bool {
        let low: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ 0x2222_2222_2222_2222, backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((quote &- low) & ~quote | (backslash &- low) & ~backslash) & high != 0
    }

    /// Whether all eight bytes of `word` are printable ASCII other than a quote or a
    /// backslash: what a string's bytes may be read past without a look at each (a
    /// byte below 0x20 is found by the same borrow test as a zero byte; one of 0x80 or
    /// more by its top bit).
    @inline(__always)
    package static func isPlainASCII(_ word: UInt64) -> Bool {
        let low: UInt64 = 0x2020_2020_2020_2020, high: UInt64 = 0x8080_8080_8080_8080
        return !hasQuoteOrBackslash(word) && ((word &- low) & ~word | word) & high == 0
    }

    /// Past one value of any kind; false when it does not end or a bracket is closed
    /// by the other kind.
    package mutating func skipValue() -> Bool {
        guard let b = peek() else { return false }
        if b == UInt8(ascii: "\"") { return skipString() }
        if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
            if let containerEnd, let end = containerEnd(bytes, position) {
                position = end
                return true
            }
            // What each open bracket is, one bit a level (set for `{`), without an
            // array allocated per value; deeper than 64 levels, in an array.
            var depth = 0
            var objects: UInt64 = 0
            var deeper: [Bool] = []
            while position < bytes.count {
                let c = bytes[position]
                if c == UInt8(ascii: "\"") {
                    guard skipString() else { return false }
                    continue
                }
                position += 1
                if Self.isSpace(c) {
                    skipSpaces()
                    continue
                }
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    let object = c == UInt8(ascii: "{")
                    if depth < 64 {
                        objects = object ? objects | 1 << depth : objects & ~(1 << depth)
                    } else {
                        deeper.append(object)
                    }
                    depth += 1
                } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    guard depth > 0 else { return false }
                    depth -= 1
                    let object = depth < 64 ? objects >> depth & 1 == 1 : deeper.removeLast()
                    guard object == (c == UInt8(ascii: "}")) else { return false }
                    if depth == 0 { return true }
                }
            }
            return false
        }
        // A number, true, false or null: up to the next separator.
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || Self.isSpace(c) { break }
            position += 1
        }
        return true
    }

    /// Walks the array at `position`, calling `element` with each element's range
    /// (without separators and white space); returns the position of its `]`, or nil
    /// when the array does not add up. Stops early when `element` returns false.
    package mutating func walkArray(_ element: (Range<Int>) throws -> Bool) rethrows -> Int? {
        position += 1  // "["
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            let close = position
            position += 1
            return close
        }
        while true {
            skipSpace()
            let start = position
            guard skipValue(), position > start else { return nil }
            guard try element(start..<position) else { return nil }
            skipSpace()
            guard var next = peek() else { return nil }
            if next == UInt8(ascii: ",") {
                position += 1
                skipSpace()
                // A comma before the close: Foundation's decoder reads `[1, 2, ]`, so
                // the parts cut from a document must too.
                guard peek() == UInt8(ascii: "]") else { continue }
                next = UInt8(ascii: "]")
            }
            guard next == UInt8(ascii: "]") else { return nil }
            let close = position
            position += 1
            return close
        }
    }

    /// The elements of the array at `position`, and the position of its `]`.
    package mutating func arrayElements() -> (elements: [Range<Int>], close: Int)? {
        var elements: [Range<Int>] = []
        guard let close = walkArray({ elements.append($0); return true }) else { return nil }
        return (elements, close)
    }
}
