import Foundation
import MediaFetch

/// How to reach an S3-compatible store, from the variables AWS tools already use:
/// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` (path-style addressing, for RGW,
/// MinIO, R2 and the like; without one, AWS itself, virtual-hosted), `AWS_REGION` or
/// `AWS_DEFAULT_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`.
public struct S3Settings: Sendable {
    /// `http(s)://host[:port]` without a trailing `/`; nil for AWS.
    public var endpoint: String?
    public var signature: AWSSignature
    /// Attempts per request when the store does not answer or answers 5xx/429.
    public var attempts = 4
    public var backoffBase: Duration = .milliseconds(200)
    public var fetch = FetchConfiguration()

    public init(endpoint: String?, signature: AWSSignature) {
        self.endpoint = endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.signature = signature
        // Each request carries its own limit (a listing's, a part's, an original's).
        fetch.maxBytes = 8 << 30
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(S3Error) -> S3Settings {
        func value(_ name: String) -> String? {
            environment[name].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let missing = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"].filter { value($0) == nil }
        guard missing.isEmpty, let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw .missingCredentials(missing)
        }
        let endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        if let endpoint {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
                  url.query == nil, (url.path.isEmpty || url.path == "/"),
                  // Credentials come from their own variables, never inside a URL that error messages show.
                  url.user == nil, url.password == nil
            else {
                // The value is not repeated: it may hold a password.
                throw .invalidLocation("AWS_ENDPOINT_URL must be http(s)://HOST[:PORT], without a path, query or user")
            }
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        guard region.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) || $0 == UInt8(ascii: "-") }) else {
            throw .invalidLocation("AWS_REGION '\(region)' is not a region name")
        }
        return S3Settings(endpoint: endpoint, signature: AWSSignature(
            region: region, accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN")))
    }

    /// The URL of `key` in `bucket` (keys are checked ASCII: see ``S3Location``).
    func url(bucket: String, key: String = "", query: String? = nil) -> String {
        let base = endpoint.map { "\($0)/\(bucket)" } ?? "https://\(bucket).s3.\(signature.region).amazonaws.com"
        return base + "/" + key + (query.map { "?" + $0 } ?? "")
    }

    var endpointDescription: String { endpoint ?? "https://s3.\(signature.region).amazonaws.com" }
}
