public import BlobStore
public import Foundation
public import ObjectStore

/// What a store holds for `gc`, from one listing of ``CacheStorage``: each original
/// with the derived files made from it, grouped by the ``CacheKey`` of their names.
/// A bucket (`gc --store`) and a cache's own folder (``Cache/folder``) are
/// inventoried by this same code; what each then keeps is its layer's rule.
public struct ObjectInventory: Sendable {
    /// Originals by hash.
    public var originals: [BlobHash: StoredObject] = [:]
    /// Files of the derived area by the original they were made from: packs and
    /// thumbnails, and also what only a folder has (the files of a tree of the layout
    /// before packs, what an interrupted write left), so they go with their image.
    public var derived: [BlobHash: [StoredObject]] = [:]
    /// Names under `blobs/` and `derived/` that belong to no original.
    public var foreign: [StoredObject] = []

    /// Every object listed, originals first.
    public var objects: [StoredObject] {
        originals.values.sorted { $0.key < $1.key } + derived.values.joined().sorted { $0.key < $1.key } + foreign
    }

    /// Bytes of the derived files of `hash`.
    public func derivedBytes(of hash: BlobHash) -> Int { derived[hash]?.reduce(0) { $0 + $1.size } ?? 0 }

    public init() {}

    /// Lists `blobs/` and `derived/` of `storage`.
    public static func taking(_ storage: any CacheStorage) async throws(StoreError) -> ObjectInventory {
        var inventory = ObjectInventory()
        for object in try await storage.list(CacheLayout.blobsFolder + "/") {
            if case .original(let hash) = CacheKey(path: object.key) { inventory.originals[hash] = object } else { inventory.foreign.append(object) }
        }
        for object in try await storage.list(CacheLayout.derivedFolder + "/") {
            if let owner = derivedOwner(object.key) { inventory.derived[owner, default: []].append(object) } else { inventory.foreign.append(object) }
        }
        return inventory
    }

    /// The original a derived-area path belongs to: by its ``CacheKey``, else by its
    /// name (`<hex>.thumb-150.jpg.tmp-42`) or its folder (`derived/ab/<hex>/…`, a
    /// tree of the layout before packs), in the original's shard.
    static func derivedOwner(_ path: String) -> BlobHash? {
        if let owner = CacheKey(path: path)?.owner { return owner }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == CacheLayout.derivedFolder,
              let owner = CacheLayout.derivedOwner(fileName: String(parts[2])), owner.shard == parts[1] else { return nil }
        return owner
    }
}

/// `gc`'s first rule, the same for every store: an object nothing references goes
/// once it was written at least `grace` ago. A younger one is kept, since a run may
/// be writing the manifest that names it right now; each store's layer adds what it
/// alone knows (a bucket's live leases; a folder's index rows, pins and budget).
public enum CollectionRule {
    /// The objects past `grace` at `now`, and how many are too new to judge yet.
    public static func expired(_ unreferenced: some Sequence<StoredObject>, grace: TimeInterval, now: Date)
        -> (expired: [StoredObject], tooNew: Int)
    {
        var expired: [StoredObject] = [], tooNew = 0
        for object in unreferenced {
            if let written = object.lastModified, now.timeIntervalSince(written) >= grace { expired.append(object) } else { tooNew += 1 }
        }
        return (expired, tooNew)
    }
}
