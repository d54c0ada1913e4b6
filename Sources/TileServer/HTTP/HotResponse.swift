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
    /// Body, key and a rough figure for the headers.
    package var bytes: Int { body.readableBytes + keyBytes + 512 }

    package init(headers: HTTPHeaders, body: ByteBuffer, metrics: ServerMetrics.RequestMetrics, keyBytes: Int) {
        self.headers = headers
        self.body = body
        self.metrics = metrics
        self.keyBytes = keyBytes
    }

    /// Longer targets or hosts are answered by the responder every time.
    static let maxTargetBytes = 512
}
