/// Why a search could not start or could not go on.
///
/// Every message is one line saying what to do about it, because the usual reader is
/// someone at a terminal with a token to fix or a limit to wait out. None of them
/// contains the bearer token: at most where it came from.
public enum LiveSearchError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyQuery
    case queryTooLong(Int)
    case queryHasControlCharacters
    case invalidCount(Int)
    case invalidBaseURL(String)
    case missingToken
    case unreadableTokenFile(path: String, reason: String)
    case emptyToken(BearerToken.Source)
    case malformedToken(BearerToken.Source)
    /// 401: the token itself was not accepted.
    case unauthorized(api: SearchAPI, source: BearerToken.Source, detail: String?)
    /// 403: the token is valid but its app may not use this endpoint.
    case forbidden(api: SearchAPI, source: BearerToken.Source, detail: String?)
    /// Any other 4xx: the request was refused, usually for its query. `service` is how
    /// messages name the one that refused ("the X API", "Mastodon").
    case rejected(service: String, status: Int, detail: String?)
    /// 5xx on every attempt.
    case serverError(service: String, status: Int, attempts: Int, detail: String?)
    /// No answer at all (connection, timeout, oversized page) on every attempt.
    case network(service: String, String, attempts: Int)
    case cannotSave(path: String, reason: String)
    case history(path: String, reason: String)
    case setup(String)
    case cancelled
    /// A Mastodon search names no instance.
    case missingInstance
    /// The service answered 401 or 403 to a search of another network than X (the
    /// variable that holds its token, if any, is named, never its value).
    case refusedByService(network: String, status: Int, tokenVariable: String?, hadToken: Bool, detail: String?)
    /// `@user@host` that the instance does not know.
    case noSuchAccount(String)
    /// Any other refusal, answer or failure from another network than X.
    case service(network: String, message: String)

    public var description: String {
        switch self {
        case .emptyQuery:
            "the search query is empty: give a hashtag (#ucd), a user (@name) or an API query"
        case let .queryTooLong(n):
            "the search query is \(n) characters long; the X API accepts at most 512 (1024 with Pro access)"
        case .queryHasControlCharacters:
            "the search query contains control characters (a pasted line break?)"
        case let .invalidCount(n):
            "the number of results wanted must be at least 1 (got \(n))"
        case let .invalidBaseURL(url):
            "the API base URL '\(url.prefix(200))' is not an http or https URL with a host"
        case .missingToken:
            "no X API bearer token: none in \(BearerToken.environmentVariable) and no token file given "
                + "(the app's Bearer Token from the X developer portal)"
        case let .unreadableTokenFile(path, reason):
            "cannot read the token file \(path): \(reason)"
        case let .emptyToken(source):
            "\(source) is empty: it should hold the app's Bearer Token from the X developer portal"
        case let .malformedToken(source):
            "\(source) does not hold a bearer token (it has spaces or characters a token cannot have; "
                + "it should be one line, the app's Bearer Token)"
        case let .unauthorized(api, source, detail):
            "the X API rejected the bearer token from \(source) (HTTP 401\(Self.quoted(detail))): "
                + "check that it is the app's Bearer Token from the developer portal (not the API key or an access token), "
                + "complete and not revoked; \(api.displayName) was asked"
        case let .forbidden(api, source, detail):
            "the X API refused \(api.displayName) to the bearer token from \(source) (HTTP 403\(Self.quoted(detail))): "
                + (api == .v2
                    ? "the token's app must belong to a Project with an access level that includes recent search (Basic or above)"
                    : "v1.1 search/tweets needs an app with legacy v1.1 access; the v2 API may be open to it")
        case let .rejected(service, status, detail):
            "\(service) refused the search (HTTP \(status)\(Self.quoted(detail))); check the query's operators"
        case let .serverError(service, status, attempts, detail):
            "\(service) kept failing (HTTP \(status)\(Self.quoted(detail))) after \(attempts) attempts; try again later"
        case let .network(service, why, attempts):
            "could not reach \(service) after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(why)"
        case let .cannotSave(path, reason):
            "cannot save a results page to \(path): \(reason)"
        case let .history(path, reason):
            "cannot update the search history \(path): \(reason)"
        case let .setup(why):
            why
        case .cancelled:
            "the search was cancelled"
        case .missingInstance:
            "a Mastodon search needs the instance to ask: --instance https://mastodon.example"
        case let .refusedByService(network, status, variable, hadToken, detail):
            "\(network) refused the search (HTTP \(status)\(Self.quoted(detail)))"
                + (hadToken
                    ? ": check the token in \(variable ?? "its variable") (its scopes must include reading)"
                    : (variable.map { ": this search needs a token; set \($0)" } ?? ""))
        case let .noSuchAccount(acct):
            "the instance knows no account @\(acct)"
        case let .service(network, message):
            "\(network): \(message)"
        }
    }

    private static func quoted(_ detail: String?) -> String {
        guard let detail, !detail.isEmpty else { return "" }
        return ": \(detail)"
    }
}
