import Foundation

/// Reads Jetstream's messages into stream events: matched post commits as post views,
/// post deletes, accounts gone, handles learned, and the cursor.
struct JetstreamReader: Sendable {
    let matcher: BlueskyMatcher
    let handles: HandleBook
    let images: JetstreamPostView.ImageURLs
    let name: String

    func read(_ message: [UInt8]) -> [StreamEvent] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any],
              let did = object["did"] as? String, Self.isDID(did)
        else { return [.problem("\(name): a message that is not a Jetstream event (\(message.count) bytes), skipped")] }
        var events: [StreamEvent] = []
        let time = (object["time_us"] as? NSNumber)?.int64Value
        switch object["kind"] as? String {
        case "commit":
            guard let commit = object["commit"] as? [String: Any],
                  commit["collection"] as? String == "app.bsky.feed.post",
                  let rkey = commit["rkey"] as? String, Self.isRecordKey(rkey)
            else { break }
            let uri = "at://\(did)/app.bsky.feed.post/\(rkey)"
            switch commit["operation"] as? String {
            case "create", "update":
                guard let record = commit["record"] as? [String: Any] else {
                    events.append(.problem("\(name): a post commit without its record, skipped"))
                    break
                }
                let text = record["text"] as? String ?? ""
                guard matcher.matches(did: did, text: text, tags: JetstreamPostView.tags(of: record)) else { break }
                let view = JetstreamPostView(uri: uri, cid: commit["cid"] as? String, did: did,
                                             handle: handles.handle(of: did), record: record, timeMicros: time,
                                             images: images)
                if let document = view.document() { events.append(.post(id: uri, document: document)) }
            case "delete":
                events.append(.deleted(id: uri))
            default:
                break
            }
        case "identity":
            if let identity = object["identity"] as? [String: Any], let handle = identity["handle"] as? String,
               !handle.isEmpty, handle.utf8.count <= 253 {
                handles.set(did: did, handle: handle)
            }
        case "account":
            if let account = object["account"] as? [String: Any], account["active"] as? Bool == false,
               let status = account["status"] as? String, status == "deleted" || status == "takendown" {
                events.append(.accountGone(userID: did))
            }
        default:
            break
        }
        if let time { events.append(.cursor(String(time))) }
        return events
    }

    /// A DID as the AT Protocol allows it (`did:method:id`, id of `A-Za-z0-9._:%-`): it
    /// goes into post URIs and image URLs, so a slash, `?` or space must never pass.
    static func isDID(_ did: String) -> Bool {
        guard did.utf8.count <= 2048, did.hasPrefix("did:") else { return false }
        let parts = did.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, parts[1].allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }), !parts[2].isEmpty
        else { return false }
        return parts[2].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
            || $0 == 0x2E || $0 == 0x5F || $0 == 0x3A || $0 == 0x25 || $0 == 0x2D }
    }

    /// An AT Protocol record key: 1–512 of `A-Za-z0-9._:~-`, not `.` or `..`.
    static func isRecordKey(_ key: String) -> Bool {
        guard (1...512).contains(key.utf8.count), key != ".", key != ".." else { return false }
        return key.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
            || $0 == 0x2E || $0 == 0x5F || $0 == 0x3A || $0 == 0x7E || $0 == 0x2D }
    }
}

/// A Jetstream post record as the post view `searchPosts` returns: `uri`, `cid`,
/// `author`, the `record` as posted, an images `embed` view and `indexedAt`.
///
/// A record names its images by blob CID only; the view's URLs are the ones the
/// Bluesky app shows (`cdn.bsky.app/img/feed_fullsize/plain/<did>/<cid>@jpeg`).
struct JetstreamPostView {
    struct ImageURLs: Sendable {
        var base = "https://cdn.bsky.app/img"
        func url(_ size: String, did: String, cid: String) -> String { "\(base)/\(size)/plain/\(did)/\(cid)@jpeg" }
    }

    let uri: String
    let cid: String?
    let did: String
    let handle: String?
    let record: [String: Any]
    let timeMicros: Int64?
    let images: ImageURLs

    /// The tags a post carries: tag facets and the record's own `tags`.
    static func tags(of record: [String: Any]) -> [String] {
        var tags = (record["tags"] as? [Any])?.compactMap { $0 as? String } ?? []
        for facet in (record["facets"] as? [Any]) ?? [] {
            for feature in ((facet as? [String: Any])?["features"] as? [Any]) ?? [] {
                guard let feature = feature as? [String: Any],
                      feature["$type"] as? String == "app.bsky.richtext.facet#tag",
                      let tag = feature["tag"] as? String else { continue }
                tags.append(tag)
            }
        }
        return tags
    }

    func document() -> [UInt8]? {
        var view: [String: Any] = [
            "uri": uri,
            "author": ["did": did, "handle": handle ?? did],
            "record": record,
        ]
        if let cid { view["cid"] = cid }
        if let timeMicros {
            let date = Date(timeIntervalSince1970: Double(timeMicros) / 1_000_000)
            view["indexedAt"] = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        if let embed = imagesView(record["embed"] as? [String: Any]) { view["embed"] = embed }
        guard JSONSerialization.isValidJSONObject(view),
              let data = try? JSONSerialization.data(withJSONObject: view, options: [.withoutEscapingSlashes])
        else { return nil }
        return [UInt8](data)
    }

    /// `app.bsky.embed.images` (or the media of `recordWithMedia`) as its `#view`.
    private func imagesView(_ embed: [String: Any]?) -> [String: Any]? {
        guard let embed else { return nil }
        let type = embed["$type"] as? String
        if type == "app.bsky.embed.recordWithMedia" { return imagesView(embed["media"] as? [String: Any]) }
        guard type == "app.bsky.embed.images", let list = embed["images"] as? [Any] else { return nil }
        var out: [[String: Any]] = []
        for item in list.prefix(10) {
            guard let item = item as? [String: Any], let image = item["image"] as? [String: Any],
                  let ref = image["ref"] as? [String: Any], let link = ref["$link"] as? String,
                  !link.isEmpty, link.utf8.count <= 128, link.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) })
            else { continue }
            var view: [String: Any] = [
                "thumb": images.url("feed_thumbnail", did: did, cid: link),
                "fullsize": images.url("feed_fullsize", did: did, cid: link),
                "alt": item["alt"] as? String ?? "",
            ]
            if let ratio = item["aspectRatio"] as? [String: Any] { view["aspectRatio"] = ratio }
            out.append(view)
        }
        return out.isEmpty ? nil : ["$type": "app.bsky.embed.images#view", "images": out]
    }
}
