/// Credentials for requests libcurl signs itself with AWS Signature Version 4
/// (`CURLOPT_AWS_SIGV4`): S3-compatible object stores.
///
/// The signing is libcurl's, not ours: it hashes the canonical request and derives
/// the key. Nothing here is ever shown: `description` and a `dump` name only the
/// region, so a request logged by mistake leaks no key.
public struct AWSSignature: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var region: String
    public var service: String
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token`.
    public var sessionToken: String?

    public init(region: String, service: String = "s3", accessKeyID: String, secretAccessKey: String,
                sessionToken: String? = nil) {
        self.region = region
        self.service = service
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `aws:amz:<region>:<service>`, the provider string libcurl takes.
    var provider: String { "aws:amz:\(region):\(service)" }

    public var description: String { "AWS SigV4 credentials for \(service) in \(region)" }
    public var customMirror: Mirror { Mirror(self, children: ["region": region, "service": service]) }
}
