/// What a server answered to an ``HTTPRequest``, whatever the status.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The final response's headers, names lowercased; when a name repeats, the last wins.
    public var headers: [String: String]
    public var body: [UInt8]
    /// The URL that answered, after redirects.
    public var effectiveURL: String

    public init(status: Int, headers: [String: String], body: [UInt8], effectiveURL: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
    }

    /// A header's value by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public var isSuccess: Bool { (200..<300).contains(status) }
}
