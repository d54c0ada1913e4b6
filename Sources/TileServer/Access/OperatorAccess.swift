import Foundation
import Hashing

/// Who may use the routes that spend or reveal the operator's things (live search,
/// history, `/metrics`, `/manifests/`: ``Route/needsOperator``).
///
/// On loopback nothing changes: the machine's own user is the operator. A server
/// others can reach (bound beyond loopback, behind a proxy, or with a public URL
/// elsewhere) asks for the token of `--operator-token-file`, as a bearer token from
/// scripts or through the sign-in page; without one those routes are off, as they
/// are on any host with `--read-only`. The rest (the archive, its images, IIIF) is
/// for every visitor.
package enum OperatorAccess: Sendable {
    /// Everyone is the operator (a loopback server).
    case open
    /// The operator proves it with this token.
    case token(OperatorToken)
    /// Nobody: the routes answer 403 and the page says why.
    case off(reason: String)

    /// The access a server configured so gets.
    package static func decide(host: String, publicURL: String?, trustsProxy: Bool, token: OperatorToken?, readOnly: Bool)
        -> OperatorAccess {
        if readOnly { return .off(reason: "this server is read-only") }
        let publicHost = publicURL.flatMap { URLComponents(string: $0)?.host }
        let reachable = !HostPolicy.isLoopback(host) || trustsProxy || publicHost.map { !HostPolicy.isLoopback($0) } == true
        if !reachable { return .open }
        if let token { return .token(token) }
        return .off(reason: "this server has no operator (start it with --operator-token-file)")
    }

    /// What the page is told (`/api/operator`).
    var name: String {
        switch self {
        case .open: "open"
        case .token: "token"
        case .off: "off"
        }
    }
}

/// The operator's secret, as read from `--operator-token-file`. Compared through
/// SHA-256 digests, whose comparison takes the same time wherever they differ, so
/// answer times tell a guesser nothing.
public struct OperatorToken: Sendable {
    private let digest: SHA256Digest

    /// At least this many characters: a token is a password that anyone on the
    /// internet may try.
    public static let minimumLength = 16

    public init(_ text: String) throws(OperatorTokenError) {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= Self.minimumLength else { throw .tooShort }
        guard token.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else { throw .notPrintable }
        digest = SHA256.hash(data: Data(token.utf8))
    }

    /// Reads the token from the first line of a file.
    public init(file: URL) throws(OperatorTokenError) {
        let text: String
        do { text = try String(contentsOf: file, encoding: .utf8) } catch { throw .unreadable(file.path) }
        try self.init(String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""))
    }

    func matches(_ candidate: String) -> Bool {
        SHA256.hash(data: Data(candidate.utf8)) == digest
    }
}

public enum OperatorTokenError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case tooShort
    case notPrintable

    public var description: String {
        switch self {
        case let .unreadable(path): "cannot read the operator token file \(path)"
        case .tooShort:
            "the operator token must be at least \(OperatorToken.minimumLength) characters (e.g. openssl rand -hex 32 > FILE)"
        case .notPrintable: "the operator token must be printable ASCII without spaces"
        }
    }
}
