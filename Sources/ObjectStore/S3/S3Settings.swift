import Foundation
import MediaFetch

/// How to reach an S3-compatible store, from the configuration AWS tools already
/// use (``AWSConfiguration``): the environment (`AWS_ENDPOINT_URL_S3`,
/// `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, …), then `AWS_PROFILE`'s
/// profile in `~/.aws/credentials` and `~/.aws/config` (`endpoint_url`, a
/// `services` section, `region`, `ca_bundle`, `credential_process`), then the
/// container and instance metadata endpoints. With an endpoint, path-style
/// addressing (RGW, MinIO, R2 and the like); without one, AWS itself,
/// virtual-hosted. A configured endpoint is always used: never AWS instead.
public struct S3Settings: Sendable {
    /// `http(s)://host[:port]` without a trailing `/`; nil for AWS.
    public var endpoint: String?
    public var region: String
    /// Where the keys that sign each request come from (refreshed when temporary).
    public var credentials: CredentialProvider
    /// Attempts per request when the store does not answer or answers 5xx/429.
    public var attempts = 4
    public var backoffBase: Duration = .milliseconds(200)
    public var fetch = FetchConfiguration()
    /// Where each setting came from, for the debug line (never a value).
    public var sources: [String: String] = [:]

    public init(endpoint: String?, region: String, credentials: CredentialProvider) {
        self.endpoint = endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.region = region
        self.credentials = credentials
        // Each request carries its own limit (a listing's, a part's, an original's).
        fetch.maxBytes = 8 << 30
    }

    /// Fixed keys (tests, and callers that resolved their own).
    public init(endpoint: String?, signature: AWSSignature) {
        self.init(endpoint: endpoint, region: signature.region, credentials: CredentialProvider(
            source: .keys(AWSKeys(accessKeyID: signature.accessKeyID, secretAccessKey: signature.secretAccessKey,
                                  sessionToken: signature.sessionToken), source: "the caller"),
            http: { _ in nil }))
    }

    /// The settings the AWS CLI would use here. `certificateAuthorities` (from
    /// `--cacert`) wins over `AWS_CA_BUNDLE` and a profile's `ca_bundle`, which win
    /// over curl's own variables (`CURL_CA_BUNDLE`, `SSL_CERT_FILE`, `SSL_CERT_DIR`).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, homeDirectory: String? = nil,
        certificateAuthorities: CertificateAuthorities? = nil
    ) throws(StoreError) -> S3Settings {
        let configuration: AWSConfiguration
        do { configuration = try AWSConfiguration(environment: environment, homeDirectory: homeDirectory) } catch {
            if case let .partialCredentials(missing, source) = error, source == "environment variables" {
                throw .missingCredentials([missing])
            }
            throw .invalidLocation(error.description)
        }
        var trust = certificateAuthorities ?? configuration.caBundle.map { CertificateAuthorities(bundleFile: $0) }
            ?? CertificateAuthorities.fromEnvironment(environment)
        if trust.bundleFile == nil, trust.directory == nil { trust = .system }
        if let problem = trust.problem { throw .invalidLocation(problem) }
        // Container and instance-metadata credentials come over plain HTTP from a
        // local endpoint, quickly or not at all.
        var metadata = FetchConfiguration()
        metadata.connectTimeout = .seconds(1)
        metadata.totalTimeout = .seconds(5)
        metadata.maxAttempts = 1
        let fetcher = try? HTTPFetcher(configuration: metadata)
        let provider = CredentialProvider(source: configuration.credentials) { request in
            guard let fetcher else { return nil }
            guard case let .success(response) = await fetcher.perform(request) else { return nil }
            return (response.status, response.body)
        }
        var settings = S3Settings(endpoint: configuration.endpoint, region: configuration.region, credentials: provider)
        settings.fetch.certificateAuthorities = trust
        settings.sources = [
            "credentials": configuration.credentials.description,
            "endpoint": configuration.endpointSource ?? "AWS (no endpoint configured)",
            "region": configuration.regionSource,
            "profile": configuration.profile,
        ]
        return settings
    }

    /// The signature for the next request: current keys (a temporary set is
    /// fetched again before it expires).
    public func signature() async throws(StoreError) -> AWSSignature {
        let keys: AWSKeys
        do { keys = try await credentials.keys() } catch { throw .credentials(error.description) }
        return AWSSignature(region: region, accessKeyID: keys.accessKeyID, secretAccessKey: keys.secretAccessKey,
                            sessionToken: keys.sessionToken)
    }

    /// The URL of `key` in `bucket` (keys are checked ASCII: see ``S3Location``).
    func url(bucket: String, key: String = "", query: String? = nil) -> String {
        let base = endpoint.map { "\($0)/\(bucket)" } ?? "https://\(bucket).s3.\(region).amazonaws.com"
        return base + "/" + key + (query.map { "?" + $0 } ?? "")
    }

    var endpointDescription: String { endpoint ?? "https://s3.\(region).amazonaws.com" }
}
