import Foundation

/// Rewrites URLs of chosen hosts to another origin (`--mirror HOST=BASEURL`).
///
/// The manifest and index keep the original URL: a mirror is only where bytes come
/// from, never part of an item's identity. The demo and the tests use it to serve
/// `pbs.twimg.com` URLs from a loopback origin; users use it behind a caching proxy.
public struct MirrorMap: Sendable, Equatable {
    private var bases: [String: String] = [:]

    public init() {}

    /// Parses `HOST[:PORT]=BASEURL`; the base must itself be an http(s) URL. A
    /// `HOST:PORT` mirrors only URLs with that explicit port; a bare `HOST`, every
    /// URL of the host (whatever its port).
    public init(specs: [String]) throws(FetchError) {
        for spec in specs {
            guard let eq = spec.firstIndex(of: "=") else {
                throw .invalidMirror(spec, "expected HOST=BASEURL")
            }
            let host = spec[..<eq].lowercased()
            var base = String(spec[spec.index(after: eq)...])
            while base.hasSuffix("/") { base.removeLast() }
            guard !host.isEmpty, !host.contains("/") else { throw .invalidMirror(spec, "HOST must be a bare host name") }
            if let colon = host.lastIndex(of: ":") {
                // `name:port`, or `[v6]:port`; a colon anywhere else would never match a URL.
                let name = host[..<colon], port = host[host.index(after: colon)...]
                let bracketed = name.hasPrefix("[") && name.hasSuffix("]")
                guard !name.isEmpty, bracketed || !name.contains(":"), let number = Int(port), (1...65535).contains(number),
                      port.allSatisfy(\.isNumber)
                else { throw .invalidMirror(spec, "HOST must be HOST or HOST:PORT (a port of 1-65535)") }
            }
            guard let comps = URLComponents(string: base), let scheme = comps.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", comps.host?.isEmpty == false
            else { throw .invalidMirror(spec, "BASEURL must be an http or https URL") }
            bases[host] = base
        }
    }

    public var isEmpty: Bool { bases.isEmpty }

    /// The `HOST` or `HOST:PORT` of each mirror, as given.
    public var hosts: [String] { bases.keys.sorted() }

    /// The mirror that `url` would be fetched through (its `HOST` or `HOST:PORT`), if any.
    public func mirrorHost(of url: String) -> String? {
        guard !bases.isEmpty, let comps = URLComponents(string: url), var host = comps.host?.lowercased() else { return nil }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        if let port = comps.port, bases["\(host):\(port)"] != nil { return "\(host):\(port)" }
        return bases[host] != nil ? host : nil
    }

    /// The URL to actually fetch for `url`: unchanged unless its host is mirrored.
    public func resolve(_ url: String) -> String {
        guard !bases.isEmpty, let comps = URLComponents(string: url), var host = comps.host?.lowercased() else { return url }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let withPort = comps.port.map { "\(host):\($0)" }
        guard let base = withPort.flatMap({ bases[$0] }) ?? bases[host] else { return url }
        var rest = comps.percentEncodedPath
        if !rest.hasPrefix("/") { rest = "/" + rest }
        if let q = comps.percentEncodedQuery { rest += "?" + q }
        return base + rest
    }
}
