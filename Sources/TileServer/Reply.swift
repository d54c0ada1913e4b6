import Foundation
import HTTPTypes
import NIOCore

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
