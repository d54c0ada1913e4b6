import NIOCore
import NIOHTTP1

/// A complete `200` answer to a `GET` of an immutable resource, kept under the
/// request's `Host` and target exactly as the client sent them, so the
/// ``HotResponseHandler`` can repeat it without the async responder.
package struct HotResponse: MemoryCost {
    package struct Key: Hashable, Sendable {
        var authority: String?
        var target: String

        package init(authority: String?, target: String) {
            self.authority = authority
            self.target = target
        }
    }

    /// Every header of the responder's answer but `Date`, which is added per answer.
    var headers: HTTPHeaders
    var body: ByteBuffer
    /// The route's request counter and latency histogram, looked up once.
    var metrics: ServerMetrics.RequestMetrics
    /// The key's length when it was made: kept keys are short (``maxTargetBytes``).
    var keyBytes: Int
    /// Body, key and a rough figure for the headers (kept twice: as fields and as bytes).
    package var bytes: Int { body.readableBytes + keyBytes + 512 + head.readableBytes }

    /// The status line and every header but `Date`, as bytes: written as they are,
    /// with `Date` and the blank line after them, without encoding a head again.
    var head: ByteBuffer

    package init(headers: HTTPHeaders, body: ByteBuffer, metrics: ServerMetrics.RequestMetrics, keyBytes: Int) {
        self.headers = headers
        var head = ByteBuffer()
        head.writeStaticString("HTTP/1.1 200 OK\r\n")
        for (name, value) in headers {
            head.writeString(name)
            head.writeStaticString(": ")
            head.writeString(value)
            head.writeStaticString("\r\n")
        }
        self.head = head
        self.body = body
        self.metrics = metrics
        self.keyBytes = keyBytes
    }

    /// Longer targets or hosts are answered by the responder every time.
    static let maxTargetBytes = 512
}
