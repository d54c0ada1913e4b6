public import HTTPTypes

/// What a server answered to an ``APIRequest``, whatever the status: its status line and
/// headers as swift-http-types' ``HTTPResponse`` (every header as sent, repeats kept in
/// order), and the body.
public struct APIResponse: Sendable {
    public var head: HTTPResponse
    public var body: [UInt8]
    /// The URL that answered, after redirects.
    public var effectiveURL: String

    public init(head: HTTPResponse, body: [UInt8], effectiveURL: String) {
        self.head = head
        self.body = body
        self.effectiveURL = effectiveURL
    }

    /// The status code.
    public var status: Int { head.status.code }

    /// A header read as one value: when a name repeats, the last one sent (a number such
    /// as `Content-Length` would not parse from repeats joined with commas). Every
    /// value is in ``head``.
    public func header(_ name: HTTPField.Name) -> String? { head.headerFields[values: name].last }

    public var isSuccess: Bool { head.status.kind == .successful }
}
