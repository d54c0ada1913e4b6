/// Why a request to the store (a bucket, or a folder standing in for one) failed, in terms a user can act on. Credentials
/// never appear in these messages: only the names of the variables that hold them.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A store URL or key that cannot be used.
    case invalidLocation(String)
    /// The environment lacks these variables.
    case missingCredentials([String])
    /// No usable credentials: the AWS configuration's own message (names of
    /// variables, files and profiles; never a value).
    case credentials(String)
    /// No answer from the endpoint after the retries.
    case unreachable(endpoint: String, reason: String)
    /// The endpoint's TLS certificate is not one this machine trusts: a setting to fix
    /// (`--cacert`, `AWS_CA_BUNDLE`), never retried and never worked around.
    case untrustedCertificate(endpoint: String, reason: String)
    /// 403: the credentials may not do this to the bucket.
    case accessDenied(bucket: String, code: String)
    /// The bucket does not exist.
    case noSuchBucket(String)
    /// The store's clock and ours differ by more than it accepts.
    case clockSkew(String)
    /// The store computed another SHA-256 of the body than the one sent with it.
    case integrity(key: String)
    /// Any other error answer.
    case server(status: Int, code: String, message: String)
    /// An answer that does not parse (a listing that is not XML).
    case malformed(String)
    /// The object is larger than the caller accepts: not worth another attempt.
    case tooLarge(key: String, limit: Int)
    /// The bucket's bytes for `key` are not what was stored under it (they do not
    /// hash to the name or to the hash recorded when they were made): never served
    /// or kept.
    case corrupt(key: String)
    /// A local store's file system failed (permission, a full disk, an I/O error).
    case io(path: String, reason: String)
    /// The store has failed every recent request: answered at once, without
    /// asking it, until a probe finds it back.
    case down(since: String)

    public var description: String {
        switch self {
        case let .invalidLocation(why): return why
        case let .missingCredentials(names): return "object storage needs \(names.joined(separator: " and ")) in the environment"
        case let .credentials(why): return "no credentials for the object store: \(why)"
        case let .unreachable(endpoint, reason): return "the object store at \(endpoint) did not answer: \(reason)"
        case let .untrustedCertificate(endpoint, reason):
            return "the object store at \(endpoint) has a TLS certificate this machine does not trust (a private CA? "
                + "give it with --cacert or AWS_CA_BUNDLE): \(reason)"
        case let .accessDenied(bucket, code):
            return "access to bucket \(bucket) denied (\(code)): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY"
                + " and AWS_SESSION_TOKEN, and the bucket's policy"
        case let .noSuchBucket(bucket): return "bucket \(bucket) does not exist (create it first)"
        case let .clockSkew(message):
            return "RequestTimeTooSkewed: this machine's clock differs too much from the store's; set the time (\(message))"
        case let .integrity(key): return "the store received other bytes than were sent for \(key) (SHA-256 mismatch)"
        case let .server(status, code, message):
            return "the object store answered \(status) \(code)" + (message.isEmpty ? "" : ": \(message)")
        case let .malformed(why): return "the object store's answer could not be read: \(why)"
        case let .tooLarge(key, limit): return "\(key) is larger than the \(limit) bytes accepted here"
        case let .corrupt(key): return "the bucket's copy of \(key) does not match its SHA-256; it is not used"
        case let .io(path, reason): return "\(path): \(reason)"
        case let .down(since): return "the object store is not answering (since \(since)); retrying in the background"
        }
    }

    /// A short code for manifests and JSON output (`store_unreachable`).
    public var code: String {
        switch self {
        case .invalidLocation: "store_invalid"
        case .missingCredentials: "store_credentials_missing"
        case .credentials: "store_credentials"
        case .unreachable: "store_unreachable"
        case .untrustedCertificate: "store_untrusted_certificate"
        case .accessDenied: "store_access_denied"
        case .noSuchBucket: "store_no_such_bucket"
        case .clockSkew: "store_clock_skew"
        case .integrity: "store_integrity"
        case .server: "store_error"
        case .malformed: "store_malformed"
        case .tooLarge: "store_too_large"
        case .corrupt: "store_corrupt"
        case .io: "store_io"
        case .down: "store_down"
        }
    }

    /// Worth another attempt: the store or the network may answer next time.
    var isTransient: Bool {
        switch self {
        case .unreachable: return true
        case let .server(status, code, _): return status >= 500 || status == 429 || code == "SlowDown"
            || code == "ConditionalRequestConflict"
        default: return false
        }
    }
}
