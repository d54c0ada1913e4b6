/// One API call: a URL and the headers to send with it.
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

    public init(url: String, headers: [String: String] = [:], maxBytes: Int = 16 << 20) {
        self.url = url
        self.headers = headers
        self.maxBytes = maxBytes
    }

    public var description: String {
        let names = headers.keys.sorted().joined(separator: ", ")
        return "GET \(url)" + (names.isEmpty ? "" : " (headers: \(names))")
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["url": url, "headerNames": headers.keys.sorted(), "maxBytes": maxBytes])
    }
}
