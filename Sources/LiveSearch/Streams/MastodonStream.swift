import Foundation
import HTTPTypes
import MediaFetch
public import TweetModel

/// A Mastodon instance's hashtag stream (`GET /api/v1/streaming/hashtag?tag=…`) as
/// server-sent events: `update` and `status.update` carry a status, `delete` a
/// status id; comment lines (`:thump`) are the heartbeat.
///
/// The streaming server can live elsewhere than the instance: ``prepare(_:)`` asks
/// `/api/v2/instance` for `configuration.urls.streaming`. The token, when there is
/// one, goes in the Authorization header (since Mastodon 4.2 most instances want one
/// for hashtag streams). Only hashtags have a stream; `@user` and text queries are
/// followed by polling (`watch` without `--stream`).
public struct MastodonStream: PostStream {
    let tag: String
    let token: BearerToken?
    let instance: ServiceURL
    private(set) var streaming: ServiceURL?

    public init(query: SearchQuery, token: BearerToken?, instance: String?) throws(LiveSearchError) {
        guard let instance, !instance.trimmingCharacters(in: .whitespaces).isEmpty else { throw .missingInstance }
        guard let tag = MastodonSearch.tag(in: query.text) else {
            throw .service(network: "Mastodon", message: "only hashtags have a stream (\(query.text.prefix(100)) is not one): "
                + "watch it without --stream")
        }
        self.tag = tag
        self.token = token
        self.instance = try ServiceURL(instance)
        if token != nil, !self.instance.carriesSecrets {
            throw .setup("the Mastodon token is only sent over https (or to this machine)")
        }
    }

    public var network: Network { .mastodon }
    public var name: String { "Mastodon #\(tag) on \(URLComponents(string: instance.base)?.host ?? instance.base)" }
    public var key: String { "mastodon-\(URLComponents(string: instance.base)?.host ?? "instance")-\(tag.lowercased())" }

    private var headers: HTTPFields {
        HTTPFields(token.map { [$0.authorizationHeader] } ?? [])
    }

    private struct Instance: Decodable {
        struct Configuration: Decodable {
            struct URLs: Decodable { var streaming: String? }
            var urls: URLs?
        }
        var configuration: Configuration?
    }

    public mutating func prepare(_ session: StreamSession) async throws(LiveSearchError) {
        switch await session.call(APIRequest(url: instance.url("/api/v2/instance"), headers: headers)) {
        case let .failure(failure):
            throw .network(service: "Mastodon", failure.description, attempts: 1)
        case let .success(response) where response.status == 200:
            let named = (try? JSONDecoder().decode(Instance.self, from: Data(response.body)))?.configuration?.urls?.streaming
            // wss:// names the same server as https:// (the event stream is plain HTTP).
            let http = named.map { $0.replacingOccurrences(of: "wss://", with: "https://", options: .anchored)
                .replacingOccurrences(of: "ws://", with: "http://", options: .anchored) }
            if let http, let url = try? ServiceURL(http), token == nil || url.carriesSecrets {
                streaming = url
            } else {
                streaming = instance
            }
        case let .success(response) where response.status >= 500:
            throw .serverError(service: "Mastodon", status: response.status, attempts: 1, detail: nil)
        case .success:
            // Older servers have no v2 instance document: they stream from the instance itself.
            streaming = instance
        }
    }

    private func refusal(_ status: Int, _ detail: String?) -> LiveSearchError {
        switch status {
        case 401, 403:
            .refusedByService(network: "Mastodon", status: status, tokenVariable: MastodonSearch.tokenVariable,
                              hadToken: token != nil, detail: detail)
        default: .service(network: "Mastodon", message: "the stream answered \(status)\(detail.map { ": \($0)" } ?? "")")
        }
    }

    private struct StatusID: Decodable { var id: String }

    public func connect(cursor: String?, session: StreamSession,
                        deliver: @escaping @Sendable (StreamEvent) async -> Void) async -> StreamEnd {
        let url = (streaming ?? instance).url("/api/v1/streaming/hashtag", [("tag", tag)])
        var fields = headers
        fields[.accept] = "text/event-stream"
        let request = APIRequest(url: url, headers: fields)
        let decoder = JSONDecoder()
        var events = ServerSentEvents()
        return await HTTPEventStream(request: request, service: name).run(session: session, refusal: refusal) { line in
            guard let event = events.feed(line: line) else { return nil }
            switch event.name {
            case "update", "status.update":
                guard let status = try? decoder.decode(StatusID.self, from: Data(event.data)) else {
                    await deliver(.problem("\(name): an \(event.name) that is not a status, skipped"))
                    return nil
                }
                await deliver(.post(id: status.id, document: event.data))
            case "delete":
                let id = String(decoding: event.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !id.isEmpty, id.utf8.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                    await deliver(.problem("\(name): a delete without a status id, skipped"))
                    return nil
                }
                await deliver(.deleted(id: id))
            default:
                break
            }
            return nil
        } problem: { await deliver(.problem($0)) }
    }
}
