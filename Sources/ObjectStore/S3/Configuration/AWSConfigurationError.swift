import Foundation

/// Why the AWS configuration or credentials cannot be used. Messages name variables,
/// files, profiles and settings: never a key, a secret, a token or an endpoint URL
/// (which may carry a password).
public enum AWSConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `variable` names a profile that neither file has.
    case profileNotFound(profile: String, variable: String, configFile: String, credentialsFile: String)
    /// A config or credentials file over the size limit: most likely a wrong path.
    case fileTooLarge(path: String, limit: Int)
    case unreadableFile(path: String, reason: String)
    case invalidRegion(String, source: String)
    /// The endpoint is not `http(s)://HOST[:PORT]`; the value is not repeated.
    case invalidEndpoint(source: String)
    /// Another setting that cannot be used as written.
    case invalidSetting(setting: String, source: String, reason: String)
    /// One half of a key pair: `missing` is the variable or key that is absent.
    case partialCredentials(missing: String, source: String)
    /// The profile gets credentials in a way this client does not implement.
    case unsupportedCredentials(setting: String, source: String, profile: String)
    /// No source of credentials at all.
    case noCredentials(String)
    /// `credential_process` failed: `reason` is ours (an exit status, a deadline), never its output.
    case credentialProcessFailed(source: String, reason: String)
    /// An endpoint (container, instance metadata) did not answer or refused.
    case credentialsUnavailable(source: String, reason: String)
    /// Credentials arrived but cannot be used (not JSON, a key missing, a bad date).
    case malformedCredentials(source: String, reason: String)

    public var description: String {
        switch self {
        case let .profileNotFound(profile, variable, configFile, credentialsFile):
            return "The config profile (\(profile)) could not be found: \(variable) names it, but neither \(configFile)"
                + " ([profile \(profile)]) nor \(credentialsFile) ([\(profile)]) has it"
        case let .fileTooLarge(path, limit):
            return "\(path) is larger than \(limit) bytes: not read as an AWS configuration file (is the path right?)"
        case let .unreadableFile(path, reason):
            return "\(path) cannot be read: \(reason)"
        case let .invalidRegion(region, source):
            return "the region '\(region)' from \(source) is not a region name (lowercase letters, digits and '-')"
        case let .invalidEndpoint(source):
            return "the S3 endpoint URL from \(source) must be http(s)://HOST[:PORT], without a path, query or user"
                + " (the value is not shown: it may hold a password)"
        case let .invalidSetting(setting, source, reason):
            return "\(setting) from \(source) \(reason)"
        case let .partialCredentials(missing, source):
            return "only half of a key pair is in \(source): \(missing) is missing"
        case let .unsupportedCredentials(setting, source, profile):
            return "\(source) gets credentials through \(setting), which is not supported here: run"
                + " `aws configure export-credentials --profile \(profile) --format env` and export the keys, or give"
                + " another profile `credential_process = aws configure export-credentials --profile \(profile) --format process`"
                + " and use that one"
        case let .noCredentials(why):
            return "no AWS credentials: \(why)"
        case let .credentialProcessFailed(source, reason):
            return "\(source) \(reason)"
        case let .credentialsUnavailable(source, reason):
            return "the \(source) \(reason)"
        case let .malformedCredentials(source, reason):
            return "the credentials from \(source) cannot be used: \(reason)"
        }
    }
}
