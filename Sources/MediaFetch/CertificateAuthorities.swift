import Foundation

/// The certificate authorities a server's TLS certificate must chain to.
///
/// The default is the system's trust store, as libcurl was built to find it. Users behind
/// a TLS-inspecting proxy, or fetching from a private mirror, add their own CA the way
/// they already do for curl: a PEM bundle (`--cacert`, `CURL_CA_BUNDLE`, `SSL_CERT_FILE`)
/// or a hashed directory (`SSL_CERT_DIR`). There is deliberately no way to turn
/// verification off: a media URL comes from a stranger, and so could the network.
public struct CertificateAuthorities: Sendable, Hashable {
    /// A PEM file of CA certificates; replaces the system bundle (libcurl's `CAINFO`).
    public var bundleFile: String?
    /// Directories of CA certificates named by subject hash (`c_rehash`; libcurl's
    /// `CAPATH`), separated by colons.
    public var directory: String?

    public init(bundleFile: String? = nil, directory: String? = nil) {
        self.bundleFile = bundleFile
        self.directory = directory
    }

    /// The system's trust store.
    public static let system = CertificateAuthorities()

    /// What curl would use given these environment variables: `CURL_CA_BUNDLE` first;
    /// otherwise `SSL_CERT_FILE` and `SSL_CERT_DIR` (OpenSSL's names). Empty values
    /// count as unset.
    public static func fromEnvironment(_ environment: [String: String]) -> CertificateAuthorities {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let bundle = value("CURL_CA_BUNDLE") { return CertificateAuthorities(bundleFile: bundle) }
        return CertificateAuthorities(bundleFile: value("SSL_CERT_FILE"), directory: value("SSL_CERT_DIR"))
    }

    /// Why these cannot be used, or nil when they can. Checked once when a fetcher is
    /// made, so a mistyped path stops the run with one clear error instead of failing
    /// every HTTPS download with the same one.
    public var problem: String? {
        if let bundleFile {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: bundleFile, isDirectory: &isDirectory), !isDirectory.boolValue
            else { return "the CA bundle \(bundleFile) is not a file" }
            guard FileManager.default.isReadableFile(atPath: bundleFile) else {
                return "the CA bundle \(bundleFile) cannot be read"
            }
            guard let head = FileHandle(forReadingAtPath: bundleFile).flatMap({ try? $0.read(upToCount: 1 << 20) }),
                  head.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil
            else { return "the CA bundle \(bundleFile) holds no PEM certificate (-----BEGIN CERTIFICATE-----)" }
        }
        if let directory {
            // OpenSSL (and so curl) take a colon-separated list of directories.
            for part in directory.split(separator: ":").map(String.init) where !part.isEmpty {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: part, isDirectory: &isDirectory), isDirectory.boolValue
                else { return "the CA directory \(part) is not a directory" }
            }
        }
        return nil
    }
}
