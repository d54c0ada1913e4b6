public import MediaTypes
/// Errors in setting a fetcher up (as opposed to an item failing: see ``FetchFailure``).
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidMirror(String, String)
    case curlUnavailable(String)
    case unusableCertificateAuthorities(String)

    public var description: String {
        switch self {
        case let .invalidMirror(spec, why): "invalid mirror '\(spec)' (HOST=BASEURL): \(why)"
        case let .curlUnavailable(why): "libcurl could not be initialised: \(why)"
        case let .unusableCertificateAuthorities(why): why
        }
    }
}

/// Why one URL could not be fetched. Recorded in the index and the manifest, so each
/// case says what a user could do about it; `code` is the stable, scriptable form.
public enum FetchFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURL(String)
    case unsupportedScheme(String)
    case httpStatus(Int)
    case tooLarge(limit: Int)
    case unexpectedContent(ContentKind, contentType: String?)
    case emptyBody
    case tooManyRedirects(limit: Int)
    case redirectToUnsupportedScheme
    case timedOut(String)
    case connectionFailed(String)
    case connectionInterrupted(String)
    case untrustedCertificate(String)
    case rateLimited(retryAfterSeconds: Int)
    case transport(code: Int, message: String)
    case storage(String)
    case cancelled

    /// A short identifier for scripts and statistics ("failures by reason").
    public var code: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .unsupportedScheme: "unsupported_scheme"
        case let .httpStatus(s): "http_\(s)"
        case .tooLarge: "too_large"
        case .unexpectedContent: "unexpected_content"
        case .emptyBody: "empty_body"
        case .tooManyRedirects: "too_many_redirects"
        case .redirectToUnsupportedScheme: "redirect_unsupported_scheme"
        case .timedOut: "timed_out"
        case .connectionFailed: "connection_failed"
        case .connectionInterrupted: "connection_interrupted"
        case .untrustedCertificate: "untrusted_certificate"
        case .rateLimited: "rate_limited"
        case .transport: "transport_error"
        case .storage: "storage_error"
        case .cancelled: "cancelled"
        }
    }

    /// The HTTP status involved, when there was one.
    public var httpStatus: Int? {
        if case let .httpStatus(s) = self { return s }
        return nil
    }

    public var description: String {
        switch self {
        case let .invalidURL(u): "not a valid URL: \(u.prefix(200))"
        case let .unsupportedScheme(s): "only http and https URLs are fetched, not '\(s)'"
        case let .httpStatus(s): "the server answered HTTP \(s)"
        case let .tooLarge(limit): "the body is larger than the \(limit) byte limit"
        case let .unexpectedContent(kind, ct):
            "the body is \(kind == .html ? "an HTML page" : kind == .unknown ? "not a recognised image or video" : "\(kind.rawValue)"), not the expected media"
                + (ct.map { " (served as \($0))" } ?? "")
        case .emptyBody: "the server sent an empty body"
        case let .tooManyRedirects(limit): "more than \(limit) redirects (a loop?)"
        case .redirectToUnsupportedScheme: "redirected to a URL that is not http or https"
        case let .timedOut(what): "timed out: \(what)"
        case let .connectionFailed(why): "could not connect: \(why)"
        case let .connectionInterrupted(why): "the connection broke mid-transfer: \(why)"
        case let .untrustedCertificate(why):
            "the server's TLS certificate is not signed by a trusted CA (behind a TLS-inspecting proxy or using a private mirror? trust its CA certificate): \(why)"
        case let .rateLimited(s): "rate limited; the server asks to retry after \(s) s"
        case let .transport(code, message): "transfer failed (curl \(code)): \(message)"
        case let .storage(why): "could not store the body: \(why)"
        case .cancelled: "cancelled"
        }
    }

    /// Whether trying again later could succeed.
    var isTransient: Bool {
        switch self {
        case let .httpStatus(s): s == 408 || s == 429 || (s >= 500 && s != 501 && s != 505)
        case .timedOut, .connectionFailed, .connectionInterrupted: true
        default: false
        }
    }
}
