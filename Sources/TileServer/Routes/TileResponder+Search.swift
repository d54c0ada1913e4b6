import Foundation
import HTTPTypes
import Hummingbird
import LiveSearch

/// `/api/search`: the page's live searches. `POST` starts one (`{"query": "#tag"}`),
/// `GET ?after=N` answers the status once it is newer than version N (a long poll).
extension TileResponder {
    struct SearchRequest: Decodable {
        var query: String
    }

    struct SearchFeed: Encodable {
        /// Whether this server can search live (it was started with a token).
        var available: Bool
        var version: Int
        var search: LiveSearches.Status?
    }

    func startSearch(_ request: Request) async throws -> Reply {
        guard let liveSearches else {
            throw HTTPFailure(status: 404, message: "live search needs a token: start serve with $\(BearerToken.environmentVariable) or --token-file")
        }
        // Only the page itself: a JSON body (which a form on another site cannot send
        // without a preflight this server refuses) from this origin, if it says one.
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw HTTPFailure(status: 415, message: "send application/json")
        }
        guard isSameOrigin(request) else { throw HTTPFailure(status: 403, message: "searches start from this server's own page") }
        let body = try await request.body.collect(upTo: 4096)
        guard let search = try? JSONDecoder().decode(SearchRequest.self, from: Data(buffer: body)) else {
            throw HTTPFailure.badRequest("expected {\"query\": \"…\"}")
        }
        let status: LiveSearches.Status
        do {
            status = try liveSearches.start(search.query)
        } catch let .busy(query) {
            throw HTTPFailure(status: 409, message: "a search for \(query) is running; try again when it ends")
        } catch let .badQuery(why) {
            throw HTTPFailure.badRequest(why)
        }
        var reply = try Self.json(SearchFeed(available: true, version: liveSearches.status.version, search: status))
        reply.status = .accepted
        return reply
    }

    func searchStatus(_ request: Request) async throws -> Reply {
        guard let liveSearches else { return try Self.json(SearchFeed(available: false, version: 0, search: nil)) }
        let after = request.uri.queryParameters["after"].flatMap { Int($0) }
        let (status, version) = if let after {
            await liveSearches.status(after: after, limit: .seconds(25), clock: configuration.clock)
        } else {
            liveSearches.status
        }
        return try Self.json(SearchFeed(available: true, version: version, search: status))
    }
}
