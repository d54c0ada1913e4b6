public import BlobStore
import MediaFetch
public import ObjectStore

/// `verify`'s check of the objects a cache holds, written once over
/// ``CacheStorage``: a bucket (`verify --store`), a shared folder and a cache's own
/// directory (``Cache/folder``) are listed, sorted by ``CacheKey`` and judged by
/// this same code, as git's and restic's one `fsck`/`check` serves every backend.
///
/// What only one kind of store has is a layer on top, not a second copy: the
/// bucket's manifests and its repair from a machine's copy (`StoreMaintenance`),
/// the local index, the derived area's leftovers and the local repairs
/// (``CacheVerification``).
public struct ObjectAudit: Sendable {
    /// One object and what was found of it.
    public struct Verdict: Sendable {
        public var object: StoredObject
        public var key: CacheKey
        public var finding: ObjectCheck.Finding
        /// It was listed but gone by the time it was read (a gc, a forget): no damage.
        public var gone = false
    }

    public let storage: any CacheStorage
    /// Objects judged at once (a bucket: requests in flight; a folder: cores hashing).
    public var width: Int
    /// The largest pack or thumbnail read whole to be judged (an original is hashed as
    /// it streams, never held whole, whatever its size).
    public var maxReadBytes = 512 << 20
    /// A read that delivers nothing for this long fails (and is reported unread).
    public var stall: Duration = .seconds(60)

    public init(storage: any CacheStorage, width: Int) {
        self.storage = storage
        self.width = max(1, width)
    }

    /// The objects of `listed` TweetCache writes and judges by their bytes (originals,
    /// packs, thumbnails), and the others (a stray file, a foreign name), which no
    /// check can speak for and which are never deleted on their account.
    public static func sort(_ listed: [StoredObject]) -> (checked: [(StoredObject, CacheKey)], foreign: [StoredObject]) {
        var checked: [(StoredObject, CacheKey)] = [], foreign: [StoredObject] = []
        for object in listed {
            if let key = CacheKey(path: object.key), Self.judgedKinds.contains(key.kind) { checked.append((object, key)) }
            else { foreign.append(object) }
        }
        return (checked, foreign)
    }

    /// What ``ObjectCheck`` judges by its bytes; the rest of a listing is foreign here.
    static let judgedKinds: Set<CacheKey.Kind> = [.original, .pack, .thumbnail]

    /// Judges every object, ``width`` at a time, by ``ObjectCheck``: an original against
    /// its name, a pack throughout, a thumbnail against the hashes its makers recorded
    /// (`expected`; none recorded: it must be an image). Verdicts come back in key order;
    /// `progress` counts objects.
    public func judge(_ objects: [(StoredObject, CacheKey)], expected: @escaping @Sendable (CacheKey) -> Set<BlobHash>,
                      progress: WorkProgress? = nil) async -> [Verdict] {
        var verdicts: [Verdict] = []
        verdicts.reserveCapacity(objects.count)
        // Small batches, not a task per object: a cache of small blobs spends more on
        // tasks than on hashing otherwise; a batch still leaves the lanes evenly loaded.
        let batches = stride(from: 0, to: objects.count, by: 16).map { Array(objects[$0..<min($0 + 16, objects.count)]) }
        await concurrently(batches, width: width, { [self] batch in
            var judged: [Verdict] = []
            for (object, key) in batch {
                judged.append(await judge(object, key: key, expected: expected))
                progress?.advance(by: 1)
            }
            return judged
        }) { verdicts += $0 }
        return verdicts.sorted { $0.object.key < $1.object.key }
    }

    func judge(_ object: StoredObject, key: CacheKey, expected: @Sendable (CacheKey) -> Set<BlobHash>) async -> Verdict {
        var verdict = Verdict(object: object, key: key, finding: .good)
        do {
            if case .original(let name) = key {
                // Streamed reads are not retried by the store as whole ones are: a second
                // try keeps one dropped connection from reporting an original unread.
                let digest: (hash: BlobHash, size: Int)?
                do { digest = try await storage.digest(object.key, stall: stall) } catch {
                    digest = try await storage.digest(object.key, stall: stall)
                }
                guard let (hash, size) = digest else {
                    verdict.gone = true
                    verdict.finding = .unreadable("listed but gone")
                    return verdict
                }
                verdict.object.size = size
                verdict.finding = ObjectCheck.judge(original: name, hashing: hash)
                return verdict
            }
            guard object.size <= maxReadBytes else {
                verdict.finding = .unreadable("\(ByteCount.format(object.size)), larger than verify reads here")
                return verdict
            }
            guard let bytes = try await storage.get(object.key, maxBytes: maxReadBytes) else {
                verdict.gone = true
                verdict.finding = .unreadable("listed but gone")
                return verdict
            }
            verdict.finding = ObjectCheck.judge(key, bytes: bytes, expected: expected(key))
        } catch {
            verdict.finding = .unreadable("could not be read: \(error.description)")
        }
        return verdict
    }
}
