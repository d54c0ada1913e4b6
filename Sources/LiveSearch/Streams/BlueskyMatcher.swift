/// Which Jetstream posts a set of watched queries wants, decided on this side
/// (Jetstream filters by collection and DID only).
///
/// - `#tag` matches a tag facet or a record's `tags`, in any letter case;
/// - `@handle` matches the posts of that handle's DID (resolved before connecting);
/// - anything else matches a post whose text holds every word of it, in any case.
struct BlueskyMatcher: Sendable {
    enum Rule: Sendable, Equatable {
        case tag(String)
        case author(handle: String, did: String?)
        case words([String])
    }

    private(set) var rules: [Rule]

    init(queries: [String]) {
        rules = queries.map { text in
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix("#"), trimmed.count > 1, !trimmed.contains(" ") {
                return .tag(String(trimmed.dropFirst()).lowercased())
            }
            if trimmed.hasPrefix("@"), trimmed.count > 1, !trimmed.contains(" ") {
                return .author(handle: String(trimmed.dropFirst()).lowercased(), did: nil)
            }
            return .words(trimmed.lowercased().split(whereSeparator: \.isWhitespace).map(String.init))
        }
    }

    var unresolvedHandles: [String] {
        rules.compactMap { if case let .author(handle, nil) = $0 { return handle } else { return nil } }
    }

    mutating func resolve(handle: String, did: String) {
        rules = rules.map { rule in
            if case .author(handle, nil) = rule { return .author(handle: handle, did: did) }
            return rule
        }
    }

    /// The DIDs to ask Jetstream for when every query names a user (nil: all posts).
    var onlyDIDs: Set<String>? {
        var dids: Set<String> = []
        for rule in rules {
            guard case let .author(_, did?) = rule else { return nil }
            dids.insert(did)
        }
        return dids.isEmpty ? nil : dids
    }

    /// Whether a post by `did` with this text and these tags is wanted.
    func matches(did: String, text: String, tags: [String]) -> Bool {
        var lowered: String?
        for rule in rules {
            switch rule {
            case let .tag(tag):
                if tags.contains(where: { $0.lowercased() == tag }) { return true }
            case let .author(_, wanted):
                if wanted == did { return true }
            case let .words(words):
                guard !words.isEmpty else { continue }
                if lowered == nil { lowered = text.lowercased() }
                if words.allSatisfy({ lowered!.contains($0) }) { return true }
            }
        }
        return false
    }
}

import Foundation
