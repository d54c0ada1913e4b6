import Foundation
@testable import ObjectStore
import Synchronization
import Testing

/// A home folder with `.aws/config` and `.aws/credentials`, removed when released.
final class AWSHome: Sendable {
    let url: URL
    var path: String { url.path }

    init(config: String? = nil, credentials: String? = nil) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("aws-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent(".aws"), withIntermediateDirectories: true)
        if let config { try write(".aws/config", config) }
        if let credentials { try write(".aws/credentials", credentials) }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(relative)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    func resolve(_ environment: [String: String] = [:]) throws(AWSConfigurationError) -> AWSConfiguration {
        try AWSConfiguration(environment: environment, homeDirectory: path)
    }

    var configPath: String { url.appendingPathComponent(".aws/config").path }
    var credentialsPath: String { url.appendingPathComponent(".aws/credentials").path }
}

// MARK: - The INI reader

@Suite struct AWSConfigFileTests {
    @Test func configFileProfilesAreDefaultAndProfilePrefixedSections() {
        let file = AWSConfigFile.parse("""
            [default]
            region = eu-west-1
            [profile dev]
            Region=us-west-2
            [profile "two words"]
            region = ap-south-1
            [dev]
            region = not-a-profile
            [profilex odd]
            region = not-a-profile-either
            [sso-session corp]
            sso_region = us-east-1
            [services local]
            s3 =
              endpoint_url = http://localhost:9000
            """, kind: .config, path: "/c")
        #expect(file.text("region", profile: "default") == "eu-west-1")
        // Keys are case-insensitive; names are not.
        #expect(file.text("region", profile: "dev") == "us-west-2")
        #expect(file.text("region", profile: "two words") == "ap-south-1")
        #expect(Set(file.profiles.keys) == ["default", "dev", "two words"])
        #expect(file.service("local", "s3", "endpoint_url") == "http://localhost:9000")
        #expect(file.services.count == 1)
    }

    @Test func credentialsFileSectionsAreProfilesWithoutThePrefix() {
        let file = AWSConfigFile.parse("""
            [dev]
            aws_access_key_id = AKID
            [profile prod]
            aws_access_key_id = OTHER
            """, kind: .credentials, path: "/k")
        #expect(file.text("aws_access_key_id", profile: "dev") == "AKID")
        // As botocore: the credentials file has no `profile ` prefix, so this is a profile named "profile prod".
        #expect(file.text("aws_access_key_id", profile: "prod") == nil)
        #expect(file.text("aws_access_key_id", profile: "profile prod") == "OTHER")
    }

    @Test func commentsAreWholeLinesOrInlineAfterWhitespaceInTheConfigFileOnly() {
        let text = """
            # a comment
            ; another
            [default]
              # an indented comment
            region = eu-central-1 # trailing
            output = json;not-a-comment
            endpoint_url = http://h:9000 ; trailing
            note = a#b
            credential_process = /bin/helper --label "team #1" ; kept
            aws_secret_access_key = abc #def
            """
        let config = AWSConfigFile.parse(text, kind: .config, path: "/c")
        #expect(config.text("region", profile: "default") == "eu-central-1")
        #expect(config.text("output", profile: "default") == "json;not-a-comment")
        #expect(config.text("endpoint_url", profile: "default") == "http://h:9000")
        #expect(config.text("note", profile: "default") == "a#b")
        // A shell command keeps its text: quoting decides what # means there.
        #expect(config.text("credential_process", profile: "default") == "/bin/helper --label \"team #1\" ; kept")
        // The credentials file takes values whole.
        let credentials = AWSConfigFile.parse(text, kind: .credentials, path: "/k")
        #expect(credentials.text("aws_secret_access_key", profile: "default") == "abc #def")
        #expect(credentials.text("region", profile: "default") == "eu-central-1 # trailing")
    }

    @Test func indentedLinesAfterAnEmptyValueAreASubSection() {
        let file = AWSConfigFile.parse("""
            [services s]
            s3 =
              endpoint_url = http://one:1 # comment

              # a comment inside
              Addressing_Style = path
              no equals sign here
            dynamodb = # empty, then nested
                endpoint_url = http://two:2
            [profile p]
            region = us-east-2
              continued = dropped
            s3 =
            output = text
            """, kind: .config, path: "/c")
        #expect(file.services["s"]?["s3"] == .section(["endpoint_url": "http://one:1", "addressing_style": "path"]))
        #expect(file.service("s", "dynamodb", "endpoint_url") == "http://two:2")
        // A continuation of a non-empty value is dropped (botocore would glue it on).
        #expect(file.text("region", profile: "p") == "us-east-2")
        #expect(file.profiles["p"]?["continued"] == nil)
        // An empty value with no indented lines stays an empty text, and the next key is a key.
        #expect(file.profiles["p"]?["s3"] == .text(""))
        #expect(file.text("output", profile: "p") == "text")
    }

    @Test func malformedLinesAreSkippedAndNeverCrash() {
        let file = AWSConfigFile.parse("""
            orphan = before any section
            [default]
            region = us-east-1
            just some words
            = no key
            [profile broken
            region = lands-nowhere
            [profile ok]\r
            region = eu-north-1\r
            [profile ok]
            output = json
            [default]
            region = us-west-1
            [profile default]
            output = yaml
            []
            stray = value
            """, kind: .config, path: "/c")
        #expect(file.profiles["default"] == ["region": .text("us-west-1"), "output": .text("yaml")])
        // CRLF lines, and a repeated section merged into the first.
        #expect(file.profiles["ok"] == ["region": .text("eu-north-1"), "output": .text("json")])
        #expect(Set(file.profiles.keys) == ["default", "ok"])

        for garbage in ["[", "]", "=", "[[[", "\u{FEFF}[default]\nregion=x", "\0\0\u{1}", "[profile]\nx=1", "[profile  ]", "s3 =\n  =\n"] {
            _ = AWSConfigFile.parse(garbage, kind: .config, path: "/c")
            _ = AWSConfigFile.parse(garbage, kind: .credentials, path: "/k")
        }
        #expect(AWSConfigFile.parse("\u{FEFF}[default]\nregion=x", kind: .config, path: "/c").text("region", profile: "default") == "x")
        // Bytes that are not UTF-8 are replaced, not fatal.
        let bytes = Data([0x5B, 0x64, 0x65, 0x66, 0x61, 0x75, 0x6C, 0x74, 0x5D, 0x0A, 0xFF, 0xFE, 0x0A, 0x61, 0x3D, 0x62])
        #expect(AWSConfigFile.parse(String(decoding: bytes, as: UTF8.self), kind: .config, path: "/c").text("a", profile: "default") == "b")
    }

    @Test func filesAreReadUpToALimitMissingOnesAreNil() throws {
        let home = try AWSHome(config: "[default]\nregion = us-east-1\n")
        #expect(try AWSConfigFile.load(path: home.configPath, kind: .config)?.text("region", profile: "default") == "us-east-1")
        #expect(try AWSConfigFile.load(path: home.credentialsPath, kind: .credentials) == nil)
        #expect(try AWSConfigFile.load(path: home.url.appendingPathComponent(".aws").path, kind: .config) == nil)
        #expect(throws: AWSConfigurationError.fileTooLarge(path: home.configPath, limit: 10)) {
            try AWSConfigFile.load(path: home.configPath, kind: .config, limit: 10)
        }
        // A symlink (dotfile managers) is followed.
        let link = home.url.appendingPathComponent("linked-config").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: home.configPath)
        #expect(try AWSConfigFile.load(path: link, kind: .config)?.text("region", profile: "default") == "us-east-1")
    }
}

// MARK: - Resolution

@Suite struct AWSConfigurationTests {
    @Test func profileComesFromAWSProfileThenAWSDefaultProfileThenDefault() throws {
        let home = try AWSHome(config: """
            [default]
            region = us-east-1
            [profile a]
            region = eu-west-1
            [profile b]
            region = eu-west-2
            """)
        #expect(try home.resolve(["AWS_PROFILE": "a", "AWS_DEFAULT_PROFILE": "b"]).region == "eu-west-1")
        #expect(try home.resolve(["AWS_DEFAULT_PROFILE": "b"]).region == "eu-west-2")
        #expect(try home.resolve(["AWS_PROFILE": "  "]).profile == "default")
        let configuration = try home.resolve()
        #expect(configuration.profile == "default")
        #expect(configuration.configFile == home.configPath)
        #expect(configuration.credentialsFile == home.credentialsPath)
    }

    @Test func aNamedProfileMissingFromBothFilesIsAnErrorButAMissingDefaultIsNot() throws {
        let home = try AWSHome(config: "[profile a]\n", credentials: "[k]\n")
        let error = #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_PROFILE": "nope"]) }
        #expect(error == .profileNotFound(profile: "nope", variable: "AWS_PROFILE", configFile: home.configPath,
                                          credentialsFile: home.credentialsPath))
        #expect(error?.description.hasPrefix("The config profile (nope) could not be found") == true)
        #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_DEFAULT_PROFILE": "nope"]) }
        // Named explicitly, even `default` must exist (botocore raises ProfileNotFound for it too).
        #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_PROFILE": "default"]) }
        // A profile in either file is found.
        #expect(try home.resolve(["AWS_PROFILE": "a"]).profile == "a")
        #expect(try home.resolve(["AWS_PROFILE": "k"]).profile == "k")
        // No files at all, no profile named: everything has its default.
        let empty = try AWSHome()
        let configuration = try empty.resolve()
        #expect(configuration.region == "us-east-1" && configuration.regionSource == "default")
        #expect(configuration.endpoint == nil && configuration.endpointSource == nil && configuration.caBundle == nil)
        #expect(configuration.credentials == .instanceMetadata(endpoint: "http://169.254.169.254"))
    }

    @Test func fileLocationsComeFromTheirVariablesWithTildeExpanded() throws {
        let home = try AWSHome()
        try FileManager.default.createDirectory(at: home.url.appendingPathComponent("elsewhere"), withIntermediateDirectories: true)
        try home.write("elsewhere/conf", "[profile x]\nregion = sa-east-1\n")
        try home.write("elsewhere/creds", "[x]\naws_access_key_id = AKID\naws_secret_access_key = SECRET\n")
        let configuration = try home.resolve([
            "AWS_PROFILE": "x", "AWS_CONFIG_FILE": "~/elsewhere/conf", "AWS_SHARED_CREDENTIALS_FILE": "~/elsewhere/creds",
        ])
        #expect(configuration.region == "sa-east-1")
        #expect(configuration.configFile == home.path + "/elsewhere/conf")
        #expect(configuration.credentials == .keys(AWSKeys(accessKeyID: "AKID", secretAccessKey: "SECRET"),
                                                   source: "profile x in \(home.path)/elsewhere/creds"))
        // HOME stands for ~ when no home directory is given.
        let fromHome = try AWSConfiguration(environment: ["HOME": home.path, "AWS_CONFIG_FILE": "~/elsewhere/conf",
                                                          "AWS_PROFILE": "x", "AWS_EC2_METADATA_DISABLED": "true"])
        #expect(fromHome.region == "sa-east-1")
    }

    @Test func regionPrecedence() throws {
        let home = try AWSHome(config: "[default]\nregion = eu-west-3\n[profile both]\nregion = eu-west-1\n",
                               credentials: "[both]\nregion = eu-west-2\n")
        #expect(try home.resolve(["AWS_REGION": "ap-east-1", "AWS_DEFAULT_REGION": "ca-central-1"]).region == "ap-east-1")
        let fromDefault = try home.resolve(["AWS_DEFAULT_REGION": "ca-central-1"])
        #expect(fromDefault.region == "ca-central-1" && fromDefault.regionSource == "AWS_DEFAULT_REGION")
        let fromProfile = try home.resolve()
        #expect(fromProfile.region == "eu-west-3" && fromProfile.regionSource == "profile default in \(home.configPath)")
        // The credentials file's setting wins over the config file's, as botocore merges them.
        #expect(try home.resolve(["AWS_PROFILE": "both"]).region == "eu-west-2")
        #expect(try AWSHome().resolve().region == "us-east-1")

        let error = #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_REGION": "EU West"]) }
        #expect(error == .invalidRegion("EU West", source: "AWS_REGION"))
        let fromFile = try AWSHome(config: "[default]\nregion = us_east_1\n")
        #expect(throws: AWSConfigurationError.invalidRegion("us_east_1", source: "profile default in \(fromFile.configPath)")) {
            try fromFile.resolve()
        }
    }

    static let endpointConfig = """
        [default]
        endpoint_url = http://profile-wide:1
        services = local
        [profile plain]
        endpoint_url = https://plain.example:8443/
        [profile dangling]
        services = missing
        endpoint_url = http://fallback:3
        [profile ignoring]
        endpoint_url = http://ignored:4
        ignore_configured_endpoint_urls = TRUE
        [services local]
        s3 =
          endpoint_url = http://minio.local:9000
        sts =
          endpoint_url = http://not-s3:5
        """

    @Test func endpointPrecedence() throws {
        let home = try AWSHome(config: Self.endpointConfig)
        let s3 = try home.resolve(["AWS_ENDPOINT_URL_S3": "http://s3-var:7/", "AWS_ENDPOINT_URL": "http://global-var:8"])
        #expect(s3.endpoint == "http://s3-var:7" && s3.endpointSource == "AWS_ENDPOINT_URL_S3")
        let global = try home.resolve(["AWS_ENDPOINT_URL": "http://global-var:8"])
        #expect(global.endpoint == "http://global-var:8" && global.endpointSource == "AWS_ENDPOINT_URL")
        // The services section the profile names beats the profile's own endpoint_url.
        let services = try home.resolve()
        #expect(services.endpoint == "http://minio.local:9000")
        #expect(services.endpointSource == "s3 endpoint_url of [services local] (profile default) in \(home.configPath)")
        let plain = try home.resolve(["AWS_PROFILE": "plain"])
        #expect(plain.endpoint == "https://plain.example:8443" && plain.endpointSource == "profile plain in \(home.configPath)")
        // A services name with no section is skipped, as botocore does.
        #expect(try home.resolve(["AWS_PROFILE": "dangling"]).endpoint == "http://fallback:3")
    }

    @Test func configuredEndpointsCanBeIgnored() throws {
        let home = try AWSHome(config: Self.endpointConfig)
        let ignored = try home.resolve(["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true", "AWS_ENDPOINT_URL_S3": "http://s3-var:7"])
        #expect(ignored.endpoint == nil && ignored.endpointSource == nil)
        #expect(try home.resolve(["AWS_PROFILE": "ignoring", "AWS_ENDPOINT_URL": "http://global-var:8"]).endpoint == nil)
        // The variable, when set, decides over the profile's setting.
        #expect(try home.resolve(["AWS_PROFILE": "ignoring", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "false"]).endpoint
            == "http://ignored:4")
        #expect(try home.resolve(["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "yes"]).endpoint == "http://minio.local:9000")
    }

    @Test func anInvalidEndpointNamesItsSourceNeverItsValue() throws {
        let secret = "hunter2-secret"
        for bad in ["http://user:\(secret)@host:9000", "ftp://\(secret).example", "http://h/\(secret)/path", "http://h/?\(secret)",
                    "\(secret)", "http://", "https://h#\(secret)"] {
            let error = #expect(throws: AWSConfigurationError.self) { try AWSHome().resolve(["AWS_ENDPOINT_URL": bad]) }
            #expect(error == .invalidEndpoint(source: "AWS_ENDPOINT_URL"))
            #expect(error?.description.contains(secret) == false)
            #expect(error?.description.contains("AWS_ENDPOINT_URL") == true)
        }
        let home = try AWSHome(config: "[profile p]\nendpoint_url = http://user:\(secret)@h\n")
        let error = #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_PROFILE": "p"]) }
        #expect(error == .invalidEndpoint(source: "profile p in \(home.configPath)"))
        #expect(error?.description.contains(secret) == false)
        let services = try AWSHome(config: "[default]\nservices = s\n[services s]\ns3 =\n  endpoint_url = http://h/\(secret)\n")
        let fromServices = #expect(throws: AWSConfigurationError.self) { try services.resolve() }
        #expect(fromServices?.description.contains("[services s]") == true)
        #expect(fromServices?.description.contains(secret) == false)
        // Accepted forms.
        for (good, normalised) in [("http://127.0.0.1:9000/", "http://127.0.0.1:9000"), ("https://s3.example.com", "https://s3.example.com"),
                                   ("http://[::1]:9000", "http://[::1]:9000")] {
            #expect(try AWSHome().resolve(["AWS_ENDPOINT_URL_S3": good]).endpoint == normalised)
        }
    }

    @Test func caBundlePrecedence() throws {
        let home = try AWSHome(config: "[default]\nca_bundle = ~/certs/ca.pem\n")
        #expect(try home.resolve(["AWS_CA_BUNDLE": "/etc/ssl/mine.pem"]).caBundle == "/etc/ssl/mine.pem")
        #expect(try home.resolve().caBundle == home.path + "/certs/ca.pem")
        #expect(try AWSHome().resolve().caBundle == nil)
    }

    // MARK: Credentials

    static let everySource = (
        config: """
            [default]
            credential_process = printf from-process
            aws_access_key_id = CONFIG_ID
            aws_secret_access_key = CONFIG_SECRET
            """,
        credentials: """
            [default]
            aws_access_key_id = FILE_ID
            aws_secret_access_key = FILE_SECRET
            aws_session_token = FILE_TOKEN
            """
    )

    @Test func credentialSourcesFollowBotocoresOrder() throws {
        let home = try AWSHome(config: Self.everySource.config, credentials: Self.everySource.credentials)
        let container = ["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc"]
        var environment = container.merging(["AWS_ACCESS_KEY_ID": "ENV_ID", "AWS_SECRET_ACCESS_KEY": "ENV_SECRET",
                                             "AWS_SESSION_TOKEN": "ENV_TOKEN"]) { $1 }
        // 1. The environment.
        #expect(try home.resolve(environment).credentials
            == .keys(AWSKeys(accessKeyID: "ENV_ID", secretAccessKey: "ENV_SECRET", sessionToken: "ENV_TOKEN"),
                     source: "environment variables"))
        environment = container
        // 2. The credentials file.
        #expect(try home.resolve(environment).credentials
            == .keys(AWSKeys(accessKeyID: "FILE_ID", secretAccessKey: "FILE_SECRET", sessionToken: "FILE_TOKEN"),
                     source: "profile default in \(home.credentialsPath)"))
        // 3. credential_process.
        try home.write(".aws/credentials", "[default]\nregion = us-east-1\n")
        #expect(try home.resolve(environment).credentials
            == .process(command: "printf from-process", source: "credential_process of profile default in \(home.configPath)"))
        // 4. The config file's keys.
        try home.write(".aws/config", "[default]\naws_access_key_id = CONFIG_ID\naws_secret_access_key = CONFIG_SECRET\n")
        #expect(try home.resolve(environment).credentials
            == .keys(AWSKeys(accessKeyID: "CONFIG_ID", secretAccessKey: "CONFIG_SECRET"), source: "profile default in \(home.configPath)"))
        // 5. The container endpoint.
        try home.write(".aws/config", "[default]\n")
        #expect(try home.resolve(environment).credentials == .container(url: "http://169.254.170.2/v2/credentials/abc", authorization: nil))
        // 6. Instance metadata, unless disabled.
        #expect(try home.resolve().credentials == .instanceMetadata(endpoint: "http://169.254.169.254"))
        #expect(try home.resolve(["AWS_EC2_METADATA_DISABLED": "TRUE"]).credentials == .none)
    }

    @Test func halfAKeyPairIsAnErrorNamingTheMissingHalfNeverTheValue() throws {
        let environment = #expect(throws: AWSConfigurationError.self) {
            try AWSHome().resolve(["AWS_ACCESS_KEY_ID": "AKIDVALUE"])
        }
        #expect(environment == .partialCredentials(missing: "AWS_SECRET_ACCESS_KEY", source: "environment variables"))
        #expect(environment?.description.contains("AKIDVALUE") == false)
        #expect(throws: AWSConfigurationError.partialCredentials(missing: "AWS_ACCESS_KEY_ID", source: "environment variables")) {
            try AWSHome().resolve(["AWS_SECRET_ACCESS_KEY": "SECRETVALUE"])
        }
        let file = try AWSHome(credentials: "[default]\naws_secret_access_key = SECRETVALUE\n")
        let fromFile = #expect(throws: AWSConfigurationError.self) { try file.resolve() }
        #expect(fromFile == .partialCredentials(missing: "aws_access_key_id", source: "profile default in \(file.credentialsPath)"))
        #expect(fromFile?.description.contains("SECRETVALUE") == false)
        let config = try AWSHome(config: "[profile p]\naws_access_key_id = AKIDVALUE\n")
        #expect(throws: AWSConfigurationError.partialCredentials(missing: "aws_secret_access_key",
                                                                 source: "profile p in \(config.configPath)")) {
            try config.resolve(["AWS_PROFILE": "p"])
        }
    }

    @Test func profilesThatNeedUnsupportedProvidersFailInsteadOfFallingThrough() throws {
        let home = try AWSHome(config: """
            [profile role]
            role_arn = arn:aws:iam::123456789012:role/r
            source_profile = default
            [profile sso]
            sso_session = corp
            sso_account_id = 123456789012
            [profile web]
            web_identity_token_file = /var/token
            role_arn = arn:aws:iam::123456789012:role/w
            """, credentials: "[default]\naws_access_key_id = A\naws_secret_access_key = B\n")
        for profile in ["role", "sso", "web"] {
            let error = #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_PROFILE": profile]) }
            #expect(error?.description.contains("aws configure export-credentials --profile \(profile)") == true)
        }
        #expect(throws: AWSConfigurationError.self) {
            try home.resolve(["AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token", "AWS_ROLE_ARN": "arn:aws:iam::1:role/x"])
        }
        // Keys in the environment come first, as in botocore.
        #expect(try home.resolve(["AWS_PROFILE": "role", "AWS_ACCESS_KEY_ID": "E", "AWS_SECRET_ACCESS_KEY": "S"]).credentials
            == .keys(AWSKeys(accessKeyID: "E", secretAccessKey: "S"), source: "environment variables"))
    }

    @Test func containerEndpointsAndTheirAuthorization() throws {
        let home = try AWSHome()
        let tokenFile = try home.write("token", "  eks-token-value\n")
        // The relative URI wins over the full one.
        #expect(try home.resolve(["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "v2/creds",
                                  "AWS_CONTAINER_CREDENTIALS_FULL_URI": "https://example.com/creds"]).credentials
            == .container(url: "http://169.254.170.2/v2/creds", authorization: nil))
        // The token file wins over the token variable, trimmed, and is kept to be read again.
        #expect(try home.resolve(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.23/v1/credentials",
                                  "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": tokenFile,
                                  "AWS_CONTAINER_AUTHORIZATION_TOKEN": "from-variable"]).credentials
            == .container(url: "http://169.254.170.23/v1/credentials", authorization: "eks-token-value", authorizationFile: tokenFile))
        #expect(try home.resolve(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://localhost:8080/c",
                                  "AWS_CONTAINER_AUTHORIZATION_TOKEN": "from-variable"]).credentials
            == .container(url: "http://localhost:8080/c", authorization: "from-variable"))

        let allowed = ["https://anything.example/c", "http://127.0.0.1/c", "http://127.3.4.5:99/c", "http://localhost/c",
                       "http://LOCALHOST/c", "http://[::1]/c", "http://[0:0:0:0:0:0:0:1]/c", "http://169.254.170.2/c",
                       "http://169.254.170.23/c", "http://[fd00:ec2::23]/c", "http://[fd00:0ec2:0:0:0:0:0:23]:80/c"]
        for url in allowed {
            #expect(try home.resolve(["AWS_CONTAINER_CREDENTIALS_FULL_URI": url]).credentials == .container(url: url, authorization: nil))
        }
        let refused = ["http://example.com/c", "http://10.0.0.1/c", "http://169.254.170.3/c", "http://128.0.0.1/c",
                       "http://127.0.0.1.example.com/c", "http://[fd00:ec2::24]/c", "http://[::2]/c", "ftp://127.0.0.1/c", "not a url"]
        for url in refused {
            let error = #expect(throws: AWSConfigurationError.self, "\(url)") {
                try home.resolve(["AWS_CONTAINER_CREDENTIALS_FULL_URI": url])
            }
            #expect(error?.description.contains("AWS_CONTAINER_CREDENTIALS_FULL_URI") == true)
        }

        // A token that cannot go into a header, or a file that is not there.
        #expect(throws: AWSConfigurationError.self) {
            try home.resolve(["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/c", "AWS_CONTAINER_AUTHORIZATION_TOKEN": "a\nInjected: b"])
        }
        let missing = #expect(throws: AWSConfigurationError.self) {
            try home.resolve(["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/c",
                              "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": home.path + "/no-such-token"])
        }
        #expect(missing?.description.contains("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE") == true)
    }

    @Test func instanceMetadataEndpointComesFromTheVariableOrTheProfile() throws {
        let home = try AWSHome(config: "[default]\nec2_metadata_service_endpoint = http://127.0.0.1:1338/\n[profile six]\nec2_metadata_service_endpoint_mode = IPv6\n")
        #expect(try home.resolve(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:9999"]).credentials
            == .instanceMetadata(endpoint: "http://127.0.0.1:9999"))
        #expect(try home.resolve().credentials == .instanceMetadata(endpoint: "http://127.0.0.1:1338"))
        #expect(try home.resolve(["AWS_PROFILE": "six"]).credentials == .instanceMetadata(endpoint: "http://[fd00:ec2::254]"))
        #expect(throws: AWSConfigurationError.self) { try home.resolve(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "169.254.169.254"]) }
    }

    @Test func keysAndSourcesNeverPrintTheirSecrets() throws {
        let keys = AWSKeys(accessKeyID: "AKIAEXAMPLEID", secretAccessKey: "wJalrSECRET", sessionToken: "TOKENVALUE",
                           expiration: Date(timeIntervalSince1970: 1_900_000_000))
        let home = try AWSHome(credentials: "[default]\naws_access_key_id = AKIAEXAMPLEID\naws_secret_access_key = wJalrSECRET\naws_session_token = TOKENVALUE\n")
        let configuration = try home.resolve()
        var dumped = ""
        dump(keys, to: &dumped)
        dump(configuration, to: &dumped)
        let sources: [CredentialSource] = [
            .keys(keys, source: "environment variables"),
            .process(command: "helper --password PASSWORDVALUE", source: "credential_process of profile p in /c"),
            .container(url: "http://127.0.0.1/c", authorization: "TOKENVALUE"),
        ]
        var printed = [String(describing: keys), String(reflecting: keys), "\(keys)", String(describing: configuration),
                       String(reflecting: configuration), dumped]
        for source in sources {
            var dump = ""
            Swift.dump(source, to: &dump)
            printed += [String(describing: source), String(reflecting: source), dump]
        }
        for text in printed {
            for secret in ["AKIAEXAMPLEID", "wJalrSECRET", "TOKENVALUE", "PASSWORDVALUE"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
        #expect(CredentialProvider(source: configuration.credentials, http: { _ in nil }).sourceDescription
            == "profile default in \(home.credentialsPath)")
    }
}

// MARK: - Fetching and refreshing

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let time: Mutex<Date>
    init(_ start: Date) { time = Mutex(start) }
    var now: Date { time.withLock { $0 } }
    func set(_ date: Date) { time.withLock { $0 = date } }
    var function: @Sendable () -> Date { { self.now } }
}

/// An HTTPCall that records requests and answers from a handler.
final class RecordingHTTP: Sendable {
    struct Request: Sendable, Equatable {
        let method: String
        let url: String
        let headers: [String: String]
    }

    private let recorded = Mutex<[Request]>([])
    private let handler: @Sendable (Request, Int) -> (status: Int, body: [UInt8])?

    /// `handler` gets each request and how many came before it.
    init(_ handler: @escaping @Sendable (Request, Int) -> (status: Int, body: [UInt8])?) { self.handler = handler }

    var requests: [Request] { recorded.withLock { $0 } }

    var call: CredentialProvider.HTTPCall {
        { call in
            let request = Request(method: call.head.method.rawValue, url: call.url,
                                  headers: Dictionary(call.headers.map { ($0.name.rawName, $0.value) }) { $1 })
            let index = self.recorded.withLock { requests in
                requests.append(request)
                return requests.count - 1
            }
            // Let other callers run between request and answer, as a network would.
            await Task.yield()
            return self.handler(request, index)
        }
    }
}

@Suite struct CredentialProviderTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)
    static func time(_ offset: TimeInterval) -> String { (start + offset).formatted(.iso8601) }
    static func json(_ object: [String: Any]) -> [UInt8] { Array(try! JSONSerialization.data(withJSONObject: object)) }

    static func provider(_ command: String, deadline: Duration = .seconds(30), clock: ManualClock = ManualClock(start)) -> CredentialProvider {
        CredentialProvider(source: .process(command: command, source: "credential_process of profile p"),
                           http: { _ in nil }, now: clock.function, processDeadline: deadline)
    }

    @Test func credentialProcessOutputBecomesKeys() async throws {
        let keys = try await Self.provider("""
            printf '{"Version": 1, "AccessKeyId": "AKID", "SecretAccessKey": "SECRET", "SessionToken": "TOKEN", "Expiration": "2030-01-01T00:00:00Z"}'
            """).keys()
        #expect(keys == AWSKeys(accessKeyID: "AKID", secretAccessKey: "SECRET", sessionToken: "TOKEN",
                                expiration: try Date("2030-01-01T00:00:00Z", strategy: .iso8601)))
        // Long-lived keys: no token, no expiration; and a shell pipeline works.
        let plain = try await Self.provider("echo x >/dev/null; printf '{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"}' | cat").keys()
        #expect(plain == AWSKeys(accessKeyID: "A", secretAccessKey: "S"))
    }

    @Test func aFailingProcessReportsItsStatusNotItsOutput() async throws {
        let error = await #expect(throws: AWSConfigurationError.self) {
            try await Self.provider("echo SECRET-ON-STDERR >&2; echo SECRET-ON-STDOUT; exit 3").keys()
        }
        #expect(error == .credentialProcessFailed(source: "credential_process of profile p", reason: "exited with status 3"))
        #expect(error?.description.contains("SECRET") == false)
        let missing = await #expect(throws: AWSConfigurationError.self) { try await Self.provider("/no/such/helper").keys() }
        #expect(missing == .credentialProcessFailed(source: "credential_process of profile p", reason: "exited with status 127"))
    }

    @Test func aHangingProcessIsStoppedAtTheDeadline() async throws {
        // `sleep` is a child of the shell here: the whole group must go for the pipe to close.
        try await Self.expectStoppedAtTheDeadline(holdingEveryTaskThread: false)
    }

    /// The deadline holds while the tasks' shared threads are all busy: blocked by
    /// other work (a loaded server, the rest of a test suite), they cannot run a timer
    /// that is a task, and a process stopped "at 500 ms" ran on for a minute. Here every
    /// thread of the pool is held from the moment the process starts until it is gone.
    @Test func theDeadlineHoldsWhileEveryTaskThreadIsBusy() async throws {
        try await Self.expectStoppedAtTheDeadline(holdingEveryTaskThread: true)
    }

    /// Runs a `credential_process` that would take 30 s, with a deadline of 500 ms, and
    /// expects it (the shell and its `sleep`) gone well before its end. How long the
    /// process lived is seen from a thread outside the task pool, as the end of a FIFO
    /// the process holds open, with the kernel's clock (`poll`'s 20 s): not from the
    /// test's task, whose resumption a saturated pool can delay by as long (a fresh
    /// clone's first suite once resumed it 27 s late, long after the process was gone).
    static func expectStoppedAtTheDeadline(holdingEveryTaskThread: Bool) async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("tc-cred-\(UUID().uuidString).fifo")
        defer { try? FileManager.default.removeItem(at: fifo) }
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let lanes = holdingEveryTaskThread ? ProcessInfo.processInfo.activeProcessorCount : 0
        let stopped = Mutex<Bool?>(nil)
        let watcher = Thread {
            defer { done.signal() }
            // Opened once the shell opens its end: the process has started.
            let fd = open(fifo.path, O_RDONLY)
            guard fd >= 0 else {
                stopped.withLock { $0 = false }
                return
            }
            // Every thread of the pool held until the process and its child are gone (or 20 s).
            for _ in 0..<lanes { Task.detached { release.wait() } }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            let gone = poll(&poller, 1, 20_000) == 1 && read(fd, &byte, 1) == 0
            close(fd)
            stopped.withLock { $0 = gone }
            for _ in 0..<lanes { release.signal() }
        }
        watcher.start()
        let error = await #expect(throws: AWSConfigurationError.self) {
            try await Self.provider("exec 3>'\(fifo.path)'; sleep 30; echo late", deadline: .milliseconds(500)).keys()
        }
        // A process that never started leaves the watcher waiting for a writer: one comes
        // and goes, so the test fails (on its reason) instead of hanging.
        let nudge = open(fifo.path, O_WRONLY | O_NONBLOCK)
        if nudge >= 0 { close(nudge) }
        await Task.detached { done.wait() }.value
        #expect(stopped.withLock { $0 } == true, "stopped within 20 s of its start, not waited out")
        guard case let .credentialProcessFailed(_, reason)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(reason.contains("did not finish within"))
    }

    @Test func processOutputThatIsNotVersionOneJSONIsRefused() async throws {
        let cases: [(String, String)] = [
            ("printf '{\"Version\":2,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"}'", "Version"),
            ("printf '{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"}'", "Version"),
            ("printf 'AKID SECRET'", "not a JSON object"),
            ("printf '{\"Version\":1,\"AccessKeyId\":\"A\"}'", "SecretAccessKey is missing"),
            ("printf '{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\",\"Expiration\":\"tomorrow\"}'", "Expiration"),
        ]
        for (command, expected) in cases {
            let error = await #expect(throws: AWSConfigurationError.self, "\(command)") { try await Self.provider(command).keys() }
            #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
        }
        let flood = await #expect(throws: AWSConfigurationError.self) { try await Self.provider("head -c 100000 /dev/zero").keys() }
        #expect(flood?.description.contains("wrote more than") == true)
    }

    @Test func temporaryProcessKeysAreFetchedAgainFiveMinutesBeforeTheyExpire() async throws {
        let home = try AWSHome()
        let counter = home.url.appendingPathComponent("count").path
        let expiration = Self.time(3600)
        // Each run counts itself in a file and says so in its key ID.
        let command = """
            n=$(cat '\(counter)' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '\(counter)'
            printf '{"Version":1,"AccessKeyId":"AK%s","SecretAccessKey":"S","Expiration":"\(expiration)"}' $n
            """
        let clock = ManualClock(Self.start)
        let provider = Self.provider(command, clock: clock)
        #expect(try await provider.keys().accessKeyID == "AK1")
        clock.set(Self.start + 3600 - 301)
        #expect(try await provider.keys().accessKeyID == "AK1")
        clock.set(Self.start + 3600 - 300)
        #expect(try await provider.keys().accessKeyID == "AK2")
        #expect(try await provider.keys().accessKeyID == "AK2")
    }

    @Test func containerCredentialsAreAGetWithTheAuthorizationHeader() async throws {
        let home = try AWSHome()
        let tokenFile = try home.write("token", "first-token\n")
        let http = RecordingHTTP { request, index in
            (200, Self.json(["AccessKeyId": "AK\(index)", "SecretAccessKey": "S", "Token": "T", "Expiration": Self.time(3600 * Double(index + 1))]))
        }
        let clock = ManualClock(Self.start)
        let provider = CredentialProvider(source: .container(url: "http://169.254.170.23/v1/credentials", authorization: "first-token",
                                                             authorizationFile: tokenFile),
                                          http: http.call, now: clock.function)
        #expect(provider.sourceDescription == "container credentials endpoint")
        let keys = try await provider.keys()
        #expect(keys == AWSKeys(accessKeyID: "AK0", secretAccessKey: "S", sessionToken: "T", expiration: Self.start + 3600))
        // EKS rotates the token in its file: the next fetch sends the new one.
        try home.write("token", "second-token")
        clock.set(Self.start + 3600 - 60)
        #expect(try await provider.keys().accessKeyID == "AK1")
        #expect(http.requests == [
            .init(method: "GET", url: "http://169.254.170.23/v1/credentials", headers: ["Authorization": "first-token", "Accept": "application/json"]),
            .init(method: "GET", url: "http://169.254.170.23/v1/credentials", headers: ["Authorization": "second-token", "Accept": "application/json"]),
        ])

        let refused = CredentialProvider(source: .container(url: "http://127.0.0.1/c", authorization: nil),
                                         http: RecordingHTTP { _, _ in (403, Array("denied".utf8)) }.call)
        #expect(await #expect(throws: AWSConfigurationError.self) { try await refused.keys() }
            == .credentialsUnavailable(source: "container credentials endpoint", reason: "answered HTTP 403"))
        let noExpiration = CredentialProvider(source: .container(url: "http://127.0.0.1/c", authorization: nil),
                                              http: RecordingHTTP { _, _ in (200, Self.json(["AccessKeyId": "A", "SecretAccessKey": "S"])) }.call)
        #expect(await #expect(throws: AWSConfigurationError.self) { try await noExpiration.keys() }
            == .malformedCredentials(source: "container credentials endpoint", reason: "Expiration is missing"))
    }

    static func metadataService(role: String = "the-role", roleStatus: Int = 200, code: String = "Success") -> RecordingHTTP {
        RecordingHTTP { request, index in
            switch (request.method, request.url) {
            case ("PUT", "http://169.254.169.254/latest/api/token"): return (200, Array("TOKEN-\(index)".utf8))
            case ("GET", "http://169.254.169.254/latest/meta-data/iam/security-credentials/"):
                return (roleStatus, Array("\(role)\nsecond-line\n".utf8))
            case ("GET", "http://169.254.169.254/latest/meta-data/iam/security-credentials/\(role)"):
                return (200, json(["Code": code, "LastUpdated": time(0), "Type": "AWS-HMAC", "AccessKeyId": "AK\(index)",
                                   "SecretAccessKey": "S", "Token": "T", "Expiration": time(6 * 3600)]))
            default: return (404, [])
            }
        }
    }

    @Test func instanceMetadataIsTokenThenRoleThenCredentials() async throws {
        let http = Self.metadataService()
        let provider = CredentialProvider(source: .instanceMetadata(endpoint: "http://169.254.169.254"), http: http.call,
                                          now: ManualClock(Self.start).function)
        #expect(provider.sourceDescription == "instance metadata (IMDSv2)")
        #expect(try await provider.keys() == AWSKeys(accessKeyID: "AK2", secretAccessKey: "S", sessionToken: "T",
                                                     expiration: Self.start + 6 * 3600))
        #expect(http.requests == [
            .init(method: "PUT", url: "http://169.254.169.254/latest/api/token", headers: ["X-aws-ec2-metadata-token-ttl-seconds": "21600"]),
            .init(method: "GET", url: "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
                  headers: ["X-aws-ec2-metadata-token": "TOKEN-0"]),
            .init(method: "GET", url: "http://169.254.169.254/latest/meta-data/iam/security-credentials/the-role",
                  headers: ["X-aws-ec2-metadata-token": "TOKEN-0"]),
        ])
    }

    @Test func instanceMetadataFailuresSayWhatWentWrong() async throws {
        func error(_ http: RecordingHTTP) async -> AWSConfigurationError? {
            let provider = CredentialProvider(source: .instanceMetadata(endpoint: "http://169.254.169.254"), http: http.call)
            return await #expect(throws: AWSConfigurationError.self) { try await provider.keys() }
        }
        let silent = await error(RecordingHTTP { _, _ in nil })
        #expect(silent?.description.contains("did not answer") == true)
        #expect(silent?.description.contains("AWS_EC2_METADATA_DISABLED") == true)
        #expect(await error(Self.metadataService(roleStatus: 404))?.description.contains("no IAM role") == true)
        #expect(await error(Self.metadataService(code: "Failure"))?.description.contains("Code Failure") == true)
        #expect(await error(Self.metadataService(role: "../escape"))?.description.contains("role name") == true)
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let http = Self.metadataService()
        let provider = CredentialProvider(source: .instanceMetadata(endpoint: "http://169.254.169.254"), http: http.call,
                                          now: ManualClock(Self.start).function)
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await provider.keys().accessKeyID } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids == ["AK2"])
        #expect(http.requests.count == 3)
    }

    @Test func aFailedFetchIsNotKeptAndIsTriedAgain() async throws {
        let http = RecordingHTTP { _, index in
            index == 0 ? nil : (200, Self.json(["AccessKeyId": "A", "SecretAccessKey": "S", "Expiration": Self.time(3600)]))
        }
        let provider = CredentialProvider(source: .container(url: "http://127.0.0.1/c", authorization: nil), http: http.call,
                                          now: ManualClock(Self.start).function)
        await #expect(throws: AWSConfigurationError.self) { try await provider.keys() }
        #expect(try await provider.keys().accessKeyID == "A")
        #expect(try await provider.keys().accessKeyID == "A")
        #expect(http.requests.count == 2)
    }

    @Test func staticKeysAndNoSourceNeedNoFetch() async throws {
        let keys = AWSKeys(accessKeyID: "A", secretAccessKey: "S")
        let http = RecordingHTTP { _, _ in nil }
        #expect(try await CredentialProvider(source: .keys(keys, source: "environment variables"), http: http.call).keys() == keys)
        let none = CredentialProvider(source: .none, http: http.call)
        let error = await #expect(throws: AWSConfigurationError.self) { try await none.keys() }
        #expect(error?.description.hasPrefix("no AWS credentials") == true)
        #expect(http.requests.isEmpty)
    }
}
