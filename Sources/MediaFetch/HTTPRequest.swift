/// One API call: a URL, the headers to send with it and, for a POST, its body.
///
/// For calls whose answer is data to read (a search page, an error explaining itself)
/// rather than media to store; see ``HTTPFetcher/perform(_:)``. Header values often
/// carry credentials, so neither `description` nor a `dump` of a request shows them:
/// only their names.
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomReflectable {
    public var url: String
    /// Sent as given, with the fetcher's `User-Agent`, and `Accept: application/json`
    /// unless an `Accept` is given here.
    public var headers: [String: String]
    /// Largest body accepted; a bigger one fails with ``FetchFailure/tooLarge(limit:)``.
    /// API pages are kilobytes, so this is far below the media limit by default.
    public var maxBytes: Int
    /// With a body the call is a POST of these bytes (say their type in `headers`); a
    /// body may hold credentials (a sign-in), so it is never shown either.
    public var body: [UInt8]?
    /// Another method than GET (or POST, with a body): `PUT` (with the body),
    /// `HEAD` (no body is read), `DELETE`. Object stores need them.
    public var method: String?
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

    public init(url: String, headers: [String: String] = [:], body: [UInt8]? = nil, maxBytes: Int = 16 << 20,
                method: String? = nil, signing: AWSSignature? = nil, timeout: Duration? = nil) {
        self.timeout = timeout
        self.url = url
        self.headers = headers
        self.body = body
        self.maxBytes = maxBytes
        self.method = method
        self.signing = signing
    }

    /// What is sent: the method given, else POST with a body and GET without.
    public var effectiveMethod: String { method ?? (body == nil ? "GET" : "POST") }

    public var description: String {
        let names = headers.keys.sorted().joined(separator: ", ")
        return effectiveMethod + " " + url + (names.isEmpty ? "" : " (headers: \(names))") + (signing == nil ? "" : " (signed)")
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["method": effectiveMethod, "url": url, "headerNames": headers.keys.sorted(),
                                "maxBytes": maxBytes, "bodyBytes": body?.count ?? 0, "signed": signing != nil])
    }
}
