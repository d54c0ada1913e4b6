import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which `Host` a request may name: the server answers only for itself, so a page
/// on another site whose name was rebound to this machine's address (DNS rebinding)
/// gets 421 and reads nothing, as Jupyter, webpack-dev-server and Vite refuse it.
///
/// Its own hosts: a loopback name (`localhost`, `*.localhost`) or address (127.0.0.0/8,
/// `::1`), an address of one of this machine's interfaces, the `--public-url` host,
/// and each `--allow-host`. Case and a trailing dot are ignored; the port is not
/// looked at (a proxy may change it).
struct HostPolicy: Sendable {
    let names: Set<String>
    let addresses: Set<String>

    init(publicURL: String?, allowed: [String], interfaceAddresses: Set<String> = HostPolicy.interfaceAddresses()) {
        var names = Set(allowed.compactMap { Self.normalized($0) })
        if let publicURL, let host = URLComponents(string: publicURL)?.host.flatMap(Self.normalized) { names.insert(host) }
        self.names = names
        addresses = interfaceAddresses
    }

    /// Whether `authority` (a `Host` value, `name[:port]` or `[v6][:port]`) is one of ours.
    func allows(_ authority: String) -> Bool {
        guard let host = Self.host(of: authority) else { return false }
        return names.contains(host) || addresses.contains(host) || Self.isLoopback(host)
    }

    /// Whether a host name or address (as `--host` or a URL gives it) is this machine's
    /// loopback: `localhost`, 127.0.0.0/8 or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        guard let name = normalized(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) else { return false }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        var v4 = in_addr()
        return inet_pton(AF_INET, name, &v4) == 1 && UInt32(bigEndian: v4.s_addr) >> 24 == 127
    }

    /// The host of `name[:port]` or `[v6][:port]`, lower-cased, without a trailing dot.
    static func host(of authority: String) -> String? {
        guard !authority.isEmpty, authority.utf8.count <= 300 else { return nil }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isNumber), !host[..<colon].contains(":") else { return nil }
            host = host[..<colon]
        }
        return normalized(String(host))
    }

    static func normalized(_ name: String) -> String? {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0 != "/" }) else { return nil }
        return name
    }

    /// The addresses of this machine's interfaces, as `inet_ntop` writes them.
    static func interfaceAddresses() -> Set<String> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found = Set<String>()
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = node {
            defer { node = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var a = v4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var a = v6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                }
            default:
                continue
            }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.isEmpty { found.insert(string) }
        }
        return found
    }
}
