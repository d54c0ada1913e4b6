import Hummingbird
import HTTPTypes

/// CORS where IIIF needs it: viewers on other sites load this server's public
/// media (``Route/allowsCrossOrigin``), so those answers, and their preflights,
/// carry `Access-Control-Allow-Origin: *`. Nothing else does, errors included:
/// a page on a site the operator visits cannot read the archive's JSON, the
/// history, the manifests or the metrics from here.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let open = context.parsedRoute?.allowsCrossOrigin ?? false
        if request.method == .options {
            var headers: HTTPFields = [.allow: "GET, HEAD, OPTIONS", TileResponder.contentTypeOptions: "nosniff"]
            if open {
                headers[.accessControlAllowOrigin] = "*"
                headers[.accessControlAllowMethods] = "GET, HEAD, OPTIONS"
                headers[.accessControlAllowHeaders] = "If-None-Match, Range"
                headers[.accessControlMaxAge] = "86400"
            }
            return Response(status: .noContent, headers: headers, body: .init())
        }
        var response = try await next(request, context)
        if open, response.status.code < 400 { response.headers[.accessControlAllowOrigin] = "*" }
        return response
    }
}
