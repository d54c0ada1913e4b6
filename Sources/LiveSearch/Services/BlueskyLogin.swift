import Foundation

/// A Bluesky account's handle and app password, for AppViews that answer searches
/// only to signed-in clients. Like ``BearerToken``, it never shows its secret:
/// `description` and `dump` name the variables it came from.
public struct BlueskyLogin: Sendable, CustomStringConvertible, CustomReflectable {
    public static let handleVariable = "BLUESKY_HANDLE"
    public static let passwordVariable = "BLUESKY_APP_PASSWORD"

    public let handle: String
    let password: String

    public init(handle: String, password: String) throws(LiveSearchError) {
        let handle = handle.trimmingCharacters(in: .whitespacesAndNewlines)
        let password = password.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !handle.isEmpty, handle.utf8.count <= 256, !password.isEmpty, password.utf8.count <= 256,
              !password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .service(network: "Bluesky", message: "\(Self.handleVariable) and \(Self.passwordVariable) "
                + "must hold a handle and an app password (Settings → App passwords)")
        }
        self.handle = handle
        self.password = password
    }

    /// Both variables, or neither (nil: search without signing in).
    public static func fromEnvironment(_ environment: [String: String]) throws(LiveSearchError) -> BlueskyLogin? {
        switch (environment[handleVariable], environment[passwordVariable]) {
        case (nil, nil): return nil
        case let (handle?, password?): return try BlueskyLogin(handle: handle, password: password)
        default:
            throw .service(network: "Bluesky", message: "set both \(handleVariable) and \(passwordVariable), or neither")
        }
    }

    public var description: String { "Bluesky login \(handle) (password from \(Self.passwordVariable))" }
    public var customMirror: Mirror { Mirror(self, children: ["handle": handle]) }

    /// `com.atproto.server.createSession`'s body.
    var sessionRequestBody: [UInt8] {
        let body = ["identifier": handle, "password": password]
        return Array((try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data())
    }
}

/// The tokens of a signed-in session: the access token goes with every request, the
/// refresh token buys a new pair when the access token expires (XRPC `ExpiredToken`).
struct BlueskySession: Sendable {
    var accessJwt: String
    var refreshJwt: String

    /// Reads `createSession`'s or `refreshSession`'s answer.
    init?(_ body: [UInt8]) {
        struct Wire: Decodable { let accessJwt: String; let refreshJwt: String }
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)),
              Self.isToken(wire.accessJwt), Self.isToken(wire.refreshJwt)
        else { return nil }
        accessJwt = wire.accessJwt
        refreshJwt = wire.refreshJwt
    }

    /// Printable ASCII without spaces: safe in an `Authorization` header.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 8192 && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
