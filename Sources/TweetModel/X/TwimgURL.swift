/// Rewrites of Twitter image URLs to the renditions worth caching.
///
/// Plain string surgery rather than `URLComponents`: the inputs are untrusted, the
/// rules touch only the last path component and the query, and anything that does
/// not look like a Twitter image URL must come back byte-for-byte unchanged.
enum TwimgURL {
    /// The original-size rendition of a `pbs.twimg.com/media/` photo.
    ///
    /// `…/media/NAME.jpg` (the API's form, which serves a ≤2048px copy) and
    /// `…/media/NAME?format=jpg&name=small` both become
    /// `…/media/NAME?format=jpg&name=orig`; other URLs are returned unchanged.
    static func original(_ url: String) -> String {
        guard let parts = Parts(url), parts.host.lowercased() == "pbs.twimg.com",
              parts.path.hasPrefix("/media/")
        else { return url }
        var file = Substring(parts.path.dropFirst("/media/".count))
        guard !file.isEmpty, !file.contains("/") else { return url }
        // Legacy size suffix: NAME.jpg:large
        if let colon = file.lastIndex(of: ":") { file = file[..<colon] }

        var query = parts.queryItems
        var name = file
        if let dot = file.lastIndex(of: ".") {
            name = file[..<dot]
            let ext = file[file.index(after: dot)...]
            guard !name.isEmpty, !ext.isEmpty else { return url }
            if !query.contains(where: { $0.key == "format" }) {
                query.insert((key: "format", value: ext), at: 0)
            }
        }
        guard query.contains(where: { $0.key == "format" }) else { return url }
        if let index = query.firstIndex(where: { $0.key == "name" }) {
            query[index].value = "orig"
        } else {
            query.append((key: "name", value: "orig"))
        }
        let queryString = query.map { item in
            item.value.map { "\(item.key)=\($0)" } ?? String(item.key)
        }.joined(separator: "&")
        return "\(parts.scheme)://\(parts.host)/media/\(name)?\(queryString)\(parts.fragment)"
    }

    /// The 400x400 variant of a profile image: `NAME_normal.jpg`, `NAME_bigger.jpg` and
    /// `NAME_mini.jpg` become `NAME_400x400.jpg`; anything else is returned unchanged.
    static func avatar400(_ url: String) -> String {
        let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
        let path = url[..<end]
        let fileStart = path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex
        let file = path[fileStart...]
        let stemEnd = file.lastIndex(of: ".") ?? file.endIndex
        let stem = file[..<stemEnd]
        for suffix in ["_normal", "_bigger", "_mini"] where stem.hasSuffix(suffix) && stem.count > suffix.count {
            let cut = stem.index(stemEnd, offsetBy: -suffix.count)
            return String(url[..<cut]) + "_400x400" + String(url[stemEnd...])
        }
        return url
    }

    /// A URL split just enough for the rewrites above.
    private struct Parts {
        var scheme: Substring
        var host: Substring
        var path: Substring
        var queryItems: [(key: Substring, value: Substring?)]
        var fragment: Substring   // including "#", or empty

        init?(_ url: String) {
            guard let schemeEnd = url.range(of: "://") else { return nil }
            scheme = url[..<schemeEnd.lowerBound]
            let afterScheme = url[schemeEnd.upperBound...]
            let hashIndex = afterScheme.firstIndex(of: "#") ?? afterScheme.endIndex
            fragment = afterScheme[hashIndex...]
            let beforeFragment = afterScheme[..<hashIndex]
            let queryIndex = beforeFragment.firstIndex(of: "?") ?? beforeFragment.endIndex
            let authorityAndPath = beforeFragment[..<queryIndex]
            guard let slash = authorityAndPath.firstIndex(of: "/") else { return nil }
            host = authorityAndPath[..<slash]
            path = authorityAndPath[slash...]
            let query = queryIndex < beforeFragment.endIndex
                ? beforeFragment[beforeFragment.index(after: queryIndex)...] : ""
            queryItems = query.split(separator: "&").map { item in
                guard let eq = item.firstIndex(of: "=") else { return (item, nil) }
                return (item[..<eq], item[item.index(after: eq)...])
            }
            guard scheme.lowercased() == "https" || scheme.lowercased() == "http", !host.isEmpty else { return nil }
        }
    }
}
