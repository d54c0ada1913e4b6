import Foundation

/// Where to reach S3 and with which credentials, found where users already keep them:
/// the AWS variables and `~/.aws/config` and `~/.aws/credentials`, in the precedence the
/// AWS CLI applies, so that `tweetcache` talks to the same store as `aws s3` does without
/// being told twice.
///
/// What was followed (read in botocore and the AWS SDKs and Tools Reference Guide):
/// - Profile: `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default` (the AWS CLI's
///   order; stock botocore reads the two variables the other way round, botocore #1725).
///   A profile named by either variable must exist in one of the files, even `default`
///   (botocore `Session._retrieve_profile_config` raises `ProfileNotFound`, "The config
///   profile (x) could not be found"); an unnamed `default` may be missing.
/// - Files: `AWS_CONFIG_FILE` (`~/.aws/config`), `AWS_SHARED_CREDENTIALS_FILE`
///   (`~/.aws/credentials`). As in botocore's `Session.full_config`, a profile's settings
///   are the config file's merged with the credentials file's, the credentials file
///   winning: `region` written into `~/.aws/credentials` counts.
/// - Region: `AWS_REGION` > `AWS_DEFAULT_REGION` > the profile's `region` > `us-east-1`.
/// - Endpoint (Reference Guide, "Service-specific endpoints"): `AWS_ENDPOINT_URL_S3` >
///   `AWS_ENDPOINT_URL` > `endpoint_url` in the `s3` sub-section of the
///   `[services NAME]` section the profile names with `services = NAME` > the profile's
///   `endpoint_url`; none of them when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` (or, when
///   that variable is unset, the profile's `ignore_configured_endpoint_urls`) is true.
/// - CA bundle: `AWS_CA_BUNDLE` > the profile's `ca_bundle`.
/// - Credentials: botocore `credentials.py` `create_credential_resolver` and
///   `ProfileProviderBuilder.providers`: environment (`EnvProvider`), then assume-role,
///   web-identity and SSO profiles (not supported here: an error, never a silent fall
///   through to another identity), the credentials file (`SharedCredentialProvider`),
///   `credential_process` (`ProcessProvider`), the config file (`ConfigProvider`), the
///   container endpoint (`ContainerProvider`), instance metadata
///   (`InstanceMetadataProvider`). The legacy `AWS_CREDENTIAL_FILE` and boto2 providers
///   are left out.
public struct AWSConfiguration: Sendable {
    /// The profile in use (for messages: `profile dev`).
    public let profile: String
    public let region: String
    /// Where the region came from: a variable name, `profile X in FILE`, or `default`.
    public let regionSource: String
    /// `http(s)://host[:port]` without a trailing `/`; nil for AWS itself.
    public let endpoint: String?
    /// Where the endpoint came from (a variable name or `profile X in FILE`), for the
    /// line that says which store is used: a surprise endpoint is then easy to trace.
    public let endpointSource: String?
    /// A PEM file of CAs to trust instead of the system's (a private store's CA).
    public let caBundle: String?
    public let credentials: CredentialSource
    /// The config and credentials paths that were read (or would have been).
    public let configFile: String
    public let credentialsFile: String

    /// Resolves the configuration. Nothing here touches the network or runs a process:
    /// that happens when a ``CredentialProvider`` first asks for keys.
    /// - Parameters:
    ///   - homeDirectory: what `~` means; by default `HOME`, as the AWS CLI expands it.
    ///   - maxFileBytes: larger config or credentials files are an error.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        homeDirectory: String? = nil,
        maxFileBytes: Int = 1 << 20
    ) throws(AWSConfigurationError) {
        let variables = Variables(environment)
        let home = homeDirectory ?? variables["HOME"] ?? NSHomeDirectory()
        configFile = Self.expandingTilde(variables["AWS_CONFIG_FILE"] ?? "~/.aws/config", home: home)
        credentialsFile = Self.expandingTilde(variables["AWS_SHARED_CREDENTIALS_FILE"] ?? "~/.aws/credentials", home: home)

        let namingVariable = ["AWS_PROFILE", "AWS_DEFAULT_PROFILE"].first { variables[$0] != nil }
        profile = namingVariable.flatMap { variables[$0] } ?? "default"
        let lookup = ProfileLookup(
            name: profile,
            config: try AWSConfigFile.load(path: configFile, kind: .config, limit: maxFileBytes),
            credentials: try AWSConfigFile.load(path: credentialsFile, kind: .credentials, limit: maxFileBytes)
        )
        if let namingVariable, !lookup.exists {
            throw .profileNotFound(profile: profile, variable: namingVariable, configFile: configFile, credentialsFile: credentialsFile)
        }

        (region, regionSource) = try Self.region(variables, lookup)
        (endpoint, endpointSource) = try Self.endpoint(variables, lookup)
        caBundle = (variables["AWS_CA_BUNDLE"] ?? lookup.setting("ca_bundle")?.value).map { Self.expandingTilde($0, home: home) }
        credentials = try Self.credentials(variables, lookup)
    }

    // MARK: Region and endpoint

    private static func region(_ variables: Variables, _ lookup: ProfileLookup) throws(AWSConfigurationError) -> (String, String) {
        let found = variables.first("AWS_REGION", "AWS_DEFAULT_REGION") ?? lookup.setting("region") ?? ("us-east-1", "default")
        guard !found.value.isEmpty,
              found.value.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) || $0 == UInt8(ascii: "-") })
        else { throw .invalidRegion(found.value, source: found.source) }
        return found
    }

    private static func endpoint(_ variables: Variables, _ lookup: ProfileLookup) throws(AWSConfigurationError) -> (String?, String?) {
        let ignore = variables["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"].map(isTrue)
            ?? lookup.setting("ignore_configured_endpoint_urls").map { isTrue($0.value) } ?? false
        if ignore { return (nil, nil) }
        var found = variables.first("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
        if found == nil, let services = lookup.setting("services"), let config = lookup.config,
           let url = config.service(services.value, "s3", "endpoint_url") {
            found = (url, "s3 endpoint_url of [services \(services.value)] (profile \(lookup.name)) in \(config.path)")
        }
        if found == nil { found = lookup.setting("endpoint_url") }
        guard let found else { return (nil, nil) }
        guard let endpoint = validatedBaseURL(found.value, allowPath: false) else {
            // The value is not repeated: it may hold a password.
            throw .invalidEndpoint(source: found.source)
        }
        return (endpoint, found.source)
    }

    /// `value` as `scheme://host[:port]` without a trailing `/`, or nil when it is not an
    /// http(s) URL with a host, or has a query, fragment, user or password (credentials
    /// live in their own settings, never inside a URL that messages may show), or has a
    /// path when `allowPath` is false (requests add the bucket as the path).
    static func validatedBaseURL(_ value: String, allowPath: Bool) -> String? {
        guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil, url.password == nil,
              allowPath || url.path.isEmpty || url.path == "/"
        else { return nil }
        var normalised = value
        while normalised.hasSuffix("/") { normalised.removeLast() }
        return normalised
    }

    // MARK: Credentials

    private static func credentials(_ variables: Variables, _ lookup: ProfileLookup) throws(AWSConfigurationError) -> CredentialSource {
        // 1. The environment.
        if let keys = try keyPair(
            id: variables["AWS_ACCESS_KEY_ID"].map { ($0, "AWS_ACCESS_KEY_ID") },
            secret: variables["AWS_SECRET_ACCESS_KEY"].map { ($0, "AWS_SECRET_ACCESS_KEY") },
            token: variables["AWS_SESSION_TOKEN"] ?? variables["AWS_SECURITY_TOKEN"],
            source: "environment variables"
        ) {
            return .keys(keys, source: "environment variables")
        }

        // 2. What botocore tries next and this client cannot do: stop rather than pick another identity.
        if let roleARN = lookup.setting("role_arn") {
            throw .unsupportedCredentials(setting: "role_arn (assume role)", source: roleARN.source, profile: lookup.name)
        }
        if variables["AWS_WEB_IDENTITY_TOKEN_FILE"] != nil {
            throw .unsupportedCredentials(setting: "AWS_WEB_IDENTITY_TOKEN_FILE (web identity)", source: "the environment",
                                          profile: lookup.name)
        }
        if let webIdentity = lookup.setting("web_identity_token_file") {
            throw .unsupportedCredentials(setting: "web_identity_token_file (web identity)", source: webIdentity.source,
                                          profile: lookup.name)
        }
        if let sso = lookup.setting("sso_session") ?? lookup.setting("sso_start_url") {
            throw .unsupportedCredentials(setting: "IAM Identity Center (SSO)", source: sso.source, profile: lookup.name)
        }

        // 3. The credentials file; 4. credential_process; 5. the config file.
        if let file = lookup.credentials, let keys = try keys(in: file, profile: lookup.name) {
            return .keys(keys, source: lookup.source(file))
        }
        if let process = lookup.setting("credential_process") {
            return .process(command: process.value, source: "credential_process of \(process.source)")
        }
        if let file = lookup.config, let keys = try keys(in: file, profile: lookup.name) {
            return .keys(keys, source: lookup.source(file))
        }

        // 6. A container endpoint; 7. instance metadata.
        if let container = try container(variables) { return container }
        if variables["AWS_EC2_METADATA_DISABLED"].map(isTrue) ?? false { return .none }
        let configured = variables.first("AWS_EC2_METADATA_SERVICE_ENDPOINT") ?? lookup.setting("ec2_metadata_service_endpoint")
        let ipv6 = (variables["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"] ?? lookup.setting("ec2_metadata_service_endpoint_mode")?.value)?
            .lowercased() == "ipv6"
        guard let configured else {
            return .instanceMetadata(endpoint: ipv6 ? "http://[fd00:ec2::254]" : "http://169.254.169.254")
        }
        guard let endpoint = validatedBaseURL(configured.value, allowPath: false) else {
            throw .invalidSetting(setting: "the instance metadata endpoint", source: configured.source,
                                  reason: "must be http(s)://HOST[:PORT]")
        }
        return .instanceMetadata(endpoint: endpoint)
    }

    private static func keys(in file: AWSConfigFile, profile: String) throws(AWSConfigurationError) -> AWSKeys? {
        try keyPair(
            id: file.text("aws_access_key_id", profile: profile).map { ($0, "aws_access_key_id") },
            secret: file.text("aws_secret_access_key", profile: profile).map { ($0, "aws_secret_access_key") },
            token: file.text("aws_session_token", profile: profile) ?? file.text("aws_security_token", profile: profile),
            source: "profile \(profile) in \(file.path)"
        )
    }

    /// Both halves, or neither; one alone is a mistake worth stopping for (botocore
    /// raises `PartialCredentialsError`), named without either value.
    private static func keyPair(
        id: (value: String, name: String)?, secret: (value: String, name: String)?, token: String?, source: String
    ) throws(AWSConfigurationError) -> AWSKeys? {
        switch (id, secret) {
        case (nil, nil): return nil
        case let (id?, secret?): return AWSKeys(accessKeyID: id.value, secretAccessKey: secret.value, sessionToken: token)
        case let (id?, nil): throw .partialCredentials(missing: id.name == "AWS_ACCESS_KEY_ID" ? "AWS_SECRET_ACCESS_KEY" : "aws_secret_access_key", source: source)
        case let (nil, secret?): throw .partialCredentials(missing: secret.name == "AWS_SECRET_ACCESS_KEY" ? "AWS_ACCESS_KEY_ID" : "aws_access_key_id", source: source)
        }
    }

    /// The container credentials endpoint (ECS task roles, EKS Pod Identity), as the
    /// Reference Guide's "Container credential provider" describes: the relative URI
    /// wins over the full one; a full `http` URI may only reach this machine or the
    /// ECS/EKS agents, so that a token never crosses a network in the clear. Hosts are
    /// compared as written (no DNS lookup: a name other than `localhost` needs https).
    private static func container(_ variables: Variables) throws(AWSConfigurationError) -> CredentialSource? {
        let url: String
        if let relative = variables["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] {
            url = "http://169.254.170.2" + (relative.hasPrefix("/") ? relative : "/" + relative)
            guard URL(string: url)?.host != nil else {
                throw .invalidSetting(setting: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", source: "the environment",
                                      reason: "must be a URL path such as /v2/credentials/ID")
            }
        } else if let full = variables["AWS_CONTAINER_CREDENTIALS_FULL_URI"] {
            guard let parsed = URL(string: full), let scheme = parsed.scheme?.lowercased(), let host = parsed.host, !host.isEmpty,
                  scheme == "https" || (scheme == "http" && isContainerHost(host))
            else {
                throw .invalidSetting(
                    setting: "AWS_CONTAINER_CREDENTIALS_FULL_URI", source: "the environment",
                    reason: "must be an https URL, or http to 127.0.0.0/8, localhost, [::1], 169.254.170.2, 169.254.170.23 or [fd00:ec2::23]")
            }
            url = full
        } else {
            return nil
        }
        if let tokenFile = variables["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] {
            return .container(url: url, authorization: try containerToken(file: tokenFile), authorizationFile: tokenFile)
        }
        if let token = variables["AWS_CONTAINER_AUTHORIZATION_TOKEN"] {
            guard !token.contains(where: \.isNewline) else {
                throw .invalidSetting(setting: "AWS_CONTAINER_AUTHORIZATION_TOKEN", source: "the environment",
                                      reason: "holds a line break, which cannot go into a header")
            }
            return .container(url: url, authorization: token)
        }
        return .container(url: url, authorization: nil)
    }

    /// The token in `file`, trimmed. Read again at every refresh: EKS rotates it.
    static func containerToken(file: String) throws(AWSConfigurationError) -> String {
        let data: Data?
        do {
            data = try AWSConfigFile.read(path: file, limit: 64 << 10)
        } catch {
            throw .invalidSetting(setting: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", source: "the environment",
                                  reason: "names a file that cannot be read: \(error)")
        }
        guard let data else {
            throw .invalidSetting(setting: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", source: "the environment",
                                  reason: "names \(file), which is not a file")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: \.isNewline) else {
            throw .invalidSetting(setting: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", source: "the environment",
                                  reason: "\(file) is empty or holds more than one line")
        }
        return token
    }

    /// Loopback (127.0.0.0/8, `localhost`, ::1) and the ECS and EKS credential agents.
    static func isContainerHost(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" { return true }
        if let v4 = ipv4(bare) {
            return v4[0] == 127 || v4 == [169, 254, 170, 2] || v4 == [169, 254, 170, 23]
        }
        if let v6 = ipv6(bare) {
            return v6 == [0, 0, 0, 0, 0, 0, 0, 1] || v6 == [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23]
        }
        return false
    }

    /// Dotted-quad IPv4 (four decimal parts, 0–255), or nil.
    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let byte = UInt8(part) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }

    /// Eight 16-bit groups of a textual IPv6 address (`::` expanded; no zone, no
    /// embedded IPv4), or nil: the allowed hosts compare by value, whatever the spelling.
    static func ipv6(_ text: String) -> [UInt16]? {
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        let halves = text.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let all = groups(Substring(text)), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(Substring(halves[0])), let tail = groups(Substring(halves[1])), head.count + tail.count < 8 else {
                return nil
            }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }

    // MARK: Helpers

    /// `~` and `~/…` against `home` (botocore's `os.path.expanduser`; `~user` is left as written).
    static func expandingTilde(_ path: String, home: String) -> String {
        if path == "~" { return home }
        guard path.hasPrefix("~/") else { return path }
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + path.dropFirst()
    }

    /// botocore's `ensure_boolean`: only `true`, in any case, is true.
    static func isTrue(_ value: String) -> Bool { value.lowercased() == "true" }

    /// Environment variables, trimmed, an empty one counting as unset (as `S3Settings`).
    struct Variables {
        let environment: [String: String]
        init(_ environment: [String: String]) { self.environment = environment }

        subscript(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
            return value
        }

        /// The first of `names` that is set, with its name as the source.
        func first(_ names: String...) -> (value: String, source: String)? {
            for name in names { if let value = self[name] { return (value, name) } }
            return nil
        }
    }

    /// One profile across both files.
    struct ProfileLookup {
        let name: String
        let config: AWSConfigFile?
        let credentials: AWSConfigFile?

        var exists: Bool { config?.profiles[name] != nil || credentials?.profiles[name] != nil }

        /// A setting of the profile: the credentials file's value over the config
        /// file's, as botocore merges them.
        func setting(_ key: String) -> (value: String, source: String)? {
            for file in [credentials, config].compactMap({ $0 }) {
                if let value = file.text(key, profile: name) { return (value, source(file)) }
            }
            return nil
        }

        func source(_ file: AWSConfigFile) -> String { "profile \(name) in \(file.path)" }
    }
}

