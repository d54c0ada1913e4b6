import Hummingbird
import HTTPTypes
import NIOCore

/// HTTP's rules for validators, ranges and HEAD, applied to every answer the
/// responder makes: `If-None-Match` against the answer's ETag (304), `Range` and
/// `If-Range` over an answer that takes ranges (206, 416), and HEAD (the head of
/// the GET, with its length, no body). The responder only says what an answer is;
/// answers the ``HotResponseHandler`` repeats never come here, and it repeats
/// only plain GETs (no conditional, no range), so both paths answer alike.
struct ConditionalMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        var headers = response.headers
        if response.status == .ok {
            if let etag = headers[.eTag], ConditionalRequest.matches(request.headers[.ifNoneMatch], etag: etag) {
                headers[.contentType] = nil
                headers[.contentLength] = nil
                return Response(status: .notModified, headers: headers, body: .init())
            }
            if headers[.acceptRanges] == "bytes", let whole = context.notes.rangeable, let range = request.headers[.range],
               // If-Range with another validator (or a date, which a hash-named body never
               // needs) means the client's copy is stale: the whole body instead.
               request.headers[.ifRange].map({ $0 == headers[.eTag] }) ?? true
            {
                let length = whole.readableBytes
                switch ByteRange.parse(range, length: length) {
                case let .satisfiable(bytes):
                    headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(length)"
                    let part = whole.getSlice(at: whole.readerIndex + bytes.lowerBound, length: bytes.count) ?? whole
                    return Self.answer(.partialContent, headers, part, head: request.method == .head)
                case .unsatisfiable:
                    headers[.contentRange] = "bytes */\(length)"
                    headers[.contentType] = "text/plain; charset=utf-8"
                    headers[.cacheControl] = "no-store"
                    headers[.eTag] = nil
                    return Self.answer(.rangeNotSatisfiable, headers,
                                       ByteBuffer(string: "the range starts past the end (\(length) bytes)\n"), head: request.method == .head)
                case .ignored:
                    break
                }
            }
        }
        // HEAD: the GET's head, with the length its body would have.
        guard request.method == .head else { return response }
        if headers[.contentLength] == nil { headers[.contentLength] = response.body.contentLength.map(String.init) }
        return Response(status: response.status, headers: headers, body: .init())
    }

    private static func answer(_ status: HTTPResponse.Status, _ headers: HTTPFields, _ body: ByteBuffer, head: Bool) -> Response {
        guard head else { return Response(status: status, headers: headers, body: .init(byteBuffer: body)) }
        var headers = headers
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: status, headers: headers, body: .init())
    }
}
