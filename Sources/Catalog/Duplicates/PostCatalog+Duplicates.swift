import Foundation
public import MediaTypes
internal import GRDB
import BlobStore
import TweetModel
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// PDQ's recommended match distance: re-encoded, resized and captioned copies fall
    /// within it, unrelated photos almost never (about 128 bits apart).
    public static let defaultPDQThreshold = 31

    /// The hashes of every useful photo (quality 50 and up) in a near-neighbour index,
    /// with the catalog rows they came from. Built from `images_pdq` in one read.
    public struct PerceptualIndex: Sendable {
        public let index: PDQIndex
        /// `images_pdq.id` per slot of ``index``.
        let ids: [Int64]
        /// The highest `images_pdq.id` read: a catalog with a higher one has newer hashes.
        public let generation: Int64
    }

    /// The near-neighbour index of every photo's hash. Searchable, it is the one kept
    /// beside the catalog (``PDQIndexFile``) when that file still holds the catalog's
    /// hashes, with the photos hashed since compared one by one; else it is built (at a
    /// million photos about 1.9 s and 110 MB) and, searchable, written there for the next
    /// process. Readers keep it while ``perceptualGeneration()`` is the same.
    ///
    /// `kept: false` never reads the file (`dupes`, whose joins are not confirmed one by one).
    public func perceptualIndex(searchable: Bool = true, kept useFile: Bool = true) throws(CatalogError) -> PerceptualIndex {
        let file = path.path + Self.perceptualSuffix
        if searchable, useFile, let kept = PDQIndexFile.open(file), let index = try extended(kept) { return index }
        let built = try buildPerceptualIndex(searchable: searchable)
        guard searchable else { return built }
        // Written under the catalog's lock, and only if the catalog still holds what was
        // read: a `forget` (which holds the lock until it removes the file) that ran
        // during the build removed photos this index still has. A lock held by another
        // process's ingest is not waited for: the file is then left for a later build.
        let lock = Glibc.open(path.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { return built }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return built }
        let now = try read("read the PDQ hashes") { db in
            (try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM images_pdq") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM images_pdq WHERE quality >= ?",
                              arguments: [PDQSignature.minimumUsefulQuality]) ?? 0)
        }
        if now == (built.generation, built.ids.count) {
            try? PDQIndexFile.write(built.index, ids: built.ids, generation: built.generation, to: file)
        }
        return built
    }

    /// `catalog.sqlite.pdq`: the kept near-duplicate index.
    static let perceptualSuffix = ".pdq"
    /// Photos hashed since the kept index was written that it takes one by one (each
    /// compared with every query): past this, or a sixteenth of the index, it is made again.
    static let perceptualDelta = 4_096

    private func buildPerceptualIndex(searchable: Bool) throws(CatalogError) -> PerceptualIndex {
        try read("read the PDQ hashes") { db in
            var hashes: [PDQHash] = [], ids: [Int64] = []
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM images_pdq WHERE quality >= ?",
                                         arguments: [PDQSignature.minimumUsefulQuality]) ?? 0
            hashes.reserveCapacity(count)
            ids.reserveCapacity(count)
            // The original hash is the first 32 bytes.
            let rows = try Row.fetchCursor(db, sql: "SELECT id, substr(hashes, 1, 32) FROM images_pdq WHERE quality >= ? ORDER BY id",
                                           arguments: [PDQSignature.minimumUsefulQuality])
            while let row = try rows.next() {
                guard let data = row[1] as Data?, let hash = PDQHash(bytes: data) else { continue }
                ids.append(row[0])
                hashes.append(hash)
            }
            let generation = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM images_pdq") ?? 0
            try db.execute(sql: "PRAGMA shrink_memory")
            return PerceptualIndex(index: PDQIndex(hashes, searchable: searchable), ids: ids, generation: generation)
        }
    }

    /// The kept index with the photos hashed since, or nil when it is not this
    /// catalog's: its ids are out of order or past the catalog's, or a sample of 17 of
    /// its hashes differs from the catalog's rows. Rows go from `images_pdq` only when
    /// the catalog is made anew or `forget` removes photos, and both remove the file;
    /// counting the rows to be sure took 100 ms at a million (a scan of the table), and
    /// every match is confirmed against the catalog anyway.
    private func extended(_ kept: PDQIndexFile) throws(CatalogError) -> PerceptualIndex? {
        try read("read the PDQ hashes") { db -> PerceptualIndex? in
            let minimum = PDQSignature.minimumUsefulQuality
            let count = kept.ids.count
            let generation = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM images_pdq") ?? 0
            guard kept.generation <= generation, zip(kept.ids, kept.ids.dropFirst()).allSatisfy({ $0 < $1 }),
                  (kept.ids.last ?? 0) <= kept.generation
            else { return nil }
            let sample = try db.cachedStatement(sql: "SELECT substr(hashes, 1, 32) FROM images_pdq WHERE id = ? AND quality >= ?")
            for k in 0...16 where count > 0 {
                let slot = (count - 1) * k / 16
                guard let data = try Data.fetchOne(sample, arguments: [kept.ids[slot], minimum]),
                      PDQHash(bytes: data) == kept.index.hashes[slot]
                else { return nil }
            }
            var ids = kept.ids, hashes = kept.index.hashes
            let rows = try Row.fetchCursor(db, sql: "SELECT id, substr(hashes, 1, 32) FROM images_pdq WHERE id > ? AND quality >= ? ORDER BY id",
                                           arguments: [kept.generation, minimum])
            while let row = try rows.next() {
                guard let data = row[1] as Data?, let hash = PDQHash(bytes: data) else { continue }
                ids.append(row[0])
                hashes.append(hash)
                if ids.count - count > max(Self.perceptualDelta, count / 16) { return nil }
            }
            guard let table = kept.index.table else { return nil }
            let index = ids.count == count ? kept.index : PDQIndex(hashes: hashes, table: table)
            return PerceptualIndex(index: index, ids: ids, generation: generation)
        }
    }

    /// Changes when photos are hashed into the catalog (or it is rebuilt).
    public func perceptualGeneration() throws(CatalogError) -> Int64 {
        try read("read the PDQ generation") { db in
            try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM images_pdq") ?? 0
        }
    }

    /// The PDQ signature the manifests gave an image, if any.
    public func pdqSignature(of sha256: String) throws(CatalogError) -> PDQSignature? {
        guard let blob = Self.blob(sha256) else { return nil }
        return try read("read a PDQ hash") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT quality, hashes FROM images_pdq WHERE sha256 = ?", arguments: [blob]),
                  let packed = row[1] as Data?
            else { return nil }
            return PDQSignature(quality: row[0], packed: [UInt8](packed))
        }
    }

    /// Other cached photos that look like `sha256`, turned or mirrored included, nearest
    /// first; empty when the image has no useful hash.
    public func nearDuplicates(of sha256: String, threshold: Int = defaultPDQThreshold, in index: PerceptualIndex)
        throws(CatalogError) -> [NearDuplicate]
    {
        guard let signature = try pdqSignature(of: sha256), signature.isUseful else { return [] }
        // The query's hashes in PDQTransform order: a match's query is how it is turned.
        let found = try confirmed(index.index.search(signature.dihedral, threshold: threshold), of: signature.dihedral, in: index)
        let shas = try hashes(ofRows: found.map { index.ids[$0.slot] })
        let own = Self.blob(sha256)
        let kept = found.filter { shas[index.ids[$0.slot]] != own }
        return try describe(kept.map { (index.ids[$0.slot], $0.distance, PDQTransform(rawValue: $0.query) ?? .original) },
                            shas: shas)
    }

    /// Cached photos within `threshold` of each hash of a list (as shared hash lists
    /// hold them: the picture as posted), nearest first.
    public func matches(of hash: PDQHash, threshold: Int = defaultPDQThreshold, in index: PerceptualIndex)
        throws(CatalogError) -> [NearDuplicate]
    {
        let found = try confirmed(index.index.search([hash], threshold: threshold), of: [hash], in: index)
        let shas = try hashes(ofRows: found.map { index.ids[$0.slot] })
        return try describe(found.map { (index.ids[$0.slot], $0.distance, PDQTransform.original) }, shas: shas)
    }

    /// Every group of near-identical photos (two or more distinct images), turned and
    /// mirrored copies included, joined by single linkage (a chain of close copies is one
    /// group). Groups come earliest first post first (then by their first image's hash);
    /// `limit` caps how many are described.
    ///
    /// Within 31 bits the pairs come from ``PDQJoin`` (sorted runs of each piece: a
    /// million photos in half a minute); the turned hashes are read one transform at a
    /// time and kept only in their sorted copy, so beyond the hashes themselves memory
    /// holds two sorted copies (three while one is made from another) and the union-finds. Wider thresholds search the index photo by photo.
    public func duplicateGroups(threshold: Int = defaultPDQThreshold, in index: PerceptualIndex, limit: Int = .max)
        throws(CatalogError) -> (groups: [DuplicateGroup], total: Int)
    {
        // 32-bit slots: 4 MB less at a million photos (the index has fewer than 2^31).
        var parent = (0..<Int32(index.index.count)).map { $0 }
        func root(_ x: Int) -> Int {
            var x = x
            while Int(parent[x]) != x { parent[x] = parent[Int(parent[x])]; x = Int(parent[x]) }
            return x
        }
        func join(_ a: Int, _ b: Int) {
            let ra = root(a), rb = root(b)
            if ra != rb { parent[max(ra, rb)] = Int32(min(ra, rb)) }
        }
        if threshold <= 31 {
            // Sorted runs of every piece: a million photos in seconds (PDQJoin).
            try PDQJoin.pairs(originals: index.index.hashes, threshold: threshold, variants: { transform throws(CatalogError) in
                try variantHashes(transform, count: index.index.count)
            }, found: join)
        } else {
            try forEachSignatureBatch { batch in
                for (id, slot) in Self.neighbours(of: batch, threshold: threshold, in: index.index) {
                    // Slots are in id order (the index was read ORDER BY id).
                    guard let a = Self.slot(of: id, in: index.ids) else { continue }
                    join(a, slot)
                }
            }
        }
        var grouped = [Bool](repeating: false, count: index.index.count)
        for slot in parent.indices where root(slot) != slot { grouped[root(slot)] = true }
        var members: [Int: [Int]] = [:]
        for slot in parent.indices where grouped[root(slot)] { members[root(slot), default: []].append(slot) }
        let sets = members.values.map { $0.sorted() }
        // The groups described on every core (the catalog's readers run side by side),
        // each core's share in one read.
        let slices = ParallelSlices.split(sets.indices, parts: ProcessInfo.processInfo.activeProcessorCount)
        let described = ParallelSlices.map(slices.count) { lane -> Result<[DuplicateGroup], CatalogError> in
            Result { () throws(CatalogError) -> [DuplicateGroup] in try describeGroups(sets[slices[lane]], in: index) }
        }
        var groups: [DuplicateGroup] = []
        for lane in described { groups += try lane.get() }
        // Earliest first; groups first posted at the same time (or all undated) by their
        // first image's hash, so that the same catalog lists them in the same order.
        groups.sort { a, b in
            let (x, y) = (a.images.first?.firstPosted, b.images.first?.firstPosted)
            if Self.earlier(x, y) { return true }
            if Self.earlier(y, x) { return false }
            return (a.images.first?.sha256 ?? "") < (b.images.first?.sha256 ?? "")
        }
        return (Array(groups.prefix(limit)), groups.count)
    }

    // MARK: - Helpers

    /// Each group's images (slots of `index`), earliest post first, each with its
    /// distance and turn from the earliest. One read for them all, and one row of
    /// `images_pdq` and one list of posts an image: a read (a transaction) and five
    /// look-ups an image took 5.5 s of the 30 of `dupes` at a million photos.
    private func describeGroups(_ sets: ArraySlice<[Int]>, in index: PerceptualIndex) throws(CatalogError) -> [DuplicateGroup] {
        try read("describe duplicate groups") { db in
            let image = try db.cachedStatement(sql: "SELECT sha256, quality, hashes FROM images_pdq WHERE id = ?")
            let postsOf = try Self.postsOfBlob(db)
            var groups: [DuplicateGroup] = []
            groups.reserveCapacity(sets.count)
            for set in sets {
                let first = index.index.hashes[set[0]]
                var images: [(image: NearDuplicate, signature: PDQSignature?)] = []
                for slot in set {
                    guard let row = try Row.fetchOne(image, arguments: [index.ids[slot]]),
                          let sha = row[0] as Data?, let hex = BlobHash(bytes: sha)?.hex
                    else { continue }
                    let posts = try Self.posts(postsOf, sha)
                    guard !posts.isEmpty else { continue }
                    let signature = (row[2] as Data?).flatMap { PDQSignature(quality: row[1], packed: [UInt8]($0)) }
                    images.append((NearDuplicate(sha256: hex, distance: index.index.hashes[slot].distance(to: first),
                                                 transform: nil, quality: row[1], posts: posts), signature))
                }
                images.sort { Self.earlier($0.image.firstPosted, $1.image.firstPosted) }
                // Distances from the earliest image, transform included.
                if let base = images.first?.signature {
                    for i in images.indices {
                        guard let other = images[i].signature else { continue }
                        let best = PDQTransform.allCases.map { ($0, base.hash($0).distance(to: other.hash)) }.min { $0.1 < $1.1 }!
                        images[i].image.distance = best.1
                        images[i].image.transform = best.0 == .original ? nil : best.0.description
                    }
                }
                groups.append(DuplicateGroup(images: images.map(\.image)))
            }
            return groups
        }
    }

    /// The slot of an `images_pdq` id in the index's ascending ids.
    static func slot(of id: Int64, in ids: [Int64]) -> Int? {
        var low = 0, high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low < ids.count && ids[low] == id ? low : nil
    }

    /// For each `(id, signature)`, the slots near it other than its own: on every core.
    static func neighbours(of batch: [(Int64, PDQSignature)], threshold: Int, in index: PDQIndex) -> [(Int64, Int)] {
        let slices = ParallelSlices.split(batch.indices, parts: ProcessInfo.processInfo.activeProcessorCount)
        return ParallelSlices.map(slices.count) { lane in
            var found: [(Int64, Int)] = []
            for (id, signature) in batch[slices[lane]] {
                // rotate 270 is rotate 90 seen from the other image: the pair is found from there.
                for transform in PDQJoin.transforms + [.original] {
                    index.visit(signature.hash(transform), threshold: threshold) { slot, _ in found.append((id, slot)) }
                }
            }
            return found
        }.flatMap { $0 }
    }

    /// The hashes of every useful photo turned by `transform`, in the index's slot order;
    /// nil if the catalog changed under the read (the count differs).
    private func variantHashes(_ transform: PDQTransform, count: Int) throws(CatalogError) -> [PDQHash]? {
        try read("read turned PDQ hashes") { db in
            var hashes: [PDQHash] = []
            hashes.reserveCapacity(count)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT substr(hashes, ?, 32) FROM images_pdq WHERE quality >= ? ORDER BY id
                """, arguments: [32 * transform.rawValue + 1, PDQSignature.minimumUsefulQuality])
            while let row = try rows.next() {
                guard let data = row[0] as Data?, let hash = PDQHash(bytes: data) else { continue }
                hashes.append(hash)
            }
            // The scan filled the connection's page cache (16 MB) with pages read once.
            try db.execute(sql: "PRAGMA shrink_memory")
            return hashes.count == count ? hashes : nil
        }
    }

    /// Reads every useful signature in batches of 16,384, in id order.
    private func forEachSignatureBatch(_ body: ([(Int64, PDQSignature)]) throws(CatalogError) -> Void) throws(CatalogError) {
        var after: Int64 = 0
        while true {
            let batch: [(Int64, PDQSignature)] = try read("read PDQ hashes") { db in
                var batch: [(Int64, PDQSignature)] = []
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT id, quality, hashes FROM images_pdq WHERE id > ? AND quality >= ? ORDER BY id LIMIT 16384
                    """, arguments: [after, PDQSignature.minimumUsefulQuality])
                while let row = try rows.next() {
                    guard let packed = row[2] as Data?, let signature = PDQSignature(quality: row[1], packed: [UInt8](packed))
                    else { continue }
                    batch.append((row[0], signature))
                }
                return batch
            }
            guard let last = batch.last else { return }
            try body(batch)
            after = last.0
        }
    }

    /// The matches whose row in the catalog holds the hash the index found at that
    /// distance: an index read from a file (``PDQIndexFile``) answers nothing the
    /// catalog does not say.
    private func confirmed(_ found: [PDQIndex.Match], of queries: [PDQHash], in index: PerceptualIndex)
        throws(CatalogError) -> [PDQIndex.Match]
    {
        guard !found.isEmpty else { return [] }
        return try read("check near duplicates") { db in
            let statement = try db.cachedStatement(sql: "SELECT substr(hashes, 1, 32) FROM images_pdq WHERE id = ?")
            return try found.filter { match in
                guard let data = try Data.fetchOne(statement, arguments: [index.ids[match.slot]]),
                      let hash = PDQHash(bytes: data)
                else { return false }
                return queries[match.query].distance(to: hash) == match.distance
            }
        }
    }

    /// The image hash (32 bytes) of each `images_pdq` row.
    private func hashes(ofRows ids: [Int64]) throws(CatalogError) -> [Int64: Data] {
        try read("read image hashes") { db in
            var result: [Int64: Data] = [:]
            let statement = try db.cachedStatement(sql: "SELECT sha256 FROM images_pdq WHERE id = ?")
            for id in ids where result[id] == nil {
                if let sha = try Data.fetchOne(statement, arguments: [id]) { result[id] = sha }
            }
            return result
        }
    }

    /// Each found row with its quality and posts (current posts only, earliest first);
    /// an image no current post uses any more is left out.
    private func describe(_ found: [(id: Int64, distance: Int, transform: PDQTransform)], shas: [Int64: Data])
        throws(CatalogError) -> [NearDuplicate]
    {
        try read("describe near duplicates") { db in
            let postsOf = try Self.postsOfBlob(db)
            let quality = try db.cachedStatement(sql: "SELECT quality FROM images_pdq WHERE id = ?")
            var result: [NearDuplicate] = []
            for (id, distance, transform) in found {
                guard let sha = shas[id], let hex = BlobHash(bytes: sha)?.hex else { continue }
                let posts = try Self.posts(postsOf, sha)
                guard !posts.isEmpty else { continue }
                result.append(NearDuplicate(
                    sha256: hex, distance: distance,
                    transform: transform == .original ? nil : transform.description,
                    quality: try Int.fetchOne(quality, arguments: [id]) ?? 0,
                    posts: posts))
            }
            return result
        }
    }

    /// The posts that show a blob (by its `sha256` bytes), earliest first.
    private static func postsOfBlob(_ db: Database) throws -> Statement {
        try db.cachedStatement(sql: """
            SELECT DISTINCT p.id, p.handle, p.network, p.created FROM refs r JOIN posts p ON p.rowid = r.post
            WHERE r.blob = (SELECT id FROM blobs WHERE sha256 = ?) ORDER BY p.created, p.id_order
            """)
    }

    private static func posts(_ statement: Statement, _ sha: Data) throws -> [DuplicatePost] {
        try Row.fetchAll(statement, arguments: [sha]).map { row -> DuplicatePost in
            let created: Double = row[3]
            return DuplicatePost(id: row[0], screenName: row[1], network: row[2],
                                 createdAt: created == PostOrder.undated ? nil : Date(timeIntervalSince1970: created))
        }.sorted { earlier($0.createdAt, $1.createdAt) }
    }

    /// Dated before undated, then by date.
    static func earlier(_ a: Date?, _ b: Date?) -> Bool {
        switch (a, b) {
        case let (a?, b?): a < b
        case (_?, nil): true
        default: false
        }
    }
}
