import Foundation
import TweetModel

/// A strict JSON reader over bytes, for the narrow views of a manifest's posts that
/// bulk readers decode by the million (the catalog's ``PostFacts``, sync's
/// ``FetchedObjects``): each method returns nil (or false) both when the JSON is wrong
/// and when it is merely unusual, and the caller then lets Foundation's decoder read
/// the post. So a post read here is the post Foundation reads: a key given twice, a
/// lone surrogate, a number Foundation reads by rules of its own (a fraction, an
/// exponent, more than 18 digits for an `Int`), a trailing comma or nesting deeper
/// than 64 are all left to it.
package struct StrictJSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var i = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Where the next read starts.
    package var position: Int { i }

    /// True when only white space is left: the value read was the whole input.
    package var atEnd: Bool {
        mutating get {
            space()
            return i == bytes.count
        }
    }

    /// What `read` reads from `bytes`, when that is all of them (white space aside);
    /// nil when it gives up or bytes are left.
    package static func whole<T>(_ bytes: UnsafeRawBufferPointer, _ read: (inout StrictJSONReader) -> T?) -> T? {
        var reader = StrictJSONReader(bytes)
        guard let value = read(&reader), reader.atEnd else { return nil }
        return value
    }

    /// `T` from `bytes`: by `read` when it reads them whole, else by Foundation's
    /// decoder (which also says what is wrong with bytes that are not a `T`).
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer,
                                             by read: (inout StrictJSONReader) -> T?) throws -> T {
        if let value = whole(bytes, read) { return value }
        return try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// Sets `slot` to `value` if it was not set: false for a key given twice (which
    /// copy counts is Foundation's business) and for a value that did not read.
    package func once<T>(_ slot: inout T?, _ value: T?) -> Bool {
        guard slot == nil, let value else { return false }
        slot = value
        return true
    }

    // MARK: - JSON

    private mutating func space() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09:
                i += 1
                // A manifest is pretty-printed: indentation, eight spaces at a time.
                i += JSONStructureScanner.spaces(in: bytes, at: i)
            default: return
            }
        }
    }

    /// Past the plain ASCII at `i`, eight bytes at a time (a string's bytes with no
    /// quote, backslash, control byte or byte beyond ASCII among them).
    @inline(__always)
    private mutating func passPlainASCII() {
        while i + 8 <= bytes.count, JSONStructureScanner.isPlainASCII(JSONStructureScanner.word(in: bytes, at: i)) { i += 8 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        space()
        guard i < bytes.count, bytes[i] == byte else { return false }
        i += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard i + count <= bytes.count else { return false }
        for k in 0..<count where bytes[i + k] != text.utf8Start[k] { return false }
        i += count
        return true
    }

    /// `null` as `.some(nil)`, a value as `.some(value)`, nil when neither reads.
    package mutating func optional<T>(_ read: (inout StrictJSONReader) -> T?) -> T?? {
        space()
        if i < bytes.count, bytes[i] == UInt8(ascii: "n") { return literal("null") ? .some(nil) : nil }
        return read(&self).map { .some($0) }
    }

    /// An object's members: `member` reads (or skips) each value after its key.
    package mutating func object(_ member: (inout StrictJSONReader, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        while true {
            space()
            guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    package mutating func array<T>(_ element: (inout StrictJSONReader) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var result: [T] = []
        if take(UInt8(ascii: "]")) { return result }
        while true {
            guard let value = element(&self) else { return nil }
            result.append(value)
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? result : nil
        }
    }

    /// A string: escapes read, control characters refused, UTF-8 checked.
    package mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = i
        var plain = true
        var ascii = true
        while i < bytes.count {
            passPlainASCII()
            guard i < bytes.count else { break }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                defer { i += 1 }
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
                if plain, ascii { return String(decoding: raw, as: UTF8.self) }
                return plain ? String(validating: raw, as: UTF8.self) : unescaped(raw)
            }
            if b >= 0x80 { ascii = false }
            if b < 0x20 { return nil }
            if b == UInt8(ascii: "\\") {
                plain = false
                i += 2
            } else {
                i += 1
            }
        }
        return nil
    }

    private func unescaped(_ raw: UnsafeRawBufferPointer) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for j in at..<at + 4 {
                let c = raw[j]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x61...0x66: digit = UInt32(c - 0x57)
                case 0x41...0x46: digit = UInt32(c - 0x37)
                default: return nil
                }
                value = value << 4 | digit
            }
            return value
        }
        while k < raw.count {
            let b = raw[k]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                k += 1
                continue
            }
            guard k + 1 < raw.count else { return nil }
            let e = raw[k + 1]
            k += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(k) else { return nil }
                k += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // A pair, or nothing this reader takes.
                    guard k + 1 < raw.count, raw[k] == UInt8(ascii: "\\"), raw[k + 1] == UInt8(ascii: "u"),
                          let low = hex4(k + 2), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    k += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return nil
                }
                guard let s = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: UTF8.encode(s)!)
            default:
                return nil
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Past a string, refused where ``string()`` refuses it: one of plain ASCII is
    /// passed without being made (most skipped values, paths and URLs), any other is
    /// read.
    private mutating func skipString() -> Bool {
        let start = i
        i += 1
        while true {
            passPlainASCII()
            guard i < bytes.count else { return false }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return true
            }
            guard b >= 0x20, b < 0x80, b != UInt8(ascii: "\\") else { break }
            i += 1
        }
        i = start
        return string() != nil
    }

    /// A JSON integer that fits an `Int` (no fraction, no exponent: those Foundation
    /// reads by rules of its own).
    package mutating func int() -> Int? {
        space()
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digits = i
        while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        let count = i - digits
        guard count > 0, count <= 18, !(count > 1 && bytes[digits] == 0x30) else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] | 0x20 == UInt8(ascii: "e") { return nil }
        return Int(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
    }

    /// Past one value of any kind, checked as strictly as a read one.
    package mutating func skip(depth: Int = 0) -> Bool {
        guard depth < 64 else { return false }
        space()
        guard i < bytes.count else { return false }
        switch bytes[i] {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"): return object { r, _ in r.skip(depth: depth + 1) }
        case UInt8(ascii: "["): return array { $0.skip(depth: depth + 1) ? () : nil } != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    /// A JSON number by its grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> Bool {
        func digits() -> Int {
            let start = i
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
            return i - start
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let first = i
        let whole = digits()
        guard whole > 0, !(whole > 1 && bytes[first] == 0x30) else { return false }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }
}

