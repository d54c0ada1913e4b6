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

/// `If-None-Match` against a strong ETag (weak comparison, as RFC 9110 asks for GET/HEAD).
enum ConditionalRequest {
    static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == bare { return true }
        }
        return false
    }
}
