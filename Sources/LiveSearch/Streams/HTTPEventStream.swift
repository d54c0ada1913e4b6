import Foundation
import HTTPTypes
import MediaFetch

/// One streaming HTTP response read as lines: the X filtered stream's JSON lines,
/// Mastodon's server-sent events. Shared by the conformances so that each reads
/// only its own format.
struct HTTPEventStream {
    let request: APIRequest
    let service: String

    /// Reads the response, handing `line` each complete line, until it ends. A
    /// refusal's body (up to 64 KiB) is read for its message.
    func run(session: StreamSession, refusal: (Int, String?) -> LiveSearchError,
             line handle: ([UInt8]) async -> StreamEnd?,
             problem: (String) async -> Void) async -> StreamEnd {
        var splitter = LineSplitter()
        var status = 0
        var headers: HTTPFields = [:]
        var errorBody: [UInt8] = []
        for await part in session.fetcher.stream(request) {
            session.activity.mark()
            switch part {
            case let .head(head):
                status = head.status.code
                headers = head.headerFields
            case let .bytes(chunk):
                guard status == 200 else {
                    if errorBody.count < 65_536 { errorBody.append(contentsOf: chunk.prefix(65_536 - errorBody.count)) }
                    continue
                }
                for piece in splitter.feed(chunk) {
                    switch piece {
                    case let .line(bytes):
                        if let end = await handle(bytes) { return end }
                    case .overlong:
                        await problem("\(service): a line over \(splitter.maxLine) bytes, skipped")
                    }
                }
            case let .end(head, failure):
                if status == 0 { status = head.status.code; headers = head.headerFields }
                if let failure {
                    if failure == .cancelled { return .cancelled }
                    return .failed(failure.description)
                }
            }
        }
        if Task.isCancelled { return .cancelled }
        switch status {
        case 200: return .closed
        case 429:
            return .rateLimited(retryAfter: headers[values: .retryAfter].last.flatMap(Int.init).map { .seconds($0) })
        case 500...:
            return .failed("\(service) answered \(status)")
        default:
            let detail = APIErrorDetail.read(errorBody)
            return .refused(refusal(status, detail))
        }
    }
}
