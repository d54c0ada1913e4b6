import Foundation

/// Keys that sign requests. Printing, dumping or interpolating them never shows the key
/// ID, the secret or the token: they end up in logs and test failure messages.
public struct AWSKeys: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?
    /// When temporary keys stop working; nil for long-lived keys.
    public var expiration: Date?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    public var description: String {
        let token = sessionToken == nil ? "no session token" : "session token redacted"
        let expires = expiration.map { "expires \($0.formatted(.iso8601))" } ?? "no expiration"
        return "AWSKeys(key ID and secret redacted, \(token), \(expires))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["keys": "redacted", "sessionToken": sessionToken == nil ? "none" : "redacted",
                                "expiration": expiration as Any], displayStyle: .struct)
    }
}
