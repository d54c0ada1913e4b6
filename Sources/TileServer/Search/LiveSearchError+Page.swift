import LiveSearch

extension LiveSearchError {
    /// What the viewer is told when a live search fails: a fixed kind (the token
    /// refused, a rate limit, the service unreachable, the service's status), never a
    /// path, an answer's body or an internal host. A search's status is readable by
    /// the page, and the page by whoever reaches the server; the server's log keeps the
    /// whole ``description``.
    var pageMessage: String {
        switch self {
        case .emptyQuery, .queryTooLong, .queryHasControlCharacters, .invalidCount:
            // About what the visitor typed, and nothing else.
            return description
        case .missingToken, .emptyToken, .malformedToken, .unreadableTokenFile, .missingInstance:
            return "live search is not set up on this server"
        case .unauthorized:
            return "the search service refused the server's token (HTTP 401)"
        case .forbidden:
            return "the search service refused the server's token (HTTP 403)"
        case let .refusedByService(_, status, _, _, _):
            return "the search service refused the server's token (HTTP \(status))"
        case let .rejected(_, status, _):
            return status == 429 ? "rate limited by the search service" : "the search service refused the search (HTTP \(status))"
        case let .serverError(_, status, _, _):
            return "the search service failed (HTTP \(status))"
        case .network:
            return "the search service could not be reached"
        case .noSuchAccount:
            return "no such account"
        case .cancelled:
            return "cancelled"
        case .cannotSave, .history, .setup, .service, .invalidBaseURL:
            return "the search could not be run (the server's log says why)"
        }
    }
}
