public import HTTPTypes

/// One API call: its request line and headers, and, for a POST or a PUT, its body.
///
/// For calls whose answer is data to read (a search page, an error explaining itself,
/// an object store's answer) rather than media to store; see ``HTTPFetcher/perform(_:)``.
/// The request line and headers are swift-http-types' ``HTTPRequest``, the types the
/// server (Hummingbird) speaks too: a header's name is checked when it is made and a
/// value cannot carry a line break or NUL, so no caller can smuggle a header (or a
/// second request) onto the wire. Header values often carry credentials, so neither
/// `description` nor a `dump` of a request shows them: only their names.
public struct APIRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// Method, URL and headers. The headers are sent as given, with the fetcher's
    /// `User-Agent`, and `Accept: application/json` unless an `Accept` is given.
    /// `path` is the URL's path and query byte for byte as given: a signature (SigV4)
    /// is over the URL as sent, so nothing re-encodes it. A header value's line breaks
    /// and NULs become spaces (they can never end a line on the wire).
    public var head: HTTPRequest
    /// Largest body accepted; a bigger one fails with ``FetchFailure/tooLarge(limit:)``.
    /// API pages are kilobytes, so this is far below the media limit by default.
    public var maxBytes: Int
    /// The bytes sent with a POST or PUT (say their type in the headers); a body may
    /// hold credentials (a sign-in), so it is never shown either.
    public var body: [UInt8]?
    /// Signed by libcurl with these credentials (AWS SigV4). A signed request follows
    /// no redirect (a signature is for one host) and asks for no compression (ranges
    /// are of the stored bytes).
    public var signing: AWSSignature?
    /// The most this one attempt may take from the moment it is asked for (time
    /// queued behind other transfers for a connection, connecting, the answer), when
    /// shorter than the fetcher's limits: the rest of a caller's deadline (a tile
    /// server's request asking a bucket).
    public var timeout: Duration?
    /// Told the status when the answer's first body byte arrives: a caller whose
    /// request then times out knows the server answered, only slowly (a slow
    /// object store is not a store that is down).
    public var onFirstByte: (@Sendable (Int) -> Void)?
    /// The URL given held bytes a request line cannot carry.
    let urlWasRewritten: Bool

    /// A call of `url`: with `method` (else POST with a body and GET without).
    public init(url: String, headers: HTTPFields = [:], body: [UInt8]? = nil, maxBytes: Int = 16 << 20,
                method: HTTPRequest.Method? = nil, signing: AWSSignature? = nil, timeout: Duration? = nil) {
        let (scheme, authority, path) = Self.split(url)
        head = HTTPRequest(method: method ?? (body == nil ? .get : .post), scheme: scheme, authority: authority, path: path,
                           headerFields: headers)
        // The types turn control bytes into spaces; a URL that held any is refused by
        // the fetcher rather than sent altered (``HTTPFetcher/perform(_:)``).
        urlWasRewritten = Self.rejoined(head) != url
        self.timeout = timeout
        self.body = body
        self.maxBytes = maxBytes
        self.signing = signing
    }

    /// The URL, put back together from ``head`` exactly as it was given.
    public var url: String { Self.rejoined(head) }

    static func rejoined(_ head: HTTPRequest) -> String {
        guard let scheme = head.scheme else { return head.path ?? "" }
        return scheme + "://" + (head.authority ?? "") + (head.path ?? "")
    }

    /// The headers to send.
    public var headers: HTTPFields {
        get { head.headerFields }
        set { head.headerFields = newValue }
    }

    /// A URL's scheme, authority, and the rest (path, query) untouched; a string with
    /// no scheme is all path (the fetcher refuses it as no http(s) URL).
    static func split(_ url: String) -> (scheme: String?, authority: String?, path: String) {
        guard let separator = url.range(of: "://") else { return (nil, nil, url) }
        let rest = url[separator.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return (String(url[..<separator.lowerBound]), String(rest[..<end]), String(rest[end...]))
    }

    public var description: String {
        let names = Set(headers.map(\.name.rawName)).sorted().joined(separator: ", ")
        return head.method.rawValue + " " + url + (names.isEmpty ? "" : " (headers: \(names))") + (signing == nil ? "" : " (signed)")
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["method": head.method.rawValue, "url": url,
                                "headerNames": Set(headers.map(\.name.rawName)).sorted(),
                                "maxBytes": maxBytes, "bodyBytes": body?.count ?? 0, "signed": signing != nil])
    }
}

extension HTTPField.Name {
    /// The session token of temporary AWS credentials, sent beside a SigV4 signature.
    public static let amzSecurityToken = HTTPField.Name("x-amz-security-token")!
}
