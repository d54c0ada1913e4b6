import Foundation
import HTTPTypes

/// The app-only credential for the X API, kept out of every output.
///
/// The value is only ever put into the `Authorization` header. `description`, string
/// interpolation and `dump` show where the token came from, never what it is, so a
/// log line or an error message built from a token cannot leak it.
public struct BearerToken: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// Where a token was found, so a refusal can say what to fix.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        case environment(String)
        case file(String)

        public var description: String {
            switch self {
            case let .environment(name): "the \(name) environment variable"
            case let .file(path): "the token file \(path)"
            }
        }
    }

    /// The environment variable read when no token file is given.
    public static let environmentVariable = "TWEETCACHE_BEARER_TOKEN"

    public let source: Source
    let value: String

    /// Trims whitespace and an optional `Bearer ` prefix (as pasted from a curl
    /// example), then refuses anything that cannot be a bearer token.
    public init(_ raw: String, source: Source) throws(LiveSearchError) {
        var token = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if token.lowercased().hasPrefix("bearer ") {
            token = String(token.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard !token.isEmpty else { throw .emptyToken(source) }
        // RFC 6750 b64token characters are printable ASCII; X's tokens are URL-encoded.
        guard token.utf8.count <= 4096, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .malformedToken(source)
        }
        self.value = token
        self.source = source
    }

    /// The token from `tokenFile` when one is given (an explicit choice beats the
    /// environment), else from ``environmentVariable``.
    public static func resolve(tokenFile: String?, environment: [String: String]) throws(LiveSearchError)
        -> BearerToken
    {
        if let path = tokenFile {
            let url = URL(fileURLWithPath: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
            guard size <= 65_536 else { throw .unreadableTokenFile(path: path, reason: "it is larger than 64 KB") }
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw .unreadableTokenFile(path: path, reason: (error as NSError).localizedDescription)
            }
            guard let text = String(data: data, encoding: .utf8) else { throw .malformedToken(.file(path)) }
            return try BearerToken(text, source: .file(path))
        }
        guard let value = environment[environmentVariable] else { throw .missingToken }
        return try BearerToken(value, source: .environment(environmentVariable))
    }

    /// `Authorization: Bearer …`, for the request only.
    var authorizationHeader: HTTPField { HTTPField(name: .authorization, value: "Bearer \(value)") }

    public var description: String { "bearer token from \(source)" }

    public var customMirror: Mirror { Mirror(self, children: ["source": source]) }
}
