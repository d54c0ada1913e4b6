import Hummingbird
import HTTPTypes

extension HTTPFailure {
    /// The plain-text answer a middleware gives when it stops a request: the
    /// headers every error of the server carries, no body for HEAD.
    func response(to request: Request) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/plain; charset=utf-8", .cacheControl: "no-store", TileResponder.contentTypeOptions: "nosniff",
        ]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let body = ByteBuffer(string: message + "\n")
        if request.method == .head {
            headers[.contentLength] = String(body.readableBytes)
            return Response(status: .init(code: status), headers: headers, body: .init())
        }
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: body))
    }
}
