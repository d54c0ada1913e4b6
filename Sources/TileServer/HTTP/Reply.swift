import Foundation
import HTTPTypes
import NIOCore
import ObjectStore

/// A response before HTTP details (HEAD, conditional requests, common headers)
/// are applied, which happens once, in ``TileResponder``.
struct Reply: Sendable {
    var status: HTTPResponse.Status = .ok
    var body: ByteBuffer
    var contentType: String
    /// A strong validator; content-addressed responses derive it from the hash.
    var etag: String?
    var cacheControl: String
    var headers: HTTPFields = [:]
    /// Answers `Range` requests (originals: a video is sought, a large image resumed).
    var acceptsRanges = false
    /// A body sent as it arrives (a large original read cold from a bucket), in
    /// place of ``body``; never kept by the hot cache.
    var stream: ObjectStream?

    /// For what a hash names: the bytes behind a URL never change.
    static let immutable = "public, max-age=31536000, immutable"
    /// For listings and pages that change as the cache grows: always revalidate.
    static let revalidate = "no-cache"

    init(body: ByteBuffer, contentType: String, etag: String?, cacheControl: String) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.cacheControl = cacheControl
    }

    init(bytes: some Collection<UInt8>, contentType: String, etag: String?, cacheControl: String) {
        self.init(body: ByteBuffer(bytes: bytes), contentType: contentType, etag: etag, cacheControl: cacheControl)
    }

    init(text: String, contentType: String, etag: String? = nil, cacheControl: String = Reply.revalidate) {
        self.init(body: ByteBuffer(string: text), contentType: contentType, etag: etag, cacheControl: cacheControl)
    }

    static func redirect(to location: String, status: HTTPResponse.Status = .seeOther) -> Reply {
        var reply = Reply(text: "", contentType: "text/plain; charset=utf-8")
        reply.status = status
        reply.headers[.location] = location
        return reply
    }
}

/// `If-None-Match` against an ETag, as RFC 9110 §13.1.2 reads it: `*`, or a list
/// of entity-tags (`"opaque"` or `W/"opaque"`) compared weakly (the opaque parts
/// alone). An entity-tag may itself hold commas (a IIIF tile's is
/// `"<hash>-iiif-768,512,256,256/256,256/0/default.jpg"`), so the list is read
/// tag by tag between quotes, never split on commas.
package enum ConditionalRequest {
    package static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let ours = opaque(etag)
        var rest = Substring(header)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { return false }
            if rest.first == "*" { return true }
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return false }
            if rest[rest.index(after: rest.startIndex)..<close] == ours { return true }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// The part of an entity-tag between its quotes.
    static func opaque(_ etag: String) -> Substring {
        var tag = Substring(etag)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.first == "\"", tag.last == "\"" { tag = tag.dropFirst().dropLast() }
        return tag
    }
}

/// One `Range: bytes=…` request against a body of `length` bytes, as RFC 9110
/// §14.1.2 reads it: `first-last`, `first-` or `-suffix`. Several ranges at once
/// are answered whole (allowed, and no client of an image server needs them).
enum ByteRange: Equatable {
    /// Serve these bytes with 206.
    case satisfiable(Range<Int>)
    /// 416: the range starts past the end.
    case unsatisfiable
    /// Not a range this server answers: serve the whole body (200).
    case ignored

    static func parse(_ header: String, length: Int) -> ByteRange {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .ignored }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .ignored }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        func number(_ digits: Substring) -> Int? {
            guard !digits.isEmpty, digits.utf8.count <= 18, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
            return Int(digits)
        }
        if first.isEmpty {
            guard let suffix = number(last) else { return .ignored }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, length - suffix)..<length)
        }
        guard let start = number(first) else { return .ignored }
        let end: Int
        if last.isEmpty { end = length - 1 } else {
            guard let given = number(last), given >= start else { return .ignored }
            end = min(given, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .satisfiable(start..<(end + 1))
    }
}
