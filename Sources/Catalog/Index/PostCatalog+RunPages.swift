public import Foundation
internal import GRDB
import BlobStore
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// Posts with photos in a page of a run's result file (`run_pages`), as in a page
    /// of a search's listing.
    public static let runPageSize = 500

    /// A run as its IIIF documents show it: its result files, each with its pages.
    public struct RunOutline: Sendable, Equatable {
        public var path: String
        public var generatedAt: Date
        public var tweets: Int
        public var files: [RunFile]
    }

    /// One of a run's result files (its `sources`, in order).
    public struct RunFile: Sendable, Equatable {
        public var path: String
        public var query: String?
        /// The posts the file gave the run.
        public var tweets: Int
        /// Pages of posts with photos: 0 when none has one.
        public var pages: Int
        /// Posts with photos, in all its pages.
        public var postsWithPhotos: Int
    }

    /// The run of `manifests/<stamp>.json` (its path below the cache), when the
    /// catalog has read it whole; from the catalog's rows, never the manifest itself,
    /// so a run of a million posts outlines in milliseconds.
    /// The path the catalog knows the run `stamp` by: its `.json.zst`, or the `.json`
    /// of a run written before manifests were compressed. Nil when it knows neither.
    public func runPath(stamp: String) throws(CatalogError) -> String? {
        let names = [CacheKey.manifestSuffix, ".json"].map { CacheLayout.manifest(stamp + $0) }
        return try read("find a run") { db in
            try String.fetchOne(db, sql: "SELECT path FROM runs WHERE path IN (?, ?) ORDER BY path DESC LIMIT 1",
                                arguments: [names[0], names[1]])
        }
    }

    public func runOutline(path: String) throws(CatalogError) -> RunOutline? {
        try read("outline a run") { db -> RunOutline? in
            guard let run = try Row.fetchOne(db, sql: "SELECT id, generated_at, tweets FROM runs WHERE path = ? AND complete = 1",
                                             arguments: [path])
            else { return nil }
            let id: Int64 = run["id"]
            var pages: [Int: (pages: Int, posts: Int)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT source, count(*), sum(posts) FROM run_pages WHERE run = ? GROUP BY source",
                                        arguments: [id]) {
                pages[row[0]] = (row[1], row[2])
            }
            var first: [String: Int] = [:]
            var files: [RunFile] = []
            for (index, row) in try Row.fetchAll(db, sql: "SELECT source, query, tweets FROM searches WHERE run = ? ORDER BY rowid",
                                                 arguments: [id]).enumerated() {
                let path: String = row["source"]
                // A path named twice is one file: both show its pages.
                let at = first[path] ?? index
                first[path] = at
                let paged = pages[at] ?? (0, 0)
                files.append(RunFile(path: path, query: row["query"], tweets: row["tweets"], pages: paged.pages,
                                     postsWithPhotos: paged.posts))
            }
            return RunOutline(path: path, generatedAt: Date(timeIntervalSince1970: run["generated_at"]), tweets: run["tweets"],
                              files: files)
        }
    }

    /// Page `page` (from 0) of the posts with photos of result file `file` of the run
    /// at `path`, in file order: each read from its byte range in the manifest (one
    /// `pread` a post). Posts `forget` blanked out of the file are left out. Empty when
    /// there is no such page.
    public func runPage(path: String, file: Int, page: Int) throws(CatalogError) -> [ManifestTweet] {
        guard CacheKey(path: path)?.kind == .manifest else { return [] }
        let found: (ranges: [Range<Int>], source: String)? = try read("read a run's page") { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE path = ? AND complete = 1", arguments: [path])
            else { return nil }
            let sources = try String.fetchAll(db, sql: "SELECT source FROM searches WHERE run = ? ORDER BY rowid", arguments: [id])
            guard sources.indices.contains(file), let source = sources.firstIndex(of: sources[file]),
                  let packed = try Data.fetchOne(db, sql: "SELECT ranges FROM run_pages WHERE run = ? AND source = ? AND page = ?",
                                                 arguments: [id, source, page])
            else { return nil }
            return (Self.ranges(packed), sources[file])
        }
        guard let found else { return [] }
        // Only posts of this file: bytes that decode to another post are not this page's.
        return try posts(in: path, at: found.ranges).compactMap { $0?.source == found.source ? $0 : nil }
    }

    /// The first post with photos of each of the run's result files that has one, by
    /// the file's index: what a run's Collection shows of each (its thumbnail), read
    /// with one query and one `pread` a file.
    public func runFirstPosts(path: String) throws(CatalogError) -> [Int: ManifestTweet] {
        guard CacheKey(path: path)?.kind == .manifest else { return [:] }
        let firsts: [(Int, Range<Int>)] = try read("read a run's first posts") { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE path = ? AND complete = 1", arguments: [path])
            else { return [] }
            return try Row.fetchAll(db, sql: "SELECT source, substr(ranges, 1, 12) FROM run_pages WHERE run = ? AND page = 0 ORDER BY source",
                                    arguments: [id]).compactMap { row in
                guard let packed = row[1] as Data?, let range = Self.ranges(packed).first else { return nil }
                return (row[0], range)
            }
        }
        let posts = try posts(in: path, at: firsts.map(\.1))
        var result: [Int: ManifestTweet] = [:]
        for ((source, _), post) in zip(firsts, posts) { result[source] = post }
        return result
    }

    /// The posts at `ranges` of the manifest at `path`, nil where the bytes are not a
    /// post (blanked by `forget`, or changed behind the catalog's back).
    private func posts(in path: String, at ranges: [Range<Int>]) throws(CatalogError) -> [ManifestTweet?] {
        guard !ranges.isEmpty else { return [] }
        let file: ManifestBytes
        do {
            guard let opened = try ManifestBytes(path: cacheRoot.appendingPathComponent(path).path) else {
                // Gone since the catalog read it (the next refresh starts over): no posts.
                if errno == ENOENT { return ranges.map { _ in nil } }
                throw CatalogError.database(operation: "read a run's posts", message: "\(path): \(String(cString: strerror(errno)))")
            }
            file = opened
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .database(operation: "read a run's posts", message: "\(path): \(error)")
        }
        let decoder = ManifestFile.decoder
        return ranges.map { range in
            guard range.count > 0, range.count <= Self.largestPost, let bytes = file.read(range) else { return nil }
            return try? decoder.decode(ManifestTweet.self, from: bytes)
        }
    }

    /// `run_pages.ranges`: 8 bytes of offset and 4 of length a post, little-endian.
    static func ranges(_ packed: Data) -> [Range<Int>] {
        let count = packed.count / 12
        return packed.withUnsafeBytes { raw in
            (0..<count).compactMap { i in
                let offset = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 12 * i, as: UInt64.self))
                let length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 12 * i + 8, as: UInt32.self))
                guard offset < UInt64(Int.max / 2) else { return nil }
                return Int(offset)..<(Int(offset) + Int(length))
            }
        }
    }
}
