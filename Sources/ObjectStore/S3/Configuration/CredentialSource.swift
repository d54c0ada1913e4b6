import Foundation

/// Where a ``CredentialProvider`` gets keys. Its descriptions and mirror name the kind of
/// source only: never keys, tokens or the command line (which may carry a secret).
public enum CredentialSource: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Long-lived (or externally refreshed) keys from the environment or a file.
    case keys(AWSKeys, source: String)
    /// `credential_process`: a command run with `/bin/sh -c` whose output is the keys.
    case process(command: String, source: String)
    /// The container credentials endpoint. `authorization` is the `Authorization`
    /// header value read when the configuration was resolved; when it came from
    /// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`, `authorizationFile` names that file,
    /// read again at every refresh because EKS Pod Identity rotates the token in it.
    case container(url: String, authorization: String?, authorizationFile: String? = nil)
    /// EC2 instance metadata (IMDSv2) at `endpoint`.
    case instanceMetadata(endpoint: String)
    /// Nothing found, and instance metadata disabled.
    case none

    /// For a debug line: `environment variables`, `profile dev in /home/u/.aws/credentials`,
    /// `credential_process of profile dev in /home/u/.aws/config`, …
    public var description: String {
        switch self {
        case let .keys(_, source): source
        case let .process(_, source): source
        case .container: "container credentials endpoint"
        case .instanceMetadata: "instance metadata (IMDSv2)"
        case .none: "no credentials"
        }
    }

    public var debugDescription: String { "CredentialSource(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: ["source": description], displayStyle: .enum) }
}
