import Foundation

/// Which IIIF Presentation document is asked for, and where it lives under the
/// presentation base (`/iiif/presentation` on the server, the folder an export
/// writes): the one place that turns searches, tags, users and runs into path
/// segments and back.
public indirect enum PresentationTarget: Sendable, Hashable {
    /// `collection.json`: every search, and every run with its result files.
    case collection
    /// `search/<id>/manifest.json`: the photos of the tweets a search found.
    case search(String)
    /// `hashtag/<id>/manifest.json`: the photos of tweets with that hashtag.
    case hashtag(String)
    /// `user/<id>/manifest.json`: the photos of tweets by that user.
    case user(String)
    /// `run/<stamp>/collection.json`: one run (`manifests/<stamp>.json`), a Manifest per result file.
    case run(String)
    /// `run/<stamp>/<n>/manifest.json`: the photos of the run's n-th result file (its
    /// first page, when it has more than one Manifest holds).
    case runFile(String, Int)
    /// `run/<stamp>/<n>/collection.json`: the pages of a result file with more photos
    /// than one Manifest holds (``PostCatalog/runPageSize`` posts).
    case runFilePages(String, Int)
    /// `run/<stamp>/<n>/<p>/manifest.json`, p ≥ 2: its p-th page.
    case runFilePage(String, Int, Int)
    /// `<search|hashtag|user>/<id>/collection.json`: the pages of a search, hashtag or
    /// user with more photos than one Manifest holds (``PresentationBuilder/pageSize``).
    case pages(PresentationTarget)
    /// `<search|hashtag|user>/<id>/<n>/manifest.json`, n ≥ 2: its n-th page (the
    /// first is its `manifest.json`).
    case page(PresentationTarget, Int)

    /// The path below the presentation base.
    public var path: String {
        switch self {
        case .collection: "collection.json"
        case let .search(query): "search/\(Self.segment(query))/manifest.json"
        case let .hashtag(tag): "hashtag/\(Self.segment(tag))/manifest.json"
        case let .user(name): "user/\(Self.segment(name))/manifest.json"
        case let .run(stamp): "run/\(Self.segment(stamp))/collection.json"
        case let .runFile(stamp, index): "run/\(Self.segment(stamp))/\(index)/manifest.json"
        case let .runFilePages(stamp, index): "run/\(Self.segment(stamp))/\(index)/collection.json"
        case let .runFilePage(stamp, index, page): "run/\(Self.segment(stamp))/\(index)/\(page)/manifest.json"
        case let .pages(listing): String(listing.path.dropLast("manifest.json".count)) + "collection.json"
        case let .page(listing, n): String(listing.path.dropLast("manifest.json".count)) + "\(n)/manifest.json"
        }
    }

    /// A search, hashtag or user: the documents that can have pages.
    public var isListing: Bool {
        switch self {
        case .search, .hashtag, .user: true
        default: false
        }
    }

    private static func listing(_ kind: String, _ id: String) -> PresentationTarget? {
        switch kind {
        case "search": .search(id)
        case "hashtag": .hashtag(id)
        case "user": .user(id)
        default: nil
        }
    }

    /// Parses the segments after the presentation base (already split on `/` and
    /// percent-decoded); nil when they name no document.
    public static func parse(_ segments: [String]) -> PresentationTarget? {
        switch segments.count {
        case 1 where segments[0] == "collection.json":
            return .collection
        case 3 where segments[2] == "manifest.json":
            return text(segments[1]).flatMap { listing(segments[0], $0) }
        case 3 where segments[0] == "run" && segments[2] == "collection.json":
            return text(segments[1]).map { .run($0) }
        case 3 where segments[2] == "collection.json":
            return text(segments[1]).flatMap { listing(segments[0], $0) }.map { .pages($0) }
        case 4 where segments[0] != "run" && segments[3] == "manifest.json":
            guard let listing = text(segments[1]).flatMap({ listing(segments[0], $0) }), let n = Int(segments[2]),
                  n >= 2, n < 10_000_000, String(n) == segments[2] else { return nil }
            return .page(listing, n)
        case 4 where segments[0] == "run" && segments[3] == "manifest.json":
            guard let stamp = text(segments[1]), let index = number(segments[2], below: 10_000_000) else { return nil }
            return .runFile(stamp, index)
        case 4 where segments[0] == "run" && segments[3] == "collection.json":
            guard let stamp = text(segments[1]), let index = number(segments[2], below: 10_000_000) else { return nil }
            return .runFilePages(stamp, index)
        case 5 where segments[0] == "run" && segments[4] == "manifest.json":
            guard let stamp = text(segments[1]), let index = number(segments[2], below: 10_000_000),
                  let page = number(segments[3], below: 10_000_000), page >= 2 else { return nil }
            return .runFilePage(stamp, index, page)
        default:
            return nil
        }
    }

    /// A number as paths write it (no sign, no leading zero), below `limit`.
    private static func number(_ segment: String, below limit: Int) -> Int? {
        guard let value = Int(segment), value >= 0, value < limit, String(value) == segment else { return nil }
        return value
    }

    /// Plain names (letters, digits, `_ . @ -`, not starting with `.`) stay readable;
    /// anything else, a search with spaces or `/` or a hashtag in another script, is
    /// `~` and base64url of its UTF-8. A segment is then always safe as a file name
    /// of a static export, and needs no percent-decoding.
    public static func segment(_ text: String) -> String {
        if isPlain(text) { return text }
        return "~" + Base64URL.encode(text.utf8)
    }

    public static func text(_ segment: String) -> String? {
        guard !segment.isEmpty, segment.utf8.count <= 1024 else { return nil }
        if segment.hasPrefix("~") {
            guard let data = Base64URL.decode(String(segment.dropFirst())), let text = String(data: data, encoding: .utf8),
                  !text.isEmpty, !isPlain(text) else { return nil }
            return text
        }
        return isPlain(segment) ? segment : nil
    }

    public static func isPlain(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 200 && !text.hasPrefix(".") && text.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-")
        }
    }
}
