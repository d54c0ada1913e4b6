import Foundation
public import HTTPTypes

/// A piece of a response read as it arrives (``HTTPFetcher/stream(_:)``).
public enum HTTPStreamPart: Sendable {
    /// The final response's status and headers, before its first byte.
    case head(HTTPResponse)
    /// Body bytes as they came off the connection: a chunk may end mid-line.
    case bytes([UInt8])
    /// The response is over. `failure` is nil when the server ended it; a response with
    /// no body at all (a 401) is known only from here, so its status and headers come
    /// too (status 0 when none came).
    case end(HTTPResponse, failure: FetchFailure?)
}

extension HTTPFetcher {
    /// Opens a response that does not end by itself (a filtered stream, server-sent
    /// events) and hands its bytes over as they arrive.
    ///
    /// The transfer has no total timeout, no low-speed limit and no size cap, since
    /// each of those would end a healthy stream sooner or later: the reader decides
    /// when the stream is dead (a stream's heartbeats make silence a signal) and ends it
    /// by ending its iteration or cancelling its task. The connect timeout still holds,
    /// as do the request checks of ``perform(_:)``. Nothing is retried: a stream's
    /// reader reconnects on its own terms (with a cursor, after a backoff).
    ///
    /// `stallAfter` ends a response that sends nothing for that long (a large object
    /// read from a slow store: any total limit would cut it, silence means it died).
    public func stream(_ request: APIRequest, stallAfter: Duration? = nil) -> AsyncStream<HTTPStreamPart> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            if let problem = Self.validate(request.url) {
                continuation.yield(.end(Self.noAnswer, failure: problem))
                continuation.finish()
                return
            }
            if let problem = CurlTransfer.requestProblem(request) {
                continuation.yield(.end(Self.noAnswer, failure: .transport(code: -1, message: problem)))
                continuation.finish()
                return
            }
            var limits = configuration
            limits.totalTimeout = .zero  // libcurl: no limit
            limits.lowSpeedLimit = 0  // libcurl: no low-speed check
            if let stallAfter {
                limits.lowSpeedLimit = 1
                limits.lowSpeedTime = max(stallAfter, .seconds(1))
            }
            limits.maxBytes = Int.max
            limits.byteCounter = nil
            var unbounded = request
            unbounded.maxBytes = Int.max
            let transfer: CurlTransfer
            do throws(FetchFailure) {
                transfer = try CurlTransfer(url: request.url, mode: .api(unbounded), configuration: limits) { chunk in
                    continuation.yield(.bytes([UInt8](chunk)))
                }
            } catch {
                continuation.yield(.end(Self.noAnswer, failure: error))
                continuation.finish()
                return
            }
            transfer.onHead = { head in continuation.yield(.head(head)) }
            transfer.onComplete = { outcome in
                continuation.yield(.end(outcome.head, failure: outcome.failure))
                continuation.finish()
            }
            let loop = self.loop
            continuation.onTermination = { _ in loop.cancel(transfer) }
            loop.submit(transfer)
        }
    }

    /// What `.end` carries when no answer came.
    static let noAnswer = HTTPResponse(status: .init(code: 0))
}
