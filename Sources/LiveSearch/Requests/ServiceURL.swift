import Foundation

/// A search service's base URL, checked once, and the request URLs built on it.
///
/// Every path segment and query value a user or a server supplied is percent-encoded
/// here, in one place, so no query (`#`, `&`, `:`) and no cursor a server sent back can
/// change a URL's structure.
struct ServiceURL: Sendable {
    /// Scheme, host and any path prefix, without a trailing slash.
    let base: String

    init(_ raw: String) throws(LiveSearchError) {
        let raw = raw.trimmingCharacters(in: .whitespaces)
        guard raw.utf8.count <= 2048, let comps = URLComponents(string: raw),
              let scheme = comps.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = comps.host, !host.isEmpty, comps.query == nil, comps.fragment == nil
        else { throw .invalidBaseURL(raw) }
        var base = raw
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
    }

    /// `base + path`, with `items` as its query string (none when empty).
    func url(_ path: String, _ items: [(String, String)] = []) -> String {
        guard !items.isEmpty else { return base + path }
        return base + path + "?" + items.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
    }

    /// Whether a secret may be sent to it: over TLS, or to this machine (tests and local servers).
    var carriesSecrets: Bool {
        if base.lowercased().hasPrefix("https://") { return true }
        guard let host = URLComponents(string: base)?.host?.lowercased() else { return false }
        return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
    }

    /// RFC 3986 unreserved characters pass; everything else (`#`, `:`, space, `+`, `&`,
    /// `/`) is percent-encoded.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
