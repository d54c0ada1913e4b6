/// Where a post was published. The pipeline after parsing does not care; people
/// reading a manifest or the viewer do (profile and post links differ).
///
/// Everything that differs per network once posts are parsed is here: its name and its
/// links. The CLI (`info`, `tweets`), the IIIF manifests and the viewer (through the
/// feed's `links`) all ask this type, so a new network adds its links once.
public enum Network: String, Sendable, Codable, Hashable, CaseIterable {
    /// X (Twitter): API v1.1 and v2.
    case x
    /// Mastodon and other servers speaking its REST API.
    case mastodon
    /// Bluesky: the AT Protocol's `app.bsky` AppView.
    case bluesky

    /// A manifest's `network` field; manifests from before other networks have none, and
    /// were X's. Nil for a network this build does not know (a newer build's, or a
    /// stranger's): such a post gets no links rather than X's.
    public init?(manifestValue: String?) {
        guard let value = manifestValue else { self = .x; return }
        self.init(rawValue: value)
    }

    /// How people name it.
    public var displayName: String {
        switch self {
        case .x: "X"
        case .mastodon: "Mastodon"
        case .bluesky: "Bluesky"
        }
    }

    /// A post's page: X's made from the handle and id; Mastodon's and Bluesky's the page
    /// the API gave (`url`), when it is an http(s) URL. Nil when there is none to trust.
    public func postURL(id: String, handle: String, given url: String?) -> String? {
        switch self {
        case .x:
            guard Self.isPlain(handle, extra: "_"), !id.isEmpty, id.utf8.count <= 32,
                  id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return "https://x.com/\(handle)/status/\(id)"
        case .mastodon, .bluesky:
            guard let url, url.utf8.count <= 2048 else { return nil }
            let lower = url.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
                  !url.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
            else { return nil }
            return url
        }
    }

    /// An author's profile page. Handles come from strangers: one that is not plain
    /// characters gets no link rather than one somewhere else.
    ///
    /// Mastodon's `acct` is `user@host` for remote accounts and `user` for the post's own
    /// server, whose host is taken from the post's page.
    public func profileURL(handle: String, postURL: String?) -> String? {
        switch self {
        case .x:
            return Self.isPlain(handle, extra: "_") ? "https://x.com/\(handle)" : nil
        case .bluesky:
            // Handles are domain names; an account without one is named by its DID.
            return Self.isPlain(handle, extra: "_.-:") ? "https://bsky.app/profile/\(handle)" : nil
        case .mastodon:
            // `a@b.example@evil.example` must not become a URL that opens evil.example.
            let parts = handle.split(separator: "@", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count) else { return nil }
            let host = parts.count == 2 ? String(parts[1]) : postURL.flatMap(Self.host(of:))
            guard let host, Self.isPlain(host, extra: ".-"), Self.isPlain(String(parts[0]), extra: "_.-") else { return nil }
            return "https://\(host)/@\(parts[0])"
        }
    }

    /// ASCII letters and digits and the `extra` characters, 1 to 253 of them.
    private static func isPlain(_ text: String, extra: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || extra.unicodeScalars.contains($0))
        }
    }

    /// The host of an http(s) URL, without its port or user.
    private static func host(of url: String) -> String? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") { rest = url.dropFirst(8) } else if lower.hasPrefix("http://") { rest = url.dropFirst(7) } else { return nil }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return nil }
        let host = authority.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return host.isEmpty ? nil : host
    }
}
