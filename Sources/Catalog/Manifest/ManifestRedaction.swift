public import Foundation
import TweetModel
import BlobStore
#if canImport(Glibc)
internal import Glibc
#endif

/// Removes posts from a run's manifest for `forget`: found by their keys (and the
/// reposts of them), then overwritten with spaces in a copy that replaces the file
/// (``JSONBlanking``), so every other post stays at the byte range the catalog holds
/// for it and the catalog needs no new reading of the run.
///
/// Finding reads each post's top-level members only (its id, network and references),
/// decoding a post whole only when its id is one asked for: a million-post manifest
/// is walked at the speed of its structure scan, in bounded memory.
public struct ManifestRedaction: Sendable {
    /// A post to remove, where it is and what it was (its media go too).
    public struct Found: Sendable {
        public var section: ManifestFile.Section
        public var range: Range<Int>
        public var post: ManifestTweet
        public var key: PostIdentity
        /// Set when it is removed as a repost of a forgotten post, not by its own key.
        public var repostOf: PostIdentity?
    }

    /// The posts of `file` that `keys` name, and the reposts of them.
    public static func find(in file: ManifestFile, keys: Set<PostIdentity>) throws -> [Found] {
        guard !keys.isEmpty else { return [] }
        let ids = Set(keys.map(\.id))
        var found: [Found] = []
        var problem: (any Error)?
        try file.forEachPost(releasing: true) { section, range in
            guard problem == nil else { return }
            let identity = file.bytes.withUnsafeBytes { raw in Self.identity(raw, range: range) }
            var match: PostIdentity?
            var repostOf: PostIdentity?
            if let id = identity.id {
                if ids.contains(id), let key = PostIdentity(manifestNetwork: identity.network, id: id), keys.contains(key) {
                    match = key
                }
            } else {
                // An id written with escapes: read the post as the catalog would.
                if let post = try? file.post(at: range), ids.contains(post.id),
                   let key = PostIdentity(manifestNetwork: post.network, id: post.id), keys.contains(key) {
                    match = key
                }
            }
            if match == nil, let references = identity.references, references.count > 2,
               let network = Network(manifestValue: identity.network) {
                repostOf = file.bytes.withUnsafeBytes { raw in
                    Self.repostedKey(raw, range: references, network: network, keys: keys)
                }
            }
            guard match != nil || repostOf != nil else { return }
            do {
                let post = try file.post(at: range)
                guard let key = PostIdentity(manifestNetwork: post.network, id: post.id) else { return }
                // The decoded post must be the one the scan saw.
                guard match == nil || key == match else { return }
                found.append(Found(section: section, range: range, post: post, key: key, repostOf: repostOf))
            } catch {
                problem = error
            }
        }
        if let problem { throw problem }
        return found
    }

    /// The `id` and `network` of the post object at `range` (nil when written with
    /// escapes, or absent), and where its `referenced_tweets` are.
    static func identity(_ bytes: UnsafeRawBufferPointer, range: Range<Int>)
        -> (id: String?, network: String?, references: Range<Int>?)
    {
        var s = JSONStructureScanner(bytes: UnsafeRawBufferPointer(rebasing: bytes[..<range.upperBound]), position: range.lowerBound)
        var id: String?, network: String?, references: Range<Int>?
        guard s.peek() == UInt8(ascii: "{") else { return (nil, nil, nil) }
        s.position += 1
        while true {
            s.skipSpace()
            guard let key = s.plainString() else { break }
            s.skipSpace()
            guard s.peek() == UInt8(ascii: ":") else { break }
            s.position += 1
            s.skipSpace()
            let start = s.position
            switch key {
            case "id":
                var copy = s
                id = copy.plainString()
            case "network":
                var copy = s
                network = copy.plainString()
            default: break
            }
            guard s.skipValue() else { break }
            if key == "referenced_tweets" { references = start..<s.position }
            s.skipSpace()
            guard s.peek() == UInt8(ascii: ",") else { break }
            s.position += 1
        }
        return (id, network, references)
    }

    /// The forgotten post a post's references repost (`retweeted`), if any.
    static func repostedKey(_ bytes: UnsafeRawBufferPointer, range: Range<Int>, network: Network, keys: Set<PostIdentity>) -> PostIdentity? {
        guard let references = JSONSpan.parse(UnsafeRawBufferPointer(rebasing: bytes[range])) else { return nil }
        for reference in references.elements where reference["type"]?.text == "retweeted" {
            if let id = reference["id"]?.text, keys.contains(PostIdentity(network: network, id: id)) {
                return PostIdentity(network: network, id: id)
            }
        }
        return nil
    }

    /// What ``rewrite(_:at:removing:failedURLs:materializing:allowedChanges:)`` overwrites
    /// with spaces: the posts at `posts` with a comma each, the space between the kept
    /// elements, and the failures whose URL is in `failedURLs`; sorted, merged.
    public static func blanks(in file: ManifestFile, removing posts: [Range<Int>], failedURLs: Set<String>) throws -> [Range<Int>] {
        let removed = Set(posts.map(\.lowerBound))
        var blanks: [Range<Int>] = []
        var tweets: [Range<Int>] = [], included: [Range<Int>] = []
        try file.forEachPost(releasing: true) { section, range in
            if section == .tweets { tweets.append(range) } else { included.append(range) }
        }
        file.bytes.withUnsafeBytes { raw in
            for (key, items) in [("tweets", tweets), ("included_tweets", included)] {
                guard let whole = file.range(ofMember: key) else { continue }
                let removing = Set(items.indices.filter { removed.contains(items[$0].lowerBound) })
                blanks += JSONBlanking.blanks(items: items, removing: removing,
                                              interior: (whole.lowerBound + 1)..<(whole.upperBound - 1), in: raw)
            }
            if !failedURLs.isEmpty, let whole = file.range(ofMember: "failures"),
               let failures = JSONSpan.parse(UnsafeRawBufferPointer(rebasing: raw[whole])) {
                let items = failures.elements.map { ($0.range.lowerBound + whole.lowerBound)..<($0.range.upperBound + whole.lowerBound) }
                let removing = Set(failures.elements.indices.filter { i in
                    failures.elements[i]["url"]?.text.map(failedURLs.contains) ?? false
                })
                blanks += JSONBlanking.blanks(items: items, removing: removing,
                                              interior: (whole.lowerBound + 1)..<(whole.upperBound - 1), in: raw)
            }
        }
        return JSONBlanking.normalized(blanks)
    }

    /// The parts of `blanks` that change `bytes`: spaces over spaces and kept line
    /// breaks are no change, so a blank of only those is left out and the others are
    /// trimmed to their first and last changed byte. What other manifests naming
    /// these bytes must be told of (``SeekableZstdFile/rewrite(to:blanking:materializing:)``).
    public static func changes(_ blanks: [Range<Int>], in bytes: Data) -> [Range<Int>] {
        bytes.withUnsafeBytes { raw in
            blanks.compactMap { range -> Range<Int>? in
                let inside = max(0, range.lowerBound)..<min(raw.count, range.upperBound)
                guard let first = inside.first(where: { raw[$0] != 0x20 && raw[$0] != 0x0A }),
                      let last = inside.last(where: { raw[$0] != 0x20 && raw[$0] != 0x0A })
                else { return nil }
                return first..<(last + 1)
            }
        }
    }

    /// Overwrites the posts at `posts` and the failures whose URL is in `failedURLs`
    /// with spaces, in a copy written beside `url` (fsynced, renamed over it, the
    /// folder fsynced): the file is either the old one or the new one, whole. A
    /// compressed manifest is written again entry by entry (``rewriteEntries(at:blanks:materializing:)``):
    /// every frame holding a blank is compressed again, what it names in a manifest in
    /// `materializing` (which is about to change) is copied in, and the offsets of its
    /// JSON and its frames stay as they were. Returns the new file's size and
    /// modification time (nanoseconds), as the catalog keeps them.
    /// `allowedChanges`, when given: where the JSON may change, as others were told
    /// (what names those bytes was written again first); a change elsewhere is an
    /// error and the file stays as it was.
    public static func rewrite(_ file: ManifestFile, at url: URL, removing posts: [Range<Int>],
                               failedURLs: Set<String>, materializing: [String: [Range<Int>]] = [:],
                               allowedChanges: [Range<Int>]? = nil) throws -> (size: Int, mtime: Int) {
        let blanks = try blanks(in: file, removing: posts, failedURLs: failedURLs)
        if file.isCompressed,
           let facts = try rewriteEntries(at: url, blanks: blanks, materializing: materializing,
                                          allowedChanges: allowedChanges) {
            return facts
        }
        // Pages already copied are given back as the copy goes: a manifest of
        // gigabytes is never resident.
        return try Self.writeBlanked(file.bytes, blanks: blanks, over: url,
                                     compressed: file.isCompressed, copied: file.release)
    }

    /// The compressed manifest at `url` written again entry by entry
    /// (``SeekableZstdFile/rewrite(to:blanking:materializing:)``) into a hidden file
    /// renamed over it; nil, and nothing done, when it has no digests to keep (a file
    /// written before references, which none can name: written whole instead).
    public static func rewriteEntries(at url: URL, blanks: [Range<Int>], materializing: [String: [Range<Int>]],
                                      allowedChanges: [Range<Int>]? = nil) throws -> (size: Int, mtime: Int)? {
        let input = try FileSystem.openFile(url.path, flags: O_RDONLY, operation: "open")
        defer { close(input) }
        let file = try SeekableZstdFile(descriptor: input, directory: url.deletingLastPathComponent().path)
        guard file.table.digests.count == file.table.frameCount else { return nil }
        return try replace(url) { fd, temporary in
            let changed = try file.rewrite(to: { try FileSystem.writeAll(fd, $0, path: temporary) }, blanking: blanks,
                                           materializing: materializing)
            if let allowedChanges, let stray = changed.first(where: { range in !allowedChanges.contains { $0.overlaps(range) } }) {
                throw SeekableZstd.Problem("bytes \(stray) would change, which other manifests may name; nothing was changed")
            }
        }
    }

    /// Copies `bytes` with `blanks` overwritten into a hidden file beside `url`
    /// (as seekable zstd when `compressed`), then renames it over `url`; both made durable.
    public static func writeBlanked(_ bytes: Data, blanks: [Range<Int>], over url: URL, compressed: Bool = false,
                                    copied: (Range<Int>) -> Void = { _ in }) throws -> (size: Int, mtime: Int) {
        try replace(url) { fd, temporary in
            if compressed {
                let zstd = SeekableZstdWriter { try FileSystem.writeAll(fd, $0, path: temporary) }
                try copy(bytes, blanking: blanks, to: { try zstd.write($0) }, copied: copied)
                try zstd.finish()
            } else {
                try copy(bytes, blanking: blanks, to: { try FileSystem.writeAll(fd, bytes: $0, path: temporary) }, copied: copied)
            }
        }
    }

    /// What `write` writes to a hidden file beside `url` (given its descriptor and
    /// path), flushed and renamed over `url`, the folder flushed.
    private static func replace(_ url: URL, write: (Int32, String) throws -> Void) throws -> (size: Int, mtime: Int) {
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/.forget-\(UInt64.random(in: .min ... .max)).tmp"
        let fd = try FileSystem.openFile(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, operation: "create")
        do {
            try write(fd, temporary)
            try FileSystem.sync(fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, url.path) == 0 else {
            let error = BlobStoreError.lastSystemError("rename over", path: url.path)
            unlink(temporary)
            throw error
        }
        try FileSystem.syncDirectory(folder)
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw BlobStoreError.lastSystemError("stat", path: url.path) }
        return (Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }

    /// Hands `bytes` to `write` 4 MB at a time, `blanks` (sorted, apart) overwritten.
    private static func copy(_ bytes: Data, blanking blanks: [Range<Int>], to write: ([UInt8]) throws -> Void,
                             copied: (Range<Int>) -> Void) throws {
        let chunk = 4 << 20
        var next = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            var piece = [UInt8](bytes[(bytes.startIndex + offset)..<(bytes.startIndex + end)])
            while next < blanks.count, blanks[next].upperBound <= offset { next += 1 }
            var i = next
            while i < blanks.count, blanks[i].lowerBound < end {
                JSONBlanking.apply([blanks[i]], to: &piece, offset: offset)
                i += 1
            }
            try write(piece)
            copied(offset..<end)
            offset = end
        }
    }
}
